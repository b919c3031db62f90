"""The session rules (the second seed document), through the services."""

import pytest
from django.db import IntegrityError, connection, transaction

from notebooks.log import services
from notebooks.log.identity.roles import Actor
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid, NotFound
from notebooks.models import Row, SessionEvent
from notebooks.sessions import claims as session_claims
from notebooks.sessions import selectors as session_selectors
from notebooks.sessions import services as sessions
from tests.agent_helpers import DAD

PIPPA = Actor("pippa")
REFLECTOR = Actor("reflector")


def _add(text: str, by: Actor = PIPPA, title: str = "zelda", source: str = "seen") -> int:
    return services.add(notebook=title, text=text, source=source, by=by, why="seen in the game").n


def _kinds(session_id: int) -> list[str]:
    return list(SessionEvent.objects.filter(session_id=session_id).order_by("seq").values_list("kind", flat=True))


def test_take_fixes_base_at_the_notebooks_head(zelda):
    taken = sessions.take(notebook="zelda", plan="tidy the bridge lines", by=PIPPA)
    assert taken.base == 3


def test_take_records_pending_drift_before_fixing_base(zelda):
    taken = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    assert taken.drift == 3
    assert _kinds(taken.id) == ["drift", "take"]
    drift = SessionEvent.objects.get(session_id=taken.id, kind="drift")
    assert (drift.after, drift.head) == (0, 3)


def test_pending_drift_starts_where_the_last_session_closed(zelda):
    first = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    sessions.land(session=first.id, by=PIPPA)
    _add("dodge left", by=REFLECTOR)
    second = sessions.take(notebook="zelda", plan="again", by=PIPPA)
    assert second.drift == 1


def test_a_second_take_is_a_conflict_naming_the_holder(zelda):
    sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    with pytest.raises(Conflict) as refused:
        sessions.take(notebook="zelda", plan="lessons", by=REFLECTOR)
    assert "pippa" in refused.value.message and refused.value.details["holder"] == "pippa"


def test_an_actor_holds_one_open_session_at_a_time(zelda):
    services.create_notebook(title="metroid", by="test")
    sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    with pytest.raises(Conflict, match="already holds session"):
        sessions.take(notebook="metroid", plan="other", by=PIPPA)


def test_writes_during_a_session_belong_to_it(zelda):
    taken = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    n = _add("roll after the second swing")
    assert Row.objects.get(notebook=zelda, n=n).session_id == taken.id
    assert Row.objects.get(notebook=zelda, n=1).session_id is None


def test_a_write_under_another_title_is_refused_while_a_session_is_open(zelda):
    services.create_notebook(title="metroid", by="test")
    sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    with pytest.raises(Conflict, match="a write under 'metroid' is refused"):
        _add("wall jump", title="metroid")
    assert not Row.objects.filter(notebook__title="metroid").exists()


def test_a_heading_passed_as_a_title_is_refused_not_made_a_notebook(zelda):
    """The seed's bug: lines written under a heading, each into a notebook of its own that no turn read."""
    sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    with pytest.raises(NotFound):  # a title that names no notebook is a 404 before any session rule
        _add("the guard swings twice", title="Bridge guard")
    with pytest.raises(Conflict):
        services.create_notebook(title="Bridge guard", by="pippa")
    with pytest.raises(NotFound):
        services.edit(notebook="Bridge guard", n=1, to="x", by=PIPPA, why="y")
    with pytest.raises(NotFound):
        services.retire(notebook="Bridge guard", n=1, by=PIPPA, why="y")
    with pytest.raises(NotFound):
        services.merge(notebook="Bridge guard", numbers=[1, 2], text="x", by=PIPPA, why="y")


def test_another_agents_write_to_a_claimed_notebook_is_refused(zelda):
    sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    with pytest.raises(Conflict, match="claimed by pippa"):
        _add("a lesson", by=REFLECTOR)


def test_dads_write_to_a_claimed_notebook_is_allowed_and_lands_as_drift(zelda):
    taken = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    mine = _add("roll after the second swing")
    dads = services.edit(notebook="zelda", n=2, to="block first", by=DAD, why="attacking first got her killed")
    landed = sessions.land(session=taken.id, summary="one new line", by=PIPPA)
    assert (landed.result, landed.rows, landed.drift) == ("landed", 1, 1)
    view = session_selectors.describe(session_selectors.get_session(taken.id), rows=True)
    assert [r["n"] for r in view.change] == [mine]
    assert [r["seq"] for r in view.drift if r["seq"] > taken.base] == [dads.seq]
    assert view.state == "landed"


def test_a_session_that_wrote_nothing_lands_as_a_no_op(zelda):
    taken = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    landed = sessions.land(session=taken.id, by=PIPPA)
    assert (landed.result, landed.rows) == ("no-op", 0)
    view = session_selectors.describe(session_selectors.get_session(taken.id), rows=True)
    assert view.state == "no-op" and view.change == []
    assert sessions.open_session_on(zelda) is None


def test_a_land_with_rows_needs_a_summary(zelda):
    taken = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    _add("roll")
    with pytest.raises(Invalid, match="summary"):
        sessions.land(session=taken.id, by=PIPPA)
    assert session_claims.is_open(session_selectors.get_session(taken.id))


