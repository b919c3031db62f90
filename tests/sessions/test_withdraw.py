"""An agent mends her own session by withdrawing one proposal: a `withdraw` event names it, nothing is erased, her
view, the gates and the land no longer count it, and the rest lands. Each refusal in the API's words."""

from notebooks.models import EventKind, Row, SessionEvent
from notebooks.sessions import services as sessions
from tests.conftest import LEASE_TTL


def _take(api, notebook="zelda"):  # noqa: ANN001, ANN201
    return api.post("/api/sessions", {"notebook": notebook, "plan": "tidy"}).json()["id"]


def _add(api, text):  # noqa: ANN001, ANN201
    return api.post("/api/notebooks/zelda/lines", {"text": text, "source": "seen", "why": "seen it"}).json()


def _withdraw(api, sid, seq, why="not this one"):  # noqa: ANN001, ANN201
    return api.post(f"/api/sessions/{sid}/withdraw", {"seq": seq, "why": why})


def _texts(api):  # noqa: ANN001, ANN201
    return [x["text"] for x in api.get("/api/notebooks/zelda/lines").json()["lines"]]


def test_withdraw_then_land_lands_the_rest_without_the_withdrawn_line(zelda, pippa):
    sid = _take(pippa)
    kept = _add(pippa, "roll after the second swing")
    wrong = _add(pippa, "the guard is asleep")
    withdrawn = _withdraw(pippa, sid, wrong["seq"], "I misread it")
    assert withdrawn.status_code == 200
    assert withdrawn.json() == {
        "id": sid, "proposal": wrong["seq"], "proposes": "add", "n": wrong["n"], "head": wrong["seq"], "rows": 1,
    }  # fmt: skip
    assert "the guard is asleep" not in _texts(pippa) and "roll after the second swing" in _texts(pippa)
    landed = pippa.post(f"/api/sessions/{sid}/land", {"summary": "one line"})
    assert landed.status_code == 200 and landed.json()["rows"] == 1
    texts = _texts(pippa)
    assert "roll after the second swing" in texts and "the guard is asleep" not in texts
    assert not Row.objects.filter(lands=wrong["seq"]).exists() and Row.objects.filter(lands=kept["seq"]).exists()
    assert Row.objects.get(seq=wrong["seq"]).op == "propose"  # nothing erased
    events = pippa.get(f"/api/sessions/{sid}").json()["events"]
    event = next(e for e in events if e["kind"] == "withdraw")
    assert (event["by"], event["note"], event["proposal"]) == ("pippa", "I misread it", wrong["seq"])
    history = pippa.get(f"/api/notebooks/zelda/lines/{wrong['n']}/history")
    assert history.status_code == 200 and history.json()["entries"][0]["proposes"] == "add"


def test_a_gate_refusal_is_mended_by_withdrawing_the_offending_proposal(zelda, pippa):
    sid = _take(pippa)
    strikes = [pippa.post(f"/api/notebooks/zelda/lines/{n}/retire", {"why": "old"}).json() for n in (1, 2)]
    refused = pippa.post(f"/api/sessions/{sid}/land", {"summary": "tidy"})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "gate_refused"
    assert _withdraw(pippa, sid, strikes[1]["seq"], "keep line 2").status_code == 200
    assert "always attack first" in _texts(pippa)  # back in her view
    landed = pippa.post(f"/api/sessions/{sid}/land", {"summary": "tidy"})
    assert landed.status_code == 200 and landed.json()["rows"] == 1
    texts = _texts(pippa)
    assert "always attack first" in texts and "the bridge guard swings twice" not in texts


def test_a_withdrawn_edit_leaves_the_line_as_landed_for_her_next_write(zelda, pippa):
    sid = _take(pippa)
    edit = pippa.post("/api/notebooks/zelda/lines/2/edit", {"text": "attack at once", "why": "tried"}).json()
    assert _withdraw(pippa, sid, edit["seq"]).status_code == 200
    assert "always attack first" in _texts(pippa)
    again = pippa.post("/api/notebooks/zelda/lines/2/edit", {"text": "attack later", "why": "x", "expected": 2})
    assert again.status_code == 200
    assert pippa.post(f"/api/sessions/{sid}/land", {"summary": "one edit"}).json()["rows"] == 1
    assert "attack later" in _texts(pippa)


def test_her_conditional_read_sees_the_withdrawal(zelda, pippa):
    sid = _take(pippa)
    added = _add(pippa, "roll after the second swing")
    first = pippa.get("/api/notebooks/zelda/lines")
    _withdraw(pippa, sid, added["seq"])
    again = pippa.client.get("/api/notebooks/zelda/lines", HTTP_IF_NONE_MATCH=first["ETag"], **pippa._headers())
    assert again.status_code == 200 and "roll after the second swing" not in _texts(pippa)


def test_a_proposal_not_of_this_session_is_404_and_nothing_is_recorded(zelda, pippa):
    sid = _take(pippa)
    for seq in (1, 999):  # a row before the take, and none at all
        refused = _withdraw(pippa, sid, seq)
        assert refused.status_code == 404
        assert refused.json()["error"] == {**refused.json()["error"], "session": sid, "proposal": seq}
    assert not SessionEvent.objects.filter(kind=EventKind.WITHDRAW).exists()
    assert _withdraw(pippa, 99999, 1).status_code == 404


