"""A session's change counts when it lands (fold.py): until then its rows are proposals that no other reader's view,
turn, export or frozen view shows; its holder reads her own writes; a land copies them at its own place in the log;
an abandoned session's change never counts."""

import time

import pytest

from notebooks.log import services
from notebooks.log.files import verify
from notebooks.log.rules.errors import Conflict
from notebooks.log.views import selectors
from notebooks.sessions import decisions
from notebooks.sessions import services as sessions
from notebooks.sessions.services import GateRefused
from tests.agent_helpers import DAD, older_reader


def _texts(api, **params) -> list[str]:  # noqa: ANN001, ANN003
    return [line["text"] for line in api.get("/api/notebooks/zelda/lines", **params).json()["lines"]]


def _pending_session(pippa) -> int:  # noqa: ANN001
    sid = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "the guard"}).json()["id"]
    assert pippa.post(
        "/api/notebooks/zelda/lines", {"text": "roll twice", "source": "seen", "why": "seen"}
    ).status_code in (200, 201)
    assert pippa.post(
        "/api/notebooks/zelda/lines/1/edit", {"to": "the guard swings three times", "why": "seen"}
    ).status_code in (200, 201)
    assert pippa.post("/api/notebooks/zelda/lines/2/retire", {"why": "wrong"}).status_code in (200, 201)
    return sid


BEFORE = ["the bridge guard swings twice", "always attack first", "block first, then attack"]
AFTER = ["the guard swings three times", "block first, then attack", "roll twice"]


def test_a_sessions_pending_rows_are_in_no_other_readers_view_turn_or_export(zelda, pippa, reflector):
    _pending_session(pippa)
    nb = selectors.get_notebook("zelda")
    assert _texts(reflector) == BEFORE
    assert [line.text for line in selectors.view(nb)] == BEFORE
    turn = reflector.get("/api/notebooks/zelda/turn").json()["text"]
    assert "roll twice" not in turn and "always attack first" in turn
    assert sorted(older_reader(list(selectors.export(nb))).values()) == sorted(BEFORE)
    assert all(line["text"] in BEFORE for line in reflector.get("/api/notebooks/zelda/lines", limit=10).json()["lines"])


def test_the_holder_reads_her_own_pending_writes(zelda, pippa, reflector):
    _pending_session(pippa)
    assert _texts(pippa) == AFTER
    assert _texts(pippa, limit=2) == AFTER[:2]
    turn = pippa.get("/api/notebooks/zelda/turn").json()["text"]
    assert "roll twice" in turn and "always attack first" not in turn
    assert _texts(reflector) == BEFORE  # her reads kept nothing another reader sees


def test_the_holder_changes_a_line_she_proposed(zelda, pippa):
    sid = _pending_session(pippa)
    edited = pippa.post("/api/notebooks/zelda/lines/4/edit", {"to": "roll twice, then wait", "why": "seen again"})
    assert edited.status_code == 200, edited.json()
    assert pippa.post("/api/notebooks/zelda/lines/2/retire", {"why": "again"}).status_code == 409  # already retired
    assert pippa.post(f"/api/sessions/{sid}/land", {"summary": "the guard"}).status_code == 200
    assert "roll twice, then wait" in [line.text for line in selectors.view(selectors.get_notebook("zelda"))]


def test_a_land_makes_them_count_at_its_own_place_and_a_frozen_view_never_changes(zelda, pippa, reflector):
    sid = _pending_session(pippa)
    nb = selectors.get_notebook("zelda")
    cut = selectors.head_at(nb).seq
    time.sleep(0.01)  # a time strictly between the last proposal and the land
    during = reflector.get("/api/notebooks/zelda/lines").json()
    frozen = reflector.get("/api/notebooks/zelda/lines", until=str(time.time())).json()
    assert frozen["lines"] == during["lines"] and [x["text"] for x in frozen["lines"]] == BEFORE
    time.sleep(0.01)
    landed = pippa.post(f"/api/sessions/{sid}/land", {"summary": "the guard"}).json()
    assert landed["result"] == "landed" and landed["head"] == cut + 3  # three landed copies after the proposals
    assert reflector.get("/api/notebooks/zelda/lines", until=str(frozen["until"])).json() == frozen
    assert [line.text for line in selectors.view_at_seq(nb, cut)] == BEFORE
    assert _texts(reflector) == AFTER
    assert sorted(older_reader(list(selectors.export(nb))).values()) == sorted(AFTER)
    assert verify.verify_chain(nb) == []


