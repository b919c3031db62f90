"""A session is its holder's handle: a second take by her names it and its lease, every write says which session it
went into, a write naming a session goes only into that one, and her reads tell her the session's state, its lapsed
lines included. An agent can mend her own session: restore and put back through the API."""

import pytest

from notebooks.log import services
from notebooks.models import Row
from tests.conftest import LEASE_TTL


def _take(api, notebook="zelda", plan="tidy the bridge lines"):  # noqa: ANN001, ANN201
    return api.post("/api/sessions", {"notebook": notebook, "plan": plan})


def _add(api, text="roll after the second swing", **more):  # noqa: ANN001, ANN201
    return api.post("/api/notebooks/zelda/lines", {"text": text, "source": "seen", "why": "seen it", **more})


def test_a_second_take_by_the_holder_names_her_session_its_lease_and_how_to_go_on(zelda, pippa, clock):
    sid = _take(pippa).json()["id"]
    again = _take(pippa)
    assert again.status_code == 409
    error = again.json()["error"]
    assert error["session"] == sid and error["notebook"] == "zelda"
    assert error["lease_until"] == pytest.approx(clock.at + LEASE_TTL)
    assert f"pippa already holds session #{sid}" in error["message"] and f"name session {sid}" in error["message"]
    assert "claimed by pippa" not in error["message"]  # not told she is in her own way


def test_every_write_answers_the_session_it_went_into(zelda, pippa, clock):
    assert _add(pippa).json()["session"] is None  # no session: the answer says so
    sid = _take(pippa).json()["id"]
    added = _add(pippa, "the guard drops his shield when hit").json()
    assert added["session"] == {"id": sid, "state": "open", "lease_until": pytest.approx(clock.at + LEASE_TTL)}
    edited = pippa.post("/api/notebooks/zelda/lines/2/edit", {"text": "attack after he swings", "why": "tried it"})
    assert edited.status_code == 200 and edited.json()["session"]["id"] == sid


def test_a_write_naming_its_open_session_goes_into_it(zelda, pippa):
    sid = _take(pippa).json()["id"]
    added = _add(pippa, session=sid)
    assert added.status_code == 201 and added.json()["session"]["id"] == sid
    assert Row.objects.get(seq=added.json()["seq"]).session_id == sid


def test_a_write_naming_a_closed_a_foreign_or_an_unknown_session_is_refused_with_nothing_written(
    zelda, pippa, reflector
):
    theirs = _take(reflector, notebook="zelda").json()["id"]
    reflector.post(f"/api/sessions/{theirs}/abandon", {"why": "not now"})
    mine = _take(pippa).json()["id"]
    pippa.post(f"/api/sessions/{mine}/land", {"summary": "nothing"})
    rows = Row.objects.count()
    closed = _add(pippa, session=mine)
    assert closed.status_code == 409 and closed.json()["error"]["state"] == "landed"
    foreign = _add(pippa, session=theirs)
    assert foreign.status_code == 403 and "reflector's" in foreign.json()["error"]["message"]
    unknown = _add(pippa, session=99999)
    assert unknown.status_code == 404 and unknown.json()["error"]["session"] == 99999
    assert Row.objects.count() == rows


def test_a_write_naming_a_lapsed_session_is_refused_as_lapsed(zelda, pippa, clock):
    sid = _take(pippa).json()["id"]
    clock.move(LEASE_TTL + 1)
    refused = _add(pippa, session=sid)
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "lapsed"


def test_a_write_naming_a_session_on_another_notebook_is_refused(zelda, pippa):
    services.create_notebook(title="metroid", by="test")
    sid = _take(pippa, notebook="metroid").json()["id"]
    refused = _add(pippa, session=sid)
    assert refused.status_code == 409 and refused.json()["error"]["notebook"] == "metroid"


def test_the_holders_lines_and_turn_carry_her_session(zelda, pippa, reflector, clock):
    sid = _take(pippa).json()["id"]
    _add(pippa)
    held = {"id": sid, "state": "open", "lease_until": pytest.approx(clock.at + LEASE_TTL)}
    lines = pippa.get("/api/notebooks/zelda/lines").json()
    assert lines["session"] == held and lines["lapsed"] == []
    assert "roll after the second swing" in [x["text"] for x in lines["lines"]]
    turn = pippa.get("/api/notebooks/zelda/turn").json()
    assert turn["session"] == held and "roll after the second swing" in turn["text"]
    others = reflector.get("/api/notebooks/zelda/lines").json()
    assert others["session"] is None and "roll after the second swing" not in [x["text"] for x in others["lines"]]


