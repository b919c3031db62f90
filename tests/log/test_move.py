"""Moving a line to another notebook (issue 21, strays): a strike in its notebook naming where it went, an add there
naming where it came from, with the line's words, source and author kept; both histories show it, frozen views of
both stay as they were, and the rows export, import, verify and mirror as any other."""

import json
import time

import pytest

from notebooks.log import redaction, services
from notebooks.log.files import imports, rowformat, verify
from notebooks.log.identity.roles import Actor
from notebooks.log.moves import move, move_many
from notebooks.log.rules import fold
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid, NotFound
from notebooks.log.views import history as history_fold
from notebooks.log.views import selectors
from notebooks.sessions import services as sessions
from notebooks.vault import fileformat

DAD = Actor("dad", editor=True)
SAW = "roll after the second swing"  # zelda #1, seen, pippa's (the `lines` fixture)


@pytest.fixture
def stray(lines):  # noqa: ANN001, ANN201
    """zelda (#1 seen, #2 guessed, #3 dad) and a stray notebook with one line of its own."""
    services.create_notebook(title="zelda heading", by="pippa")
    services.add(notebook="zelda heading", text="the owl statue saves", source="seen", by="pippa", why="seen")
    return lines


def _view(title: str) -> dict[int, tuple[str, str, str]]:
    return {x.n: (x.text, x.source, x.by) for x in selectors.view(selectors.get_notebook(title))}


def _rows(title: str) -> list[dict]:
    return list(selectors.rows(selectors.get_notebook(title)))


# ----- the rule, in the fold ----------------------------------------------------------------------------------


def test_the_folds_move_rows_are_a_strike_here_and_an_add_there_naming_each_other():
    author = fold.Authored("pippa", 5.0)
    strike, add = fold.move_rows(
        n=3, m=8, words="w", source="seen", author=author, by="dad", why="stray", here="a", there="b"
    )
    assert strike == {
        "op": "strike", "n": 3, "how": "moved", "by": "dad", "why": "stray", "moved_notebook": "b", "moved_n": 8,
    }  # fmt: skip
    assert (add["op"], add["n"], add["words"], add["source"], add["by"]) == ("add", 8, "w", "seen", "dad")
    assert (add["moved_notebook"], add["moved_n"], add["was_by"], add["was_at"]) == ("a", 3, "pippa", 5.0)


def test_a_line_moved_twice_keeps_its_first_author():
    assert fold.author_of(by="dad", at=9.0, was_by="pippa", was_at=2.0, moved=True) == fold.Authored("pippa", 2.0)
    assert fold.author_of(by="dad", at=9.0, was_by="", was_at=None, moved=False) == fold.Authored("dad", 9.0)


def test_only_the_editor_moves():
    fold.check_may_move(name="dad", editor=True)
    with pytest.raises(Forbidden, match="only the human editor"):
        fold.check_may_move(name="pippa", editor=False)


def test_a_view_reads_a_moved_strike_and_add_as_a_plain_strike_and_add():
    rows = [
        (1, "add", 1, "seen", "pippa", 1.0, "h", "a", False),
        (2, "add", 2, "dad", "dad", 2.0, "h", "b", False),
        (3, "strike", 1, "", "dad", 3.0, "h", None, False),
    ]
    assert [x.n for x in fold.fold_view(rows)] == [2]


# ----- the service --------------------------------------------------------------------------------------------


def test_a_move_makes_the_line_there_with_its_words_source_and_author_and_retires_it_here(stray):
    moved = move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="written under a wrong title")
    assert (moved.notebook, moved.n, moved.to, moved.m) == ("zelda heading", 1, "zelda", 4)
    assert _view("zelda")[4] == ("the owl statue saves", "seen", "dad")  # her seen line, moved by dad
    assert _view("zelda heading") == {}
    add, strike = _rows("zelda")[-1], _rows("zelda heading")[-1]
    assert (add["moved_from"], add["moved_from_n"], add["was_by"]) == ("zelda heading", 1, "pippa")
    assert add["was_at"] == _rows("zelda heading")[0]["at"]
    assert (strike["op"], strike["how"], strike["into"], strike["moved_to"], strike["moved_to_n"]) == (
        "strike", "moved", None, "zelda", 4,
    )  # fmt: skip
    assert (add["seq"], strike["seq"]) == (moved.add_seq, moved.strike_seq)


