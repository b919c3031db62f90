"""Dad decides what the gate refused: a refused land leaves the session open with its reasons recorded; Dad lands
it as his approval or discards it, with his reason, through the services."""

import pytest

from notebooks.log import services
from notebooks.log.identity.roles import Actor
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid
from notebooks.models import EventKind, SessionEvent
from notebooks.sessions import claims as session_claims
from notebooks.sessions import decisions, leases
from notebooks.sessions import selectors as session_selectors
from notebooks.sessions import services as sessions
from tests.agent_helpers import DAD

PIPPA = Actor("pippa")
TTL = 60.0


def _add(text: str) -> int:
    return services.add(notebook="zelda", text=text, source="seen", by=PIPPA, why="seen in the game").n


def _events(session_id: int) -> list[SessionEvent]:
    return list(SessionEvent.objects.filter(session_id=session_id).order_by("seq"))


def _refused(zelda) -> int:  # noqa: ANN001
    """A session of Pippa's that retired three of the five live lines without a successor: the gate refuses it."""
    _add("swing left")
    _add("swing right")
    taken = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    for n in (1, 2, 4):
        services.retire(notebook="zelda", n=n, by=PIPPA, why="stale")
    with pytest.raises(sessions.GateRefused):
        sessions.land(session=taken.id, summary="dropped three", by=PIPPA)
    return taken.id


def test_a_refused_land_records_the_gates_reasons_and_leaves_the_session_open(zelda):
    sid = _refused(zelda)
    refusal = _events(sid)[-1]
    assert refusal.kind == EventKind.REFUSE and refusal.by == "pippa" and refusal.rows == 3
    assert "retired 3 of the 5 lines" in refusal.note
    view = session_selectors.describe(session_selectors.get_session(sid))
    assert view.state == "open" and view.refusal == refusal and view.undecided
    assert session_claims.is_open(session_selectors.get_session(sid))


def test_the_same_refusal_again_records_no_second_event(zelda):
    sid = _refused(zelda)
    with pytest.raises(sessions.GateRefused):
        sessions.land(session=sid, summary="dropped three", by=PIPPA)
    assert [e.kind for e in _events(sid)].count(EventKind.REFUSE) == 1


def test_the_agent_mends_a_refused_session_by_restoring_and_lands_it_again(zelda):
    sid = _refused(zelda)
    services.restore(notebook="zelda", n=1, by=PIPPA, why="still true")
    services.restore(notebook="zelda", n=2, by=PIPPA, why="still true")
    assert sessions.land(session=sid, summary="dropped one", by=PIPPA).result == "landed"


def test_dad_lands_a_refused_session_as_his_approval_with_the_gates_reasons_beside_it(zelda):
    sid = _refused(zelda)
    landed = decisions.land_as_editor(session=sid, reason="those three were wrong", by=DAD)
    assert (landed.result, landed.rows) == ("landed", 3)
    *_, overruled, land = _events(sid)
    assert (land.kind, land.by, land.note, land.result) == ("land", "dad", "those three were wrong", "landed")
    assert (overruled.kind, overruled.by, overruled.result) == ("refuse", "dad", "overruled")
    assert "retired 3 of the 5 lines" in overruled.note
    view = session_selectors.describe(session_selectors.get_session(sid))
    assert view.state == "landed" and view.decision == land and not view.undecided


def test_dad_lands_an_open_session_that_passes_the_gates_with_no_refusal_recorded(zelda):
    taken = sessions.take(notebook="zelda", plan="one lesson", by=PIPPA)
    _add("roll after the second swing")
    decisions.land_as_editor(session=taken.id, reason="good lesson", by=DAD)
    assert [e.kind for e in _events(taken.id)][-2:] == ["take", "land"]
    with pytest.raises(Conflict, match="already landed"):
        sessions.land(session=taken.id, summary="mine", by=PIPPA)


@pytest.fixture
def clock(monkeypatch, settings):  # noqa: ANN001, ANN201
    settings.NOTEBOOK_SESSION_TTL = TTL
    at = [leases.time.time()]
    monkeypatch.setattr(leases, "now", lambda: at[0])
    return at