def test_checkpoint_records_the_head_and_does_not_move_base(zelda):
    taken = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    _add("roll")
    done = sessions.checkpoint(session=taken.id, note="one line in", by=PIPPA)
    assert (done.base, done.head) == (3, 4)
    assert session_selectors.get_session(taken.id).base == 3
    assert _kinds(taken.id)[-1] == "checkpoint"


def _four_lines_of_hers(zelda) -> None:  # noqa: ANN001
    _add("swing left")
    _add("swing right")  # #1, #2 are hers, #3 Dad's, #4 #5 hers: 5 lines live


def test_a_gate_refusal_names_its_reasons_and_leaves_the_session_open(zelda):
    _four_lines_of_hers(zelda)
    taken = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    for n in (1, 2, 4):
        services.retire(notebook="zelda", n=n, by=PIPPA, why="stale")
    with pytest.raises(sessions.GateRefused) as refused:
        sessions.land(session=taken.id, summary="dropped three", by=PIPPA)
    assert refused.value.code == "gate_refused" and refused.value.status == 409
    assert "retired 3 of the 5 lines" in refused.value.details["reasons"][0]
    assert session_claims.is_open(session_selectors.get_session(taken.id))
    _add("still writing into the open session")
    assert sessions.abandon(session=taken.id, why="asked Dad", by=PIPPA).rows == 4


def test_a_checkpoint_cannot_launder_the_base(zelda):
    """Two drops, a checkpoint, one more drop: judged from the checkpoint it would pass; from base it does not."""
    _four_lines_of_hers(zelda)
    taken = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    services.retire(notebook="zelda", n=1, by=PIPPA, why="stale")
    services.retire(notebook="zelda", n=2, by=PIPPA, why="stale")
    sessions.checkpoint(session=taken.id, note="two gone", by=PIPPA)
    services.retire(notebook="zelda", n=4, by=PIPPA, why="stale")
    with pytest.raises(sessions.GateRefused):
        sessions.land(session=taken.id, summary="tidied", by=PIPPA)


def test_retiring_into_a_successor_is_no_drop(zelda):
    _four_lines_of_hers(zelda)
    taken = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    services.merge(notebook="zelda", numbers=[1, 2], text="the guard swings twice; block", by=PIPPA, why="same")
    services.retire(notebook="zelda", n=4, by=PIPPA, why="said by #5", into=5)
    assert sessions.land(session=taken.id, summary="merged", by=PIPPA).result == "landed"


def test_a_gate_refuses_a_session_that_touched_dads_line(zelda):
    """An agent's session whose actor changed Dad's line (here with the editor's role, granted mid-session)."""
    taken = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    services.edit(notebook="zelda", n=3, to="attack first", by=Actor("pippa", editor=True), why="I think so")
    with pytest.raises(sessions.GateRefused, match="Line #3 is Dad's"):
        sessions.land(session=taken.id, summary="changed a rule", by=PIPPA)
    assert session_claims.is_open(session_selectors.get_session(taken.id))


def test_only_the_holder_may_checkpoint_or_land(zelda):
    taken = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    with pytest.raises(Forbidden):
        sessions.checkpoint(session=taken.id, note="x", by=REFLECTOR)
    with pytest.raises(Forbidden):
        sessions.land(session=taken.id, by=REFLECTOR)
    with pytest.raises(Forbidden):
        sessions.abandon(session=taken.id, why="x", by=REFLECTOR)


def test_dad_may_abandon_a_stuck_session(zelda):
    taken = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    sessions.abandon(session=taken.id, why="she crashed", by=DAD)
    assert session_selectors.describe(session_selectors.get_session(taken.id)).state == "abandoned"
    assert sessions.take(notebook="zelda", plan="again", by=PIPPA).base == 3


def test_a_closed_session_takes_no_more_verbs(zelda):
    taken = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    sessions.land(session=taken.id, by=PIPPA)
    for verb in (
        lambda: sessions.land(session=taken.id, by=PIPPA),
        lambda: sessions.checkpoint(session=taken.id, note="x", by=PIPPA),
        lambda: sessions.abandon(session=taken.id, why="x", by=PIPPA),
    ):
        with pytest.raises(Conflict, match="already landed"):
            verb()


def test_after_a_land_writes_belong_to_no_session(zelda):
    taken = sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    sessions.land(session=taken.id, by=PIPPA)
    n = _add("later", title="zelda")
    assert Row.objects.get(notebook=zelda, n=n).session_id is None


def test_an_unknown_session_is_not_found(db):
    with pytest.raises(NotFound):
        sessions.land(session=999, by=PIPPA)
    with pytest.raises(Invalid):
        sessions.land(session=2**70, by=PIPPA)


def test_take_needs_a_plan_and_a_known_notebook(zelda):
    with pytest.raises(Invalid):
        sessions.take(notebook="zelda", plan="  ", by=PIPPA)
    with pytest.raises(NotFound):
        sessions.take(notebook="zeldo", plan="tidy", by=PIPPA)


@pytest.mark.parametrize("table", ["notebooks_session", "notebooks_sessionevent"])
def test_sessions_and_their_events_are_append_only(zelda, table):
    sessions.take(notebook="zelda", plan="tidy", by=PIPPA)
    for sql in (f"UPDATE {table} SET at = 0", f"DELETE FROM {table}"):
        with pytest.raises(IntegrityError, match="append-only"), transaction.atomic(), connection.cursor() as c:
            c.execute(sql)
