from notebooks.log import services
from notebooks.models import Row


def _take(api, notebook="zelda", plan="tidy the bridge lines"):  # noqa: ANN001, ANN201
    return api.post("/api/sessions", {"notebook": notebook, "plan": plan})


def test_take_answers_201_with_the_session_and_its_base(zelda, pippa):
    response = _take(pippa)
    assert response.status_code == 201
    body = response.json()
    assert body["base"] == 3 and body["notebook"] == "zelda" and isinstance(body["id"], int)


def test_a_second_take_is_a_409_naming_the_holder(zelda, pippa, reflector):
    _take(pippa)
    response = _take(reflector)
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["holder"] == "pippa" and "pippa" in error["message"]


def test_take_of_an_unknown_notebook_is_a_404(zelda, pippa):
    assert _take(pippa, notebook="zeldo").status_code == 404
    assert _take(pippa, notebook="\x00").status_code == 404


def test_take_with_a_bad_body_is_a_400(zelda, pippa):
    assert pippa.post("/api/sessions", {"notebook": "zelda"}).status_code == 400
    assert pippa.post("/api/sessions", {"notebook": "zelda", "plan": 5}).status_code == 400
    assert pippa.post("/api/sessions", {"notebook": "zelda", "plan": "x", "base": 1}).status_code == 400


def test_a_write_under_another_title_is_a_409_while_the_session_is_open(zelda, pippa):
    services.create_notebook(title="metroid", by="test")
    _take(pippa)
    response = pippa.post("/api/notebooks/metroid/lines", {"text": "x", "source": "seen", "why": "y"})
    assert response.status_code == 409
    assert "refused while it is open" in response.json()["error"]["message"]


def test_a_mistyped_title_while_holding_a_session_is_a_404_with_did_you_mean(zelda, pippa):
    _take(pippa)
    response = pippa.post("/api/notebooks/zeldo/lines", {"text": "x", "source": "seen", "why": "y"})
    assert response.status_code == 404
    assert "Did you mean 'zelda'?" in response.json()["error"]["message"]
    assert pippa.post("/api/notebooks/zeldo/lines/1/edit", {"text": "x", "why": "y"}).status_code == 404


def test_another_agents_write_to_a_claimed_notebook_is_a_409(zelda, pippa, reflector):
    _take(pippa)
    response = reflector.post("/api/notebooks/zelda/lines", {"text": "x", "source": "seen", "why": "y"})
    assert response.status_code == 409


def test_a_session_round_trip_lands_its_rows_apart_from_dads_drift(zelda, pippa, dad_api):
    sid = _take(pippa).json()["id"]
    pippa.post("/api/notebooks/zelda/lines", {"text": "roll after the second swing", "source": "seen", "why": "seen"})
    dad_api.post("/api/notebooks/zelda/lines", {"text": "rest at every camp", "source": "dad", "why": "hint"})
    checkpoint = pippa.post(f"/api/sessions/{sid}/checkpoint", {"note": "one line in"})
    assert checkpoint.status_code == 200 and checkpoint.json() == {"id": sid, "base": 3, "head": 5}
    landed = pippa.post(f"/api/sessions/{sid}/land", {"summary": "a new line about the guard"})
    assert landed.status_code == 200
    # The head is the land's copy of the session's one proposal (seq 6), at the land's place in the log.
    assert landed.json() == {"id": sid, "result": "landed", "base": 3, "head": 6, "rows": 1, "drift": 1}
    session = pippa.get(f"/api/sessions/{sid}").json()
    assert session["state"] == "landed"
    assert [(r["op"], r["proposed_text"]) for r in session["change"]] == [("propose", "roll after the second swing")]
    assert "rest at every camp" in [r.get("text") for r in session["drift"]]
    assert [e["kind"] for e in session["events"]] == ["drift", "take", "checkpoint", "drift", "land"]


def test_a_land_with_nothing_written_is_a_no_op(zelda, pippa):
    sid = _take(pippa).json()["id"]
    body = pippa.post(f"/api/sessions/{sid}/land", {}).json()
    assert body["result"] == "no-op" and body["rows"] == 0


def test_a_gate_refusal_is_a_409_with_reasons_and_the_session_stays_open(zelda, pippa):
    for text in ("a", "b"):
        services.add(notebook="zelda", text=text, source="seen", by="pippa", why="seen")
    sid = _take(pippa).json()["id"]
    for n in (1, 2, 4):
        pippa.post(f"/api/notebooks/zelda/lines/{n}/retire", {"why": "stale"})
    response = pippa.post(f"/api/sessions/{sid}/land", {"summary": "tidied"})
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "gate_refused" and error["reasons"]
    assert pippa.get(f"/api/sessions/{sid}").json()["state"] == "open"
    assert pippa.get("/api/sessions", state="open").json()["sessions"][0]["id"] == sid


def test_abandon_closes_the_session_and_keeps_its_rows(zelda, pippa):
    sid = _take(pippa).json()["id"]
    pippa.post("/api/notebooks/zelda/lines", {"text": "x", "source": "seen", "why": "y"})
    response = pippa.post(f"/api/sessions/{sid}/abandon", {"why": "wrong plan"})
    assert response.status_code == 200 and response.json()["rows"] == 1
    assert Row.objects.filter(session_id=sid).count() == 1
    assert pippa.post(f"/api/sessions/{sid}/land", {}).status_code == 409