def test_both_histories_show_the_move(stray):
    move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="stray")
    gone = selectors.history(selectors.get_notebook("zelda heading"), 1)[-1]
    assert (gone.op, gone.how, gone.moved_to, gone.why) == ("strike", "moved", history_fold.Moved("zelda", 4), "stray")
    came = selectors.history(selectors.get_notebook("zelda"), 4)[0]
    assert (came.op, came.moved_from, came.was_by, came.by, came.text) == (
        "add", history_fold.Moved("zelda heading", 1), "pippa", "dad", "the owl statue saves",
    )  # fmt: skip
    assert came.as_dict()["moved_from"] == {"notebook": "zelda heading", "n": 1}
    assert gone.as_dict()["moved_to"] == {"notebook": "zelda", "n": 4}


def test_frozen_views_of_both_notebooks_stay_as_they_were(stray):
    before = time.time()
    zelda, heading = selectors.get_notebook("zelda"), selectors.get_notebook("zelda heading")
    seen = (selectors.view(zelda, until=before), selectors.view(heading, until=before))
    turns = (selectors.turn(zelda, until=before), selectors.turn(heading, until=before))
    time.sleep(0.01)
    move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="stray")
    assert (selectors.view(zelda, until=before), selectors.view(heading, until=before)) == seen
    assert (selectors.turn(zelda, until=before), selectors.turn(heading, until=before)) == turns
    assert len(selectors.view(zelda)) == 4 and selectors.view(heading) == []


def test_a_moved_line_moved_again_names_its_first_author(stray):
    move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="stray")
    services.create_notebook(title="zelda 2", by="dad")
    move(notebook="zelda", n=4, to="zelda 2", by=DAD, why="another game")
    add = _rows("zelda 2")[-1]
    assert (add["was_by"], add["was_at"], add["source"]) == ("pippa", _rows("zelda heading")[0]["at"], "seen")


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"to": "zelda heading"}, Invalid, "already in notebook"),
        ({"to": "nowhere"}, NotFound, "nowhere"),
        ({"notebook": "nowhere"}, NotFound, "nowhere"),
        ({"n": 9}, NotFound, "no line #9"),
        ({"why": "  "}, Invalid, "reason"),
        ({"by": Actor("pippa", editor=False)}, Forbidden, "only the human editor"),
        ({"expected": 99}, Conflict, "changed since you read it"),
    ],
)
def test_a_move_is_refused_with_nothing_written(stray, kwargs, error, message):
    before = (_rows("zelda"), _rows("zelda heading"))
    args = {"notebook": "zelda heading", "n": 1, "to": "zelda", "by": DAD, "why": "stray", **kwargs}
    with pytest.raises(error, match=message):
        move(**args)
    assert (_rows("zelda"), _rows("zelda heading")) == before


def test_a_retired_line_is_not_moved(stray):
    services.retire(notebook="zelda heading", n=1, by=DAD, why="gone")
    with pytest.raises(Conflict, match="already retired"):
        move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="stray")
    assert len(_rows("zelda")) == 3


def test_a_moved_line_is_not_restored_where_it_left(stray):
    move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="stray")
    before = len(_rows("zelda heading"))
    with pytest.raises(Conflict, match=r"moved to 'zelda', where it is line #4: it is not restored here"):
        services.restore(notebook="zelda heading", n=1, by=DAD, why="undo")
    assert len(_rows("zelda heading")) == before and 4 in _view("zelda")


