"""The state a vault append is judged against (imports.import_state, the stored rows folded by state.apply) is the
state a fold of the notebook's own file leaves (importing.checked_rows), and its holder's view is the one her
service writes read (locked_reads.line_or_none): one fold, whatever door reads the rows."""

import json
import time

import pytest

from notebooks.log import moves, redaction, services
from notebooks.log.files import importing, imports
from notebooks.log.rules import decision
from notebooks.log.rules.errors import Forbidden
from notebooks.log.store.locked_reads import line_or_none
from notebooks.log.views import selectors
from notebooks.models import EventKind, Row, SessionEvent
from notebooks.sessions import services as sessions
from tests.agent_helpers import DAD

DAD_NAME = DAD.name

# What the decision reads of a state, besides the sessions' proposals.
SAME = ("lines", "top_n", "seq", "at", "worded", "redacted", "restored", "moved")


def _write(**kwargs) -> int:  # noqa: ANN003
    return services.add(notebook="zelda", source="seen", by="pippa", why="seen", **kwargs).n


def _zelda_with_everything() -> int:
    """zelda (#1, #2 hers, #3 Dad's) after edits, a restore, a merge, a redaction (its line's last change), moves
    both ways, a landed session with a withdrawn proposal, and an open one holding a proposed add, edit, restore and a
    withdrawn strike."""
    services.edit(notebook="zelda", n=1, to="the guard swings three times", by="pippa", why="counted")
    services.retire(notebook="zelda", n=2, by="pippa", why="wrong")
    services.restore(notebook="zelda", n=2, by="pippa", why="it was right")  # 4
    well = _write(text="the well is dry by day")
    services.merge(notebook="zelda", numbers=[4, well], text="attack, then the well", by=DAD, why="one lesson")
    secret = _write(text="the code is 1234")
    redaction.redact(notebook="zelda", n=secret, by=DAD, why="a secret")
    services.create_notebook(title="hyrule", by="dad")
    services.add(notebook="hyrule", text="the owl lies", source="seen", by="pippa", why="seen")
    moves.move(notebook="zelda", n=3, to="hyrule", by=DAD, why="belongs there")
    moves.move(notebook="hyrule", n=1, to="zelda", by=DAD, why="belongs here")

    landed = sessions.take(notebook="zelda", plan="tidy", by="pippa").id
    kept = _write(text="roll after the second swing")
    services.edit(notebook="zelda", n=kept, to="roll after every swing", by="pippa", why="again")
    dropped = services.add(notebook="zelda", text="the guard sleeps", source="guessed", by="pippa", why="hunch")
    sessions.withdraw(session=landed, proposal=dropped.seq, why="misread", by="pippa")
    sessions.land(session=landed, summary="one line", by="pippa")

    services.retire(notebook="zelda", n=kept, by="pippa", why="not so")
    held = sessions.take(notebook="zelda", plan="more", by="pippa").id
    _write(text="the lava room hides a chest")
    services.edit(notebook="zelda", n=1, to="the guard swings four times", by="pippa", why="counted again")
    services.restore(notebook="zelda", n=kept, by="pippa", why="it was right after all")
    struck = services.retire(notebook="zelda", n=1, by="pippa", why="no guard")
    sessions.withdraw(session=held, proposal=struck.seq, why="there is a guard", by="pippa")
    return held


def test_import_state_is_the_fold_of_the_notebooks_own_file(zelda, dad):
    held = _zelda_with_everything()
    nb = selectors.get_notebook("zelda")
    state = imports.import_state(nb)

    _, filed = importing.parse(selectors.export(nb), state=decision.State(title="zelda"), is_editor=DAD_NAME.__eq__)
    for name in SAME:
        assert getattr(state, name) == getattr(filed, name), name
    # The file does not say which proposals were withdrawn: there they read as an abandoned session's, never landed.
    withdrawn = set(SessionEvent.objects.filter(kind=EventKind.WITHDRAW).values_list("proposal", flat=True))
    assert len(withdrawn) == 2 and state.seq == Row.objects.filter(notebook=nb).count()
    assert state.proposals == {seq: p for seq, p in filed.proposals.items() if seq not in withdrawn}
    assert state.reserved == {filed.proposals[seq][1] for seq in state.proposals if filed.proposals[seq][0] == "add"}
    assert len(state.proposals) == 3 and not state.absent  # the redacted words are named by the log's redact row

    # Her writes are judged against her own view, as her service writes are: each line as her proposals leave it.
    for n in range(1, state.top_n + 1):
        assert state.line(n, held) == line_or_none(nb, n, session=held), n
        assert state.line(n) == line_or_none(nb, n), n


DRIFT = {
    "an edit": lambda: services.edit(notebook="zelda", n=1, to="dads words", by=DAD, why="drift"),
    "a retirement": lambda: services.retire(notebook="zelda", n=1, by=DAD, why="drift"),
    "a redaction": lambda: redaction.redact(notebook="zelda", n=1, by=DAD, why="a secret"),
}


@pytest.mark.parametrize("drift", DRIFT, ids=list(DRIFT))
def test_a_change_landed_after_her_proposal_reaches_her_view_too(zelda, dad, drift):
    held = sessions.take(notebook="zelda", plan="the guard", by="pippa").id
    services.edit(notebook="zelda", n=1, to="her words", by="pippa", why="proposed")
    DRIFT[drift]()  # Dad's change lands at once, while her session is open
    nb = selectors.get_notebook("zelda")
    assert imports.import_state(nb).line(1, held) == line_or_none(nb, 1, session=held)


def test_after_dads_correction_her_appended_edit_is_refused_as_her_api_edit_is(zelda, dad, settings):
    settings.NOTEBOOK_VAULT_OUTSIDE_AGENT = "pippa"  # the file's unsigned rows are hers, as her harness appends them
    sessions.take(notebook="zelda", plan="the guard", by="pippa")
    services.edit(notebook="zelda", n=1, to="her words", by="pippa", why="proposed")
    DRIFT["an edit"]()  # the line is Dad's correction now
    with pytest.raises(Forbidden):
        services.edit(notebook="zelda", n=1, to="third words", by="pippa", why="again")
    row = {"op": "edit", "n": 1, "to": "third words", "by": "pippa", "why": "again", "at": time.time()}
    with pytest.raises(Forbidden):
        imports.append_rows(notebook="zelda", lines=[json.dumps(row)], by_default="harness")