def test_another_agent_may_not_land_or_checkpoint_anothers_session(zelda, pippa, reflector):
    sid = _take(pippa).json()["id"]
    assert reflector.post(f"/api/sessions/{sid}/land", {}).status_code == 403
    assert reflector.post(f"/api/sessions/{sid}/checkpoint", {"note": "x"}).status_code == 403
    assert reflector.post(f"/api/sessions/{sid}/abandon", {"why": "x"}).status_code == 403


def test_dad_may_abandon_her_session(zelda, pippa, dad_api):
    sid = _take(pippa).json()["id"]
    assert dad_api.post(f"/api/sessions/{sid}/abandon", {"why": "stuck"}).status_code == 200


def test_unknown_sessions_are_404_and_bad_ids_400(zelda, pippa):
    assert pippa.get("/api/sessions/999").status_code == 404
    assert pippa.post("/api/sessions/999/land", {}).status_code == 404
    assert pippa.post(f"/api/sessions/{10**40}/land", {}).status_code == 404
    assert pippa.post("/api/sessions/abc/land", {}).status_code == 400


def test_session_bodies_are_checked(zelda, pippa):
    sid = _take(pippa).json()["id"]
    assert pippa.post(f"/api/sessions/{sid}/checkpoint", {}).status_code == 400
    assert pippa.post(f"/api/sessions/{sid}/checkpoint", {"note": ["x"]}).status_code == 400
    assert pippa.post(f"/api/sessions/{sid}/land", {"summary": 1}).status_code == 400
    assert pippa.post(f"/api/sessions/{sid}/land", "[]").status_code == 400
    assert pippa.post(f"/api/sessions/{sid}/abandon", {"why": ""}).status_code == 400


def test_it_lists_sessions_and_refuses_an_unknown_state(zelda, pippa):
    sid = _take(pippa).json()["id"]
    assert [s["id"] for s in pippa.get("/api/sessions").json()["sessions"]] == [sid]
    assert pippa.get("/api/sessions", state="landed").json()["sessions"] == []
    assert pippa.get("/api/sessions", state="sideways").status_code == 400


def test_the_notebook_list_names_the_claim(zelda, pippa):
    sid = _take(pippa).json()["id"]
    assert pippa.get("/api/notebooks").json()["notebooks"][0]["session"] == {"id": sid, "actor": "pippa"}


def test_session_endpoints_need_a_token(zelda, pippa):
    from tests.agent_helpers import Api

    assert Api(None).post("/api/sessions", {"notebook": "zelda", "plan": "x"}).status_code == 401
    assert Api(None).get("/api/sessions").status_code == 401


def test_a_sessions_events_count_as_number_and_seq_names_only_rows(zelda, pippa):
    """An event's place among its session's events is `number` in the API, the CLI's --json and the document: a
    `seq` is a row of the log, everywhere."""
    import json
    from io import StringIO

    from django.core.management import call_command

    from notebooks.agents.api import api

    sid = _take(pippa).json()["id"]
    added = pippa.post("/api/notebooks/zelda/lines", {"text": "roll after the swing", "source": "seen", "why": "seen"})
    pippa.post(f"/api/sessions/{sid}/withdraw", {"seq": added.json()["seq"], "why": "misread"})
    pippa.post(f"/api/sessions/{sid}/land", {"summary": "nothing"})
    events = pippa.get(f"/api/sessions/{sid}").json()["events"]
    assert [(e["number"], e["kind"]) for e in events] == [(1, "drift"), (2, "take"), (3, "withdraw"), (4, "land")]
    assert all("seq" not in e for e in events) and events[2]["proposal"] == added.json()["seq"]
    assert pippa.get("/api/sessions").json()["sessions"][0]["events"] == events
    out = StringIO()
    call_command("notebook", "sessions", "--json", stdout=out)
    assert json.loads(out.getvalue())["sessions"][0]["events"] == events
    event = api.get_openapi_schema(path_prefix="/api/")["components"]["schemas"]["Event"]
    assert "number" in event["required"] and "seq" not in event["properties"]


def test_a_redacted_row_in_a_sessions_rows_reads_as_in_the_notebooks_rows(zelda, pippa, dad_api):
    sid = _take(pippa).json()["id"]  # its take records Dad's #3 (seq 3) as drift
    pippa.post("/api/notebooks/zelda/lines", {"text": "my password is hunter2", "source": "seen", "why": "seen"})
    for n in (3, 4):
        response = dad_api.post(f"/api/notebooks/zelda/lines/{n}/redact", {"why": "a password", "seq": n})
        assert response.status_code == 200, response.json()
    rows = {r["seq"]: r for r in dad_api.get("/api/notebooks/zelda/rows").json()["rows"]}
    session = dad_api.get(f"/api/sessions/{sid}").json()
    drift, change = (next(r for r in session[side] if r["n"] == n) for side, n in (("drift", 3), ("change", 4)))
    assert drift["text"] == "[redacted: a password]" and drift["redacted"] is True
    assert change["proposed_text"] == "[redacted: a password]" and change["redacted"] is True
    assert drift == rows[drift["seq"]] and change == rows[change["seq"]]