def test_a_moved_line_is_not_restored_where_it_left_by_a_row_appended_to_its_file(stray):
    """The vault's outside rows (imports.append_rows) meet the fold's rule as every other door does."""
    move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="stray")
    before = len(_rows("zelda heading"))
    row = {"op": "add", "n": 2, "text": "the owl statue saves", "source": "seen", "restores": 1, "why": "undo"}
    with pytest.raises(Invalid, match=r"line 1: 'restores': Line #1 was moved to 'zelda', where it is line #4"):
        imports.append_rows(notebook="zelda heading", lines=[json.dumps({**row, "at": time.time()})], by_default="x")
    assert len(_rows("zelda heading")) == before and 4 in _view("zelda")


def test_an_import_refuses_a_restore_of_a_line_its_file_moved_away(stray):
    move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="stray")
    rows = [json.loads(line) for line in selectors.export(selectors.get_notebook("zelda heading"))]
    again = {"op": "add", "n": 2, "text": "the owl statue saves", "source": "seen", "restores": 1, "by": "pippa",
             "why": "undo", "at": rows[-1]["at"] + 1}  # fmt: skip
    with pytest.raises(Invalid, match=r"line 3: 'restores': Line #1 was moved to 'zelda'"):
        imports.import_notebook(title="copy", by="test", lines=[json.dumps(r) for r in [*rows, again]])


def test_a_line_moved_back_and_retired_there_is_restored_as_any_retired_line(stray):
    move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="stray")
    services.retire(notebook="zelda", n=4, by=DAD, why="not needed")
    restored = services.restore(notebook="zelda", n=4, by=DAD, why="it was")
    assert _view("zelda")[restored.n][0] == "the owl statue saves"


def test_words_redacted_from_the_target_are_not_moved_into_it(stray):
    services.add(notebook="zelda", text="the owl statue saves", source="seen", by="pippa", why="again")
    redaction.redact(notebook="zelda", n=4, by=DAD, why="a secret")
    with pytest.raises(Invalid, match="redacted"):
        move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="stray")
    assert _view("zelda heading")[1][0] == "the owl statue saves"


def test_a_move_while_dad_holds_a_session_elsewhere_is_refused(stray):
    services.create_notebook(title="other", by="dad")
    sessions.take(notebook="other", plan="tidy", by=DAD)
    with pytest.raises(Conflict, match="holds session"):
        move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="stray")
    assert len(_rows("zelda")) == 3


def test_a_move_into_a_notebook_she_has_claimed_is_dads_drift_as_his_other_writes_are(stray):
    taken = sessions.take(notebook="zelda", plan="play", by=Actor("pippa", editor=False))
    move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="stray")
    services.add(notebook="zelda", text="a lesson", source="seen", by="pippa", why="seen")
    landed = sessions.land(session=taken.id, by=Actor("pippa", editor=False), summary="one lesson")
    assert (landed.result, landed.drift) == ("landed", 1)


# ----- the format ---------------------------------------------------------------------------------------------


def test_a_row_without_a_move_hashes_as_before_and_a_moved_row_hashes_its_move():
    row = {"seq": 1, "op": "strike", "n": 2, "by": "dad", "why": "w", "how": "retired", "at": 1.5}
    plain = rowformat.row_hash(rowformat.GENESIS, row)
    assert plain == rowformat.row_hash(rowformat.GENESIS, {**row, "moved_notebook": None, "moved_n": None})
    assert plain == rowformat.row_hash(rowformat.GENESIS, {**row, "moved_notebook": "", "moved_n": None})
    moved = {**row, "how": "moved", "moved_notebook": "zelda", "moved_n": 4}
    there = rowformat.row_hash(rowformat.GENESIS, moved)
    assert there != rowformat.row_hash(rowformat.GENESIS, {**moved, "moved_n": 5})
    assert there != rowformat.row_hash(rowformat.GENESIS, {**moved, "moved_notebook": "zeldb"})


def test_both_notebooks_verify_after_a_move(stray):
    move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="stray")
    for title in ("zelda", "zelda heading"):
        assert verify.verify_chain(selectors.get_notebook(title)) == []


