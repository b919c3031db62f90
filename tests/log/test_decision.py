"""The one decision (log/rules/decision.py), on its own: pure, so no database. Each door's wording is the door's;
the code of a refusal is the decision's."""

import pytest

from notebooks.log.rules import combining, decision
from notebooks.log.rules.decision import IMPORT, SERVICE, Door, State, apply, decide, in_file
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid, NotFound, Redacted, Unchanged
from notebooks.log.rules.fold import MAX_NUMBER, LineState

OUTSIDE = Door(file=True, appended=True, outside=True, session_rows=False, editors=frozenset({"dad"}))


def _state() -> State:
    """Line 1 Dad's, line 2 Pippa's seen, line 3 retired."""
    state = State(title="zelda")
    for row in (
        {"op": "add", "n": 1, "words": "dad's", "digest": "d1", "source": "dad", "by": "dad"},
        {"op": "add", "n": 2, "words": "seen", "digest": "d2", "source": "seen", "by": "pippa"},
        {"op": "add", "n": 3, "words": "gone", "digest": "d3", "source": "seen", "by": "pippa"},
        {"op": "strike", "n": 3, "how": "retired", "by": "pippa"},
    ):
        apply(state, decide(state, dict(row), editor=True, door=IMPORT))
    return state


def _row(op: str, **fields):
    return {"op": op, "by": fields.pop("by", "pippa"), "why": "w", **fields}


def test_an_add_gets_the_next_number_and_the_state_sees_it():
    state = _state()
    row = decide(state, _row("add", words="new", source="seen"), editor=False)
    assert row["n"] == 4
    apply(state, row)
    assert state.top_n == 4 and state.line(4).live and state.line(4).words == "new"


def test_a_sourceless_edit_is_filled_in_by_the_door_that_reads_it():
    state = _state()
    assert decide(state, _row("edit", n=2, words="x"), editor=True)["source"] == "dad_correction"
    assert decide(state, _row("edit", n=2, words="x"), editor=False)["source"] == "seen"
    # A file's edit by "dad" is his correction, as the seed's format reads it, whoever proves what.
    assert (
        decide(state, _row("edit", n=2, words="x", by="dad"), editor=False, door=IMPORT)["source"] == "dad_correction"
    )


@pytest.mark.parametrize(
    "row, editor, kind, service, filed",
    [
        (_row("edit", n=9, words="x"), True, NotFound, "has no line #9", "edit of line #9, which does not exist"),
        (_row("edit", n=3, words="x"), True, Conflict, "already retired", "edit of line #3, which is retired"),
        (_row("edit", n=1, words="x"), False, Forbidden, "it is Dad's", "it is Dad's"),
        (_row("strike", n=9), True, NotFound, "has no line #9", "strike of line #9, which does not exist"),
        (_row("strike", n=3), True, Conflict, "already retired", "#3, which is already retired"),
        (_row("strike", n=2, into=2), True, Invalid, "into itself", "into itself"),
        (_row("strike", n=2, into=3), True, Invalid, "#3 is retired", "#3, which is not a live line"),
        (_row("strike", n=2, into=9), True, NotFound, "has no line #9", "#9, which is not a live line"),
        (_row("redact", n=2, redacts="d2"), False, Forbidden, "may not redact", "must be by the human editor"),
        (_row("redact", n=9, redacts="d2"), True, NotFound, "has no line #9", "redact of line #9"),
        (_row("redact", n=1, redacts="d2"), True, Invalid, "No row of line #1", "no earlier row of line #1"),
        (_row("add", restores=2), True, Invalid, "is not retired", "'restores': Line #2 is not retired"),
        (_row("add", restores=9), True, NotFound, "no line #9 to restore", "'restores': There is no line #9"),
    ],
)
def test_each_break_has_one_code_at_every_door(row, editor, kind, service, filed):
    with pytest.raises(kind, match=service):
        decide(_state(), dict(row), editor=editor, door=SERVICE)
    file_row = {**row, "words": row.get("words", "w"), "source": row.get("source", "seen"), "n": row.get("n", 4)}
    with pytest.raises(kind) as caught:
        decide(_state(), file_row, editor=editor, door=Door(file=True))
    assert filed in caught.value.message
    located = in_file(caught.value, 7)
    assert located.code == kind.code and isinstance(located, Invalid)  # still a bad file to an import's caller
    assert located.message.startswith("line 7: ") and located.details == {"line": 7}


def test_an_agent_may_not_write_dads_source_nor_recover_his_words():
    state = _state()
    with pytest.raises(Forbidden, match="may add only seen or guessed"):
        decide(state, _row("add", words="w", source="dad"), editor=False)
    adopt = _row("adopt", n=2, words="old", digest="d9", source="dad", was_by="dad")
    with pytest.raises(Forbidden, match="may recover only seen or guessed"):
        decide(state, adopt, editor=False, door=OUTSIDE)
    with pytest.raises(Forbidden, match="as written by dad"):
        decide(state, {**adopt, "source": "seen"}, editor=False, door=OUTSIDE)
    decide(state, {**adopt, "source": "seen", "was_by": "pippa"}, editor=False, door=OUTSIDE)