def test_a_lapsed_sessions_pending_lines_are_listed_as_lapsed_not_silently_gone(zelda, pippa, clock):
    sid = _take(pippa).json()["id"]
    _add(pippa)
    clock.move(LEASE_TTL + 1)
    lines = pippa.get("/api/notebooks/zelda/lines").json()
    assert lines["session"]["id"] == sid and lines["session"]["state"] == "lapsed"
    assert "roll after the second swing" not in [x["text"] for x in lines["lines"]]
    assert [x["text"] for x in lines["lapsed"]] == ["roll after the second swing"]
    turn = pippa.get("/api/notebooks/zelda/turn").json()
    assert turn["session"]["state"] == "lapsed" and [x["text"] for x in turn["lapsed"]] == [
        "roll after the second swing"
    ]
    pippa.post(f"/api/sessions/{sid}/abandon", {"why": "lapsed"})
    after = pippa.get("/api/notebooks/zelda/lines").json()
    assert (after["session"], after["lapsed"]) == (None, [])


def test_the_lines_a_lapsed_session_would_retire_or_merge_away_are_listed_apart(zelda, pippa, clock):
    assert _add(pippa, "the guard swings two times").status_code == 201  # #4, outside any session
    sid = _take(pippa).json()["id"]
    assert pippa.post("/api/notebooks/zelda/lines/2/retire", {"why": "wrong"}).status_code == 200
    assert pippa.post("/api/notebooks/zelda/lines/4/retire", {"why": "said by #1", "into": 1}).status_code == 200
    held = pippa.get("/api/notebooks/zelda/lines").json()
    assert held["lapsed_retired"] == [] and {2, 4}.isdisjoint(x["n"] for x in held["lines"])  # her own view
    clock.move(LEASE_TTL + 1)
    lines = pippa.get("/api/notebooks/zelda/lines").json()
    assert (lines["session"]["id"], lines["session"]["state"]) == (sid, "lapsed")
    assert {2, 4} <= {x["n"] for x in lines["lines"]}  # still in the notebook
    assert lines["lapsed_retired"] == [2, 4]
    assert pippa.get("/api/notebooks/zelda/turn").json()["lapsed_retired"] == [2, 4]
    assert pippa.post(f"/api/sessions/{sid}/abandon", {"why": "lapsed"}).status_code == 200
    assert pippa.get("/api/notebooks/zelda/lines").json()["lapsed_retired"] == []


def test_a_lapsed_session_stays_in_her_reads_of_its_notebook_while_she_holds_one_on_another(zelda, pippa, clock):
    services.create_notebook(title="mario", by="dad")
    sid = _take(pippa).json()["id"]
    _add(pippa)
    assert pippa.post("/api/notebooks/zelda/lines/2/retire", {"why": "wrong"}).status_code == 200
    clock.move(LEASE_TTL + 1)
    other = _take(pippa, notebook="mario").json()["id"]
    lines = pippa.get("/api/notebooks/zelda/lines").json()
    assert (lines["session"]["id"], lines["session"]["state"]) == (sid, "lapsed")
    assert [x["text"] for x in lines["lapsed"]] == ["roll after the second swing"] and lines["lapsed_retired"] == [2]
    turn = pippa.get("/api/notebooks/zelda/turn").json()
    assert turn["session"]["id"] == sid and turn["lapsed_retired"] == [2]
    assert pippa.get("/api/notebooks/mario/lines").json()["session"]["id"] == other
    pippa.post(f"/api/sessions/{sid}/abandon", {"why": "moved on"})
    assert pippa.get("/api/notebooks/zelda/lines").json()["session"] is None


def test_an_agent_mends_a_refused_land_by_restoring_the_lines_she_retired(zelda, pippa):
    sid = _take(pippa).json()["id"]
    for n in (1, 2):
        assert pippa.post(f"/api/notebooks/zelda/lines/{n}/retire", {"why": "old"}).status_code == 200
    refused = pippa.post(f"/api/sessions/{sid}/land", {"summary": "tidy"})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "gate_refused"
    restored = pippa.post("/api/notebooks/zelda/lines/1/restore", {"why": "keep it after all"})
    assert restored.status_code == 201 and restored.json()["session"]["id"] == sid
    landed = pippa.post(f"/api/sessions/{sid}/land", {"summary": "tidy"})
    assert landed.status_code == 200 and landed.json()["result"] == "landed"


def test_an_agent_puts_back_earlier_words_of_her_line(zelda, pippa):
    pippa.post("/api/notebooks/zelda/lines/2/edit", {"text": "attack at once", "why": "tried it"})
    history = pippa.get("/api/notebooks/zelda/lines/2/history").json()["entries"]
    first = history[0]["seq"]
    back = pippa.post("/api/notebooks/zelda/lines/2/put-back", {"seq": first, "why": "the first words were right"})
    assert back.status_code == 200
    assert pippa.get("/api/notebooks/zelda/lines").json()["lines"][1]["text"] == "always attack first"
    wrong = pippa.post("/api/notebooks/zelda/lines/2/put-back", {"seq": 3, "why": "x"})
    assert wrong.status_code == 400