def test_a_proposal_withdrawn_already_is_409(zelda, pippa):
    sid = _take(pippa)
    added = _add(pippa, "roll after the second swing")
    _withdraw(pippa, sid, added["seq"])
    again = _withdraw(pippa, sid, added["seq"])
    assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"
    assert "already withdrawn by pippa" in again.json()["error"]["message"]


def test_a_proposal_a_later_one_builds_on_is_withdrawn_after_it(zelda, pippa):
    sid = _take(pippa)
    added = _add(pippa, "roll after the second swing")
    edit = pippa.post(f"/api/notebooks/zelda/lines/{added['n']}/edit", {"text": "roll twice", "why": "x"}).json()
    refused = _withdraw(pippa, sid, added["seq"])
    assert refused.status_code == 409 and f"withdraw seq {edit['seq']} first" in refused.json()["error"]["message"]
    assert _withdraw(pippa, sid, edit["seq"]).status_code == 200
    assert _withdraw(pippa, sid, added["seq"]).status_code == 200
    assert pippa.post(f"/api/sessions/{sid}/land", {}).json()["result"] == "no-op"


def test_a_landed_or_abandoned_session_is_409(zelda, pippa):
    sid = _take(pippa)
    added = _add(pippa, "roll after the second swing")
    pippa.post(f"/api/sessions/{sid}/land", {"summary": "one"})
    landed = _withdraw(pippa, sid, added["seq"])
    assert landed.status_code == 409 and landed.json()["error"]["state"] == "landed"
    sid = _take(pippa)
    added = _add(pippa, "the guard drops his shield")
    pippa.post(f"/api/sessions/{sid}/abandon", {"why": "not now"})
    abandoned = _withdraw(pippa, sid, added["seq"])
    assert abandoned.status_code == 409 and abandoned.json()["error"]["state"] == "abandoned"


def test_a_lapsed_session_is_409_lapsed(zelda, pippa, clock):
    sid = _take(pippa)
    added = _add(pippa, "roll after the second swing")
    clock.move(LEASE_TTL + 1)
    refused = _withdraw(pippa, sid, added["seq"])
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "lapsed"


def test_anothers_session_is_403_but_dad_may_withdraw(zelda, pippa, reflector, dad):
    from notebooks.agents import tokens
    from tests.agent_helpers import Api

    dad_api = Api(tokens.issue(actor="dad", editor=True).secret)
    sid = _take(pippa)
    added = _add(pippa, "roll after the second swing")
    foreign = _withdraw(reflector, sid, added["seq"])
    assert foreign.status_code == 403 and foreign.json()["error"]["code"] == "forbidden"
    by_dad = _withdraw(dad_api, sid, added["seq"], "a wrong lesson")
    assert by_dad.status_code == 200
    assert SessionEvent.objects.get(kind=EventKind.WITHDRAW).by == "dad"


def test_the_service_and_the_cli_withdraw_alike(zelda, pippa):
    from io import StringIO

    from django.core.management import call_command

    taken = sessions.take(notebook="zelda", plan="tidy", by="pippa")
    first, second = (_add(pippa, text) for text in ("roll after the swing", "block first"))
    out = StringIO()
    call_command("notebook", "withdraw", str(taken.id), "--seq", str(second["seq"]), "--why", "wrong", "--by", "pippa",
                 stdout=out)  # fmt: skip
    assert f"withdrew proposal seq {second['seq']}" in out.getvalue()
    assert sessions.land(session=taken.id, summary="one", by="pippa").rows == 1
    assert Row.objects.filter(lands=first["seq"]).exists()


def test_a_merge_is_withdrawn_whole_by_its_merged_lines_add_never_in_part(zelda, pippa):
    sid = _take(pippa)
    added = _add(pippa, "roll after the second swing")
    merged = pippa.post(
        "/api/notebooks/zelda/merge", {"numbers": [added["n"], 1], "text": "the guard swings twice: roll", "why": "x"}
    ).json()
    strikes = list(Row.objects.filter(session_id=sid, proposes="strike").order_by("seq").values_list("seq", flat=True))
    assert len(strikes) == 2
    for seq in strikes:
        refused = _withdraw(pippa, sid, seq)
        assert refused.status_code == 409 and "a merge is taken back whole" in refused.json()["error"]["message"]
        assert f"Withdraw seq {merged['seq']}, the merged line's add" in refused.json()["error"]["message"]
    assert not SessionEvent.objects.filter(session_id=sid, kind=EventKind.WITHDRAW).exists()
    whole = _withdraw(pippa, sid, merged["seq"], "not a merge after all")
    assert whole.status_code == 200 and whole.json()["proposal"] == merged["seq"] and whole.json()["rows"] == 1
    taken = SessionEvent.objects.filter(session_id=sid, kind=EventKind.WITHDRAW).values_list("proposal", flat=True)
    assert sorted(taken) == sorted([merged["seq"], *strikes])
    texts = _texts(pippa)
    assert "the guard swings twice: roll" not in texts
    assert "the bridge guard swings twice" in texts and "roll after the second swing" in texts
    landed = pippa.post(f"/api/sessions/{sid}/land", {"summary": "one line"})
    assert landed.status_code == 200 and landed.json()["rows"] == 1
    assert "the bridge guard swings twice" in _texts(pippa)