def test_an_abandoned_sessions_change_never_shows_and_its_numbers_stay_given(zelda, pippa, reflector, dad):
    sid = _pending_session(pippa)
    assert pippa.post(f"/api/sessions/{sid}/abandon", {"why": "wrong track"}).status_code == 200
    nb = selectors.get_notebook("zelda")
    assert _texts(reflector) == BEFORE and _texts(pippa) == BEFORE
    assert [line.text for line in selectors.view(nb)] == BEFORE
    assert services.add(notebook="zelda", text="new", source="dad", by=DAD, why="w").n == 5  # #4 was proposed
    history = pippa.get("/api/notebooks/zelda/lines/1/history").json()["entries"]
    assert [e["op"] for e in history] == ["add", "propose"]  # the proposal stays in the log, as such
    assert verify.verify_chain(nb) == []


def test_a_discarded_sessions_change_never_counts(zelda, pippa, dad):
    sid = _pending_session(pippa)
    decisions.discard(session=sid, reason="not this", by=DAD)
    assert [line.text for line in selectors.view(selectors.get_notebook("zelda"))] == BEFORE


def test_a_line_another_writer_changed_since_the_base_refuses_the_land_and_the_session_stays_open(zelda, pippa):
    sid = _pending_session(pippa)
    sessions.abandon(session=sid, why="again", by="pippa")
    sid = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "the guard"}).json()["id"]
    assert pippa.post("/api/notebooks/zelda/lines/1/edit", {"to": "swings four times", "why": "seen"}).status_code in (
        200,
        201,
    )
    services.edit(notebook="zelda", n=1, to="swings five times", by=DAD, why="dad knows")
    refused = pippa.post(f"/api/sessions/{sid}/land", {"summary": "the guard"})
    assert refused.status_code == 409 and "changed by another writer" in refused.json()["error"]["message"]
    assert [line.text for line in selectors.view(selectors.get_notebook("zelda"))][0] == "swings five times"
    decisions.land_as_editor(session=sid, reason="hers is right", by=DAD)  # Dad may overrule it
    assert [line.text for line in selectors.view(selectors.get_notebook("zelda"))][0] == "swings four times"


def test_a_land_that_would_change_a_line_retired_since_is_refused_even_for_dad(zelda, pippa):
    sid = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "the guard"}).json()["id"]
    assert pippa.post("/api/notebooks/zelda/lines/1/edit", {"to": "swings four times", "why": "seen"}).status_code in (
        200,
        201,
    )
    services.retire(notebook="zelda", n=1, by=DAD, why="gone")
    with pytest.raises(GateRefused):
        sessions.land(session=sid, by="pippa", summary="the guard")
    with pytest.raises(Conflict, match="retired by another writer"):
        decisions.land_as_editor(session=sid, reason="hers is right", by=DAD)
    assert [line.n for line in selectors.view(selectors.get_notebook("zelda"))] == [2, 3]


def test_dads_card_shows_the_pending_change_marked_and_the_notebook_without_it(zelda, pippa, editor_client):
    sid = _pending_session(pippa)
    html = editor_client.get("/notebooks/zelda/").content.decode()
    pending = html.split(f"Pending in session #{sid} by pippa", 1)
    assert len(pending) == 2, "no pending section"
    section, rest = pending[1].split("</section>", 1)
    assert "roll twice" in section and "proposed" in section and "the guard swings three times" in section
    assert "roll twice" not in rest and "the guard swings three times" not in rest and "always attack first" in rest
    history = editor_client.get("/notebooks/zelda/lines/1/history/").content.decode()
    assert f"in session #{sid}, counting only once it lands" in history
    pippa.post(f"/api/sessions/{sid}/land", {"summary": "the guard"})
    html = editor_client.get("/notebooks/zelda/").content.decode()
    assert "Pending in session" not in html and "roll twice" in html
    assert "landed: proposed as change" in editor_client.get("/notebooks/zelda/lines/1/history/").content.decode()


def test_a_line_is_restored_once_within_a_session_too(zelda, pippa):
    sid = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "the guard"}).json()["id"]
    assert pippa.post("/api/notebooks/zelda/lines/2/retire", {"why": "wrong"}).status_code == 200
    assert services.restore(notebook="zelda", n=2, by="pippa", why="it was right").n == 4
    with pytest.raises(Conflict, match="already restored, as line #4"):
        services.restore(notebook="zelda", n=2, by="pippa", why="again")
    assert pippa.post(f"/api/sessions/{sid}/land", {"summary": "the guard"}).status_code == 200
    assert verify.verify_chain(selectors.get_notebook("zelda")) == []


def test_the_cli_history_names_a_proposal_and_its_landed_row(zelda, pippa):
    from io import StringIO

    from django.core.management import call_command

    sid = _pending_session(pippa)
    pippa.post(f"/api/sessions/{sid}/land", {"summary": "the guard"})
    out = StringIO()
    call_command("notebook", "history", "zelda", "1", stdout=out)
    text = out.getvalue()
    assert f"edit in session #{sid}, pending until it lands: [seen] the guard swings three times" in text
    assert "(landed: proposed at seq 5)" in text