def test_an_export_with_a_move_imports_back_to_the_same_chain_and_history(stray):
    move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="stray")
    for title in ("zelda", "zelda heading"):
        exported = list(selectors.export(selectors.get_notebook(title)))
        copy = imports.import_notebook(title=f"copy of {title}", lines=exported, by="dad").notebook
        assert list(selectors.export(copy)) == exported  # every field, seq and hash
        assert verify.verify_chain(copy) == []
    came = selectors.history(selectors.get_notebook("copy of zelda"), 4)[0]
    assert (came.moved_from, came.was_by) == (history_fold.Moved("zelda heading", 1), "pippa")


@pytest.mark.parametrize(
    "row, message",
    [
        ({"op": "strike", "n": 1, "how": "moved", "by": "dad", "why": "w", "at": 9.0}, "names where it went"),
        ({"op": "strike", "n": 1, "by": "dad", "why": "w", "at": 9.0, "moved_to": "b", "moved_to_n": 2}, "no other"),
        ({"op": "strike", "n": 1, "how": "moved", "by": "d", "why": "w", "at": 9.0, "moved_to": " x"}, "title"),
        ({"op": "strike", "n": 1, "how": "moved", "by": "d", "why": "w", "at": 9.0, "moved_to": "b"}, "moved_to_n"),
        ({"op": "add", "n": 2, "text": "t", "source": "seen", "at": 9.0, "moved_from": "b", "moved_from_n": 0}, "_n"),
    ],
)
def test_an_import_refuses_a_move_that_does_not_name_both_ends(db, row, message):
    first = {"op": "add", "n": 1, "text": "a", "source": "seen", "at": 1.0}
    with pytest.raises(Invalid, match=message):
        imports.import_notebook(title="bad", lines=[json.dumps(first), json.dumps(row)], by="dad")


def test_a_moved_row_cannot_be_appended_to_a_notebooks_file_from_outside(stray):
    row = {"op": "strike", "n": 1, "how": "moved", "moved_to": "zelda", "moved_to_n": 9, "by": "dad", "why": "w"}
    row["at"] = time.time()
    with pytest.raises(Forbidden, match="writes both notebooks at once"):
        imports.append_rows(notebook="zelda heading", lines=[json.dumps(row)], by_default="dad")
    assert _view("zelda heading")[1][0] == "the owl statue saves"


def test_the_vault_file_of_each_notebook_carries_the_move(stray):
    move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="stray")
    there = json.loads(fileformat.canonical_lines(selectors.get_notebook("zelda"))[-1])
    here = json.loads(fileformat.canonical_lines(selectors.get_notebook("zelda heading"))[-1])
    assert (there["moved_from"], there["moved_from_n"], here["moved_to"], here["moved_to_n"]) == (
        "zelda heading", 1, "zelda", 4,
    )  # fmt: skip


def test_several_lines_move_together_in_the_order_given(stray):
    services.add(notebook="zelda heading", text="the fairy heals", source="guessed", by="pippa", why="a guess")
    moved = move_many(notebook="zelda heading", numbers=[2, 1], to="zelda", by=DAD, why="strays")
    assert [(x.n, x.m) for x in moved] == [(2, 4), (1, 5)]
    assert _view("zelda")[4][:2] == ("the fairy heals", "guessed") and _view("zelda")[5][0] == "the owl statue saves"
    assert _view("zelda heading") == {}


def test_several_lines_move_all_or_nothing(stray):
    services.add(notebook="zelda heading", text="the fairy heals", source="guessed", by="pippa", why="a guess")
    services.retire(notebook="zelda heading", n=2, by=DAD, why="gone")
    before = (_rows("zelda"), _rows("zelda heading"))
    with pytest.raises(Conflict, match="#2 is already retired"):
        move_many(notebook="zelda heading", numbers=[1, 2], to="zelda", by=DAD, why="strays")
    assert (_rows("zelda"), _rows("zelda heading")) == before