def test_dad_lands_a_lapsed_session_whose_own_land_answers_lapsed(zelda, clock):
    taken = sessions.take(notebook="zelda", plan="one lesson", by=PIPPA)
    _add("roll after the second swing")
    clock[0] += TTL + 1
    with pytest.raises(leases.Lapsed):
        sessions.land(session=taken.id, summary="mine", by=PIPPA)
    landed = decisions.land_as_editor(session=taken.id, reason="it was right", by=DAD)
    assert (landed.result, landed.rows) == ("landed", 1)
    assert [e.kind for e in _events(taken.id)][-2:] == ["lapse", "land"]
    assert session_selectors.describe(session_selectors.get_session(taken.id)).state == "landed"


def test_dad_discards_a_refused_session_with_his_reason_and_its_rows_stay(zelda):
    sid = _refused(zelda)
    done = decisions.discard(session=sid, reason="start again", by=DAD)
    assert done.rows == 3
    last = _events(sid)[-1]
    assert (last.kind, last.by, last.note) == ("abandon", "dad", "start again")
    assert session_selectors.describe(session_selectors.get_session(sid)).state == "abandoned"


def test_dad_discards_a_lapsed_session(zelda, clock):
    taken = sessions.take(notebook="zelda", plan="one lesson", by=PIPPA)
    clock[0] += TTL + 1
    decisions.discard(session=taken.id, reason="she crashed", by=DAD)
    assert [e.kind for e in _events(taken.id)][-1] == "abandon"


@pytest.mark.parametrize("decide", [decisions.land_as_editor, decisions.discard])
def test_an_agent_may_not_decide_a_session(zelda, decide):  # noqa: ANN001
    sid = _refused(zelda)
    with pytest.raises(Forbidden, match="Only the editor"):
        decide(session=sid, reason="I approve myself", by=PIPPA)
    assert _events(sid)[-1].kind == EventKind.REFUSE


@pytest.mark.parametrize("decide", [decisions.land_as_editor, decisions.discard])
@pytest.mark.parametrize("reason", ["", "   ", None])
def test_a_decision_needs_a_reason(zelda, decide, reason):  # noqa: ANN001
    sid = _refused(zelda)
    with pytest.raises(Invalid, match="reason"):
        decide(session=sid, reason=reason, by=DAD)
    assert _events(sid)[-1].kind == EventKind.REFUSE


@pytest.mark.parametrize("decide", [decisions.land_as_editor, decisions.discard])
def test_a_decisions_reason_has_the_limit_of_every_reason(zelda, decide, settings):  # noqa: ANN001
    sid = _refused(zelda)
    with pytest.raises(Invalid, match=f"the limit is {settings.NOTEBOOK_MAX_REASON}"):
        decide(session=sid, reason="x" * (settings.NOTEBOOK_MAX_REASON + 1), by=DAD)
    assert _events(sid)[-1].kind == EventKind.REFUSE


@pytest.mark.parametrize("second", [decisions.land_as_editor, decisions.discard])
@pytest.mark.parametrize("first", [decisions.land_as_editor, decisions.discard])
def test_a_second_decision_on_a_decided_session_is_refused_and_changes_nothing(zelda, first, second):  # noqa: ANN001
    sid = _refused(zelda)
    first(session=sid, reason="decided", by=DAD)
    before = len(_events(sid))
    state = "landed" if first is decisions.land_as_editor else "abandoned"
    with pytest.raises(Conflict, match=f"already {state} by dad; that decision stands") as refused:
        second(session=sid, reason="again", by=DAD)
    assert refused.value.details["state"] == state
    assert len(_events(sid)) == before


def test_a_discard_racing_a_land_is_refused_as_a_decision_that_stands(zelda, monkeypatch):
    """The land committed between the discard's first look and its abandon: Dad is told what was decided."""
    sid = _refused(zelda)
    decisions.land_as_editor(session=sid, reason="first", by=DAD)
    real, looks = decisions._undecided, []

    def first_look_misses_it(s) -> None:  # noqa: ANN001
        looks.append(s)
        if len(looks) > 1:
            real(s)

    monkeypatch.setattr(decisions, "_undecided", first_look_misses_it)
    with pytest.raises(Conflict, match="already landed by dad; that decision stands"):
        decisions.discard(session=sid, reason="second", by=DAD)
    assert _events(sid)[-1].kind == EventKind.LAND


def test_a_session_the_agent_landed_is_not_dads_to_decide(zelda):
    taken = sessions.take(notebook="zelda", plan="one lesson", by=PIPPA)
    _add("roll after the second swing")
    sessions.land(session=taken.id, summary="a lesson", by=PIPPA)
    with pytest.raises(Conflict, match="already landed by pippa"):
        decisions.discard(session=taken.id, reason="no", by=DAD)