def test_an_appended_adopt_names_an_existing_line_and_a_starting_file_may_bring_numbers():
    row = _row("adopt", n=MAX_NUMBER, words="w", digest="d9", source="")
    with pytest.raises(NotFound, match="an adopt row names an existing line"):
        decide(_state(), dict(row), editor=False, door=OUTSIDE)
    state = _state()
    apply(state, decide(state, dict(row), editor=False, door=IMPORT))
    with pytest.raises(Conflict, match="given its last line number"):
        decide(state, _row("add", words="w", source="seen"), editor=True)


def test_outside_rows_may_not_redact_move_or_carry_a_session():
    with pytest.raises(Invalid, match="redact row cannot be appended"):
        decide(_state(), _row("redact", n=2, redacts="d2", by="dad"), editor=True, door=OUTSIDE)
    moved = _row("strike", n=2, how="moved", moved_notebook="other", moved_n=1)
    with pytest.raises(Forbidden, match="moved line's row cannot be appended"):
        decide(_state(), moved, editor=True, door=OUTSIDE)
    with pytest.raises(Invalid, match="proposal or landed copy cannot be appended"):
        decide(_state(), _row("edit", n=2, words="x", lands=4), editor=True, door=OUTSIDE)


def test_a_service_edit_refuses_a_stale_read_and_the_same_words():
    with pytest.raises(Conflict, match="changed since you read it"):
        decide(_state(), _row("edit", n=2, words="x", expected=1), editor=False)
    with pytest.raises(Unchanged):
        decide(_state(), _row("edit", n=2, words="seen"), editor=False)


def test_redacted_words_never_come_back_and_a_redaction_is_once():
    state = _state()
    apply(state, decide(state, _row("redact", n=2, redacts="d2", by="dad"), editor=True))
    with pytest.raises(Redacted, match="redacted from notebook 'zelda'"):
        decide(state, _row("add", words="seen", digest="d2", source="seen"), editor=False)
    with pytest.raises(Conflict, match="already redacted"):
        decide(state, _row("redact", n=2, redacts="d2", by="dad"), editor=True)


def test_a_restore_brings_back_the_lines_words_once():
    state = _state()
    row = decide(state, _row("add", restores=3), editor=False)
    assert (row["n"], row["words"], row["source"], row["into"]) == (4, "gone", "seen", 3)
    apply(state, row)
    with pytest.raises(Conflict, match="already restored, as line #4"):
        decide(state, _row("add", restores=3), editor=False)


def test_a_merge_strikes_each_line_into_the_new_one():
    state = _state()
    apply(state, decide(state, _row("add", words="more", source="seen"), editor=False))
    rows = combining.merge_rows(state, numbers=[2, 4], words="both", source=None, by="pippa", editor=False, why="w")
    assert [(r["op"], r["n"], r.get("into")) for r in rows] == [("add", 5, None), ("strike", 2, 5), ("strike", 4, 5)]
    assert not state.line(2).live and state.line(5).source == "seen"
    with pytest.raises(Forbidden, match="may not merge line #1"):
        combining.merge_rows(_state(), numbers=[1, 2], words="x", source=None, by="pippa", editor=False, why="w")


def test_a_session_proposal_holds_its_number_and_a_landed_copy_names_it():
    state = _state()
    proposal = decide(state, _row("add", words="p", source="seen"), editor=False, session=7)
    apply(state, proposal, session=7)
    assert state.reserved == {4} and state.lines.get(4) is None and state.line(4, 7).live
    with pytest.raises(Invalid, match="no unlanded proposal of edit"):
        decide(state, _row("edit", n=2, words="x", lands=5), editor=False, door=decision.JUDGED)
    landed = decide(state, _row("add", n=4, words="p", source="seen", lands=5), editor=False, door=decision.JUDGED)
    apply(state, landed)
    assert state.reserved == set() and state.line(4).live and 5 not in state.proposals


def test_a_land_refuses_a_line_another_writer_retired():
    state = _state()
    state.proposals[9] = ("edit", 3)
    with pytest.raises(Conflict, match="retired by another writer since"):
        decide(state, _row("edit", n=3, words="x", lands=9), editor=False, door=decision.JUDGED)


def test_line_state_from_the_fold_is_what_the_decision_reads():
    state = State(title="t", lines={1: LineState(n=1, source="seen", words="a", live=False, last_seq=2)}, top_n=1)
    with pytest.raises(Conflict) as caught:
        decide(state, _row("edit", n=1, words="b"), editor=True)
    assert caught.value.details == {"current_seq": 2}
