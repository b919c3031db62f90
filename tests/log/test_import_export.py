"""The JSON Lines interchange format: export, import (all or nothing) and adopting a hand rewrite's lost words."""

import json
from types import SimpleNamespace

import pytest

from notebooks.log import services
from notebooks.log.files import imports
from notebooks.log.rules.errors import Conflict, Invalid
from notebooks.log.store import append
from notebooks.log.views import selectors
from notebooks.models import Notebook, Row, Words

FIELDS = (
    "seq",
    "op",
    "n",
    "digest",
    "source",
    "by",
    "why",
    "how",
    "into",
    "at",
    "was_at",
    "was_by",
    "prev_hash",
    "hash",
)


def _jsonl(*rows: dict) -> list[str]:
    return [json.dumps(r) for r in rows]


def _export(title: str, until: float | None = None) -> str:
    return "".join(line + "\n" for line in selectors.export(selectors.get_notebook(title), until=until))


def _import(title: str, text: "str | list[str]", **kwargs) -> imports.Imported:  # noqa: ANN003
    lines = text.splitlines(keepends=True) if isinstance(text, str) else text
    return imports.import_notebook(title=title, lines=lines, by=kwargs.pop("by", "test"), **kwargs)


def _row_fields(title: str) -> list[tuple]:
    return list(Row.objects.filter(notebook__title=title).order_by("seq").values_list(*FIELDS))


def _view(title: str) -> list[tuple[int, str, str]]:
    return [(x.n, x.text, x.source) for x in selectors.view(selectors.get_notebook(title))]


def _count() -> tuple[int, int, int]:
    return Row.objects.count(), Words.objects.count(), Notebook.objects.count()


@pytest.fixture
def every_op(dad, monkeypatch):
    """A notebook that holds every kind of row: adopted history, add, edit, strike (retired, into, merged)."""
    clock = SimpleNamespace(now=1_700_000_000.25)  # in the past: a re-import refuses rows dated in the future
    monkeypatch.setattr(append, "time", SimpleNamespace(time=lambda: clock.now))
    backup = _jsonl(
        {"op": "add", "n": 1, "text": "old words", "source": "seen", "by": "pippa", "why": "saw", "at": 10.5},
        {"op": "add", "n": 2, "text": "dropped line", "source": "guessed", "at": 11},
    )
    rewrite = _jsonl({"op": "add", "n": 1, "text": "new words — «ünïcode»", "source": "seen", "at": 100})
    _import("zelda", rewrite, adopt_from=backup)
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="died")
    services.add(notebook="zelda", text="a rule\nin two lines", source="dad", by="dad", why="rule")
    clock.now += 0.1
    services.edit(notebook="zelda", n=3, to="roll after his second swing", by="reflector", why="precise")
    services.edit(notebook="zelda", n=3, to="block, then roll", by="dad", why="it got her killed")
    services.add(notebook="zelda", text="guess", source="guessed", by="pippa", why="hunch")
    services.retire(notebook="zelda", n=5, by="pippa", why="wrong", into=3)
    services.add(notebook="zelda", text="x", source="seen", by="pippa", why="w")
    services.add(notebook="zelda", text="y", source="seen", by="pippa", why="w")
    services.merge(notebook="zelda", numbers=[6, 7], text="x and y", by="pippa", why="same")
    services.retire(notebook="zelda", n=4, by="dad", why="not about the game")
    return selectors.get_notebook("zelda")


def test_export_writes_the_seeds_fields_in_log_order(every_op):
    rows = [json.loads(line) for line in _export("zelda").splitlines()]
    assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
    add = next(r for r in rows if r["op"] == "add" and r["n"] == 3)
    edit = next(r for r in rows if r["op"] == "edit")
    strike = next(r for r in rows if r["op"] == "strike")
    adopt = next(r for r in rows if r["op"] == "adopt")
    assert list(add)[:3] == ["op", "n", "text"] and {"source", "at"} <= set(add)
    assert {"op", "n", "to", "by", "why", "at"} <= set(edit) and "text" not in edit
    assert {"op", "n", "how", "into", "by", "why", "at"} <= set(strike)
    assert [r["was"] for r in rows if r["op"] == "adopt"] == ["old words", "dropped line"]
    assert "text" not in adopt and "to" not in adopt
    assert all({"seq", "hash"} <= set(r) for r in rows)


def test_export_then_import_gives_every_row_back_byte_for_byte(every_op):
    first = _export("zelda")
    result = _import("zelda copy", first)
    assert result.rows == first.count("\n")
    assert _export("zelda copy") == first
    assert _row_fields("zelda copy") == _row_fields("zelda")
    assert _view("zelda copy") == _view("zelda")
    nb = selectors.get_notebook("zelda")
    copy = selectors.get_notebook("zelda copy")
    assert [selectors.history(copy, n) for n in range(1, 9)] == [selectors.history(nb, n) for n in range(1, 9)]


def test_an_imported_copy_numbers_its_next_line_like_the_original(every_op):
    _import("zelda copy", _export("zelda"))
    a = services.add(notebook="zelda", text="z", source="seen", by="pippa", why="w")
    b = services.add(notebook="zelda copy", text="z", source="seen", by="pippa", why="w")
    assert a.n == b.n == 9


def test_export_until_gives_the_log_up_to_that_time(every_op):
    partial = _export("zelda", until=100.0)
    assert [json.loads(line)["op"] for line in partial.splitlines()] == ["add"]
    assert _export("zelda", until=0) == ""


def test_the_seeds_own_rows_import(db):
    seed = _jsonl(
        {
            "op": "add",
            "n": 1,
            "text": "the bridge guard swings twice, roll after the second",
            "source": "seen",
            "at": 1,
        },
        {"op": "add", "n": 2, "text": "always attack first", "source": "guessed", "at": 2},
        {"op": "edit", "n": 2, "to": "block first, then attack after his swing", "by": "dad", "why": "killed", "at": 3},
        {"op": "strike", "n": 1, "how": "retired", "into": None, "by": "dad", "why": "stale", "at": 4},
    )
    assert _import("zelda", seed).rows == 4
    assert _view("zelda") == [(2, "block first, then attack after his swing", "dad_correction")]


def test_an_imported_edit_by_an_agent_keeps_the_source(db):
    _import(
        "zelda",
        _jsonl(
            {"op": "add", "n": 1, "text": "a", "source": "seen", "at": 1},
            {"op": "edit", "n": 1, "to": "b", "by": "pippa", "why": "w", "at": 2},
        ),
    )
    assert _view("zelda") == [(1, "b", "seen")]


def test_an_imported_edit_by_a_recorded_editor_is_a_dad_correction(dad):
    dad.username = "mum"
    dad.save()
    _import(
        "zelda",
        _jsonl(
            {"op": "add", "n": 1, "text": "a", "source": "seen", "at": 1},
            {"op": "edit", "n": 1, "to": "b", "by": "mum", "why": "w", "at": 2},
        ),
    )
    assert _view("zelda") == [(1, "b", "dad_correction")]


def test_blank_lines_are_skipped_but_counted(db):
    lines = ["\n", json.dumps({"op": "add", "n": 1, "text": "a", "source": "seen", "at": 1}) + "\n", "  \n", "{"]
    with pytest.raises(Invalid, match="^line 4: not valid JSON"):
        _import("zelda", lines)


def test_a_row_without_its_time_in_a_file_that_starts_a_notebook_is_told_so_not_shown_none(db):
    lines = [json.dumps({"op": "add", "n": 1, "text": "a", "source": "seen", "why": "w"})]
    with pytest.raises(Invalid, match="^line 1: 'at' is missing: this file brings its rows' own times") as caught:
        _import("zelda", lines)
    assert "None" not in str(caught.value)


def test_an_add_bringing_was_at_without_moved_from_is_refused_not_dropped(db):
    lines = [json.dumps({"op": "add", "n": 1, "text": "a", "source": "seen", "at": 100, "was_at": 50})]
    with pytest.raises(Invalid, match="^line 1: 'was_at' and 'was_by' belong to a line moved in"):
        _import("zelda", lines)


ADD1 = {"op": "add", "n": 1, "text": "a", "source": "seen", "at": 5}
ADD2 = {"op": "add", "n": 2, "text": "b", "source": "seen", "at": 5}
STRIKE2 = {"op": "strike", "n": 2, "how": "retired", "by": "dad", "why": "w", "at": 5}


@pytest.mark.parametrize(
    "bad, message",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ({"op": "delete", "n": 1, "at": 6}, "unknown op"),
        ({**ADD1, "n": 2}, "takes number 3, not 2"),
        ({**ADD1, "n": 9}, "takes number 3, not 9"),
        ({**ADD1, "n": 3, "source": "heard"}, "unknown source"),
        ({**ADD1, "n": 3, "text": ""}, "'text' is missing or empty"),
        ({**ADD1, "n": 3, "text": "   "}, "'text' is blank"),
        ({**ADD1, "n": 3, "text": 7}, "'text' must be text, not int"),
        ({**ADD1, "n": 3, "text": "x" * 4001}, "limit is 4000"),
        ({**ADD1, "n": 3, "text": "a\x00b"}, "NUL"),
        ({**ADD1, "n": 3, "text": "\ud800"}, "lone surrogate"),
        ({**ADD1, "n": 3, "at": 4}, "goes back in time"),
        ({**ADD1, "n": 3, "at": "today"}, "'at' must be a time"),
        ({**ADD1, "n": 3, "at": 1e300}, "'at' must be a time"),
        ({**ADD1, "n": 3, "at": -1}, "'at' must be a time"),
        ({**ADD1, "n": 3, "seq": 9}, "'seq' is 9 but this row is number 4"),
        ({"op": "edit", "n": 9, "to": "t", "by": "p", "why": "w", "at": 6}, "line #9, which does not exist"),
        ({"op": "edit", "n": 2, "to": "t", "by": "p", "why": "w", "at": 6}, "line #2, which is retired"),
        ({"op": "edit", "n": 1, "text": "t", "to": "t", "by": "p", "why": "w", "at": 6}, "never 'text'"),
        ({"op": "edit", "n": 1, "to": "t", "by": "p", "at": 6}, "'why' is missing"),
        ({"op": "edit", "n": 1, "to": "t", "why": "w", "at": 6}, "'by' is missing"),
        ({"op": "edit", "n": 1, "to": "t", "by": "p", "why": "w", "source": "dad", "at": 6}, "keeps the line's source"),
        ({**STRIKE2}, "#2, which is already retired"),
        ({**STRIKE2, "n": 1, "into": 1}, "into itself"),
        ({**STRIKE2, "n": 1, "into": 2}, "#2, which is not a live line"),
        ({**STRIKE2, "n": 1, "into": 7}, "#7, which is not a live line"),
        ({**STRIKE2, "n": 1, "how": "erased"}, "unknown how"),
        ({"op": "adopt", "n": 2**31, "was": "w", "at": 6}, "'n' must be a whole number"),
        ({"op": "adopt", "n": 1, "at": 6}, "'was' is missing"),
        ({**ADD1, "n": True}, "'n' must be a whole number"),
        ({**ADD1, "n": 3, "by": "p" * 81}, "'by' is 81 characters"),
        ({**ADD1, "n": 3, "hash": 5}, "'hash' must be a string"),
    ],
)
def test_import_refuses_a_bad_row_naming_its_line_and_writes_nothing(db, bad, message):
    before = _count()
    good = _jsonl(ADD1, ADD2, STRIKE2)
    bad_line = bad if isinstance(bad, str) else json.dumps(bad)
    with pytest.raises(Invalid) as caught:
        _import("zelda", [*good, bad_line, json.dumps({**ADD1, "n": 3, "at": 7})])
    assert caught.value.message.startswith("line 4: "), caught.value.message
    assert message in caught.value.message
    assert caught.value.details == {"line": 4}
    assert _count() == before


def test_import_refuses_a_row_changed_after_export(every_op):
    lines = _export("zelda").splitlines()
    changed = json.loads(lines[5])
    assert changed["op"] == "edit"
    changed["to"] = "words nobody wrote"
    lines[5] = json.dumps(changed)
    before = _count()
    with pytest.raises(Invalid, match="^line 6: 'hash' does not match"):
        _import("zelda copy", lines)
    assert _count() == before


def test_import_refuses_a_row_moved_in_time_after_export(every_op):
    lines = _export("zelda").splitlines()
    moved = json.loads(lines[0])
    moved["at"] -= 1
    lines[0] = json.dumps(moved)
    with pytest.raises(Invalid, match="^line 1: 'hash' does not match"):
        _import("zelda copy", lines)
    assert not Notebook.objects.filter(title="zelda copy").exists()


def test_import_accepts_a_file_without_hashes(every_op):
    rows = [json.loads(line) for line in _export("zelda").splitlines()]
    stripped = [json.dumps({k: v for k, v in r.items() if k not in ("hash", "seq")}) for r in rows]
    _import("zelda copy", stripped)
    assert _row_fields("zelda copy") == _row_fields("zelda")


def test_import_refuses_a_notebook_that_has_rows(every_op):
    before = _count()
    with pytest.raises(Conflict, match="already has 15 rows"):
        _import("zelda", _jsonl(ADD1))
    assert _count() == before


def test_import_fills_an_empty_notebook_created_before(notebook):
    _import("zelda", _jsonl(ADD1))
    assert _view("zelda") == [(1, "a", "seen")]
    assert Notebook.objects.count() == 1


def test_import_refuses_an_empty_file(db):
    with pytest.raises(Invalid, match="no rows"):
        _import("zelda", ["\n", ""])
    assert not Notebook.objects.exists()


def test_import_refuses_a_bad_title(db):
    with pytest.raises(Invalid, match="not a valid title"):
        _import("../zelda", _jsonl(ADD1))
    assert not Notebook.objects.exists()


def test_import_refuses_more_rows_than_the_limit(db, settings):
    settings.NOTEBOOK_MAX_IMPORT_ROWS = 2
    with pytest.raises(Invalid, match="^line 3: more than 2 rows"):
        _import("zelda", _jsonl(ADD1, ADD2, {**ADD1, "n": 3}))
    assert not Notebook.objects.exists()


def test_import_reports_progress_on_large_files(db):
    seen = []
    rows = [json.dumps({**ADD1, "n": n}) for n in range(1, 2501)]
    _import("zelda", rows, progress=seen.append)
    assert seen == [1000, 2000]


# ----- adopting a hand rewrite's lost words -------------------------------------------------------

BACKUP = _jsonl(
    {"op": "add", "n": 1, "text": "the guard swings twice", "source": "seen", "by": "pippa", "at": 10},
    {"op": "add", "n": 2, "text": "attack first", "source": "guessed", "by": "pippa", "why": "hunch", "at": 20},
    {"op": "edit", "n": 2, "to": "attack first, always", "by": "reflector", "why": "sure now", "at": 30},
    {"op": "add", "n": 3, "text": "the bridge is safe", "source": "seen", "by": "pippa", "at": 40},
    {"op": "add", "n": 4, "text": "how to log a death", "source": "guessed", "by": "pippa", "at": 50},
)
REWRITE = _jsonl(
    {"op": "add", "n": 1, "text": "the guard swings twice", "source": "seen", "by": "pippa", "at": 10},
    {"op": "add", "n": 2, "text": "block first, then attack", "source": "dad_correction", "by": "chat", "at": 1000},
    {"op": "add", "n": 3, "text": "the bridge is safe", "source": "seen", "by": "pippa", "at": 1000},
)


def test_adopt_from_recovers_the_words_a_hand_rewrite_changed(db):
    result = _import("zelda", REWRITE, adopt_from=BACKUP, adopt_name="zelda.backup.jsonl", by="dad")
    assert (result.rows, result.adopted) == (3, 3)
    nb = result.notebook
    history = selectors.history(nb, 2)
    assert [(e.op, e.text, e.adopted) for e in history] == [
        ("adopt", "attack first", True),
        ("adopt", "attack first, always", True),
        ("add", "block first, then attack", False),
    ]
    assert [(e.by, e.was_by, e.was_at, e.why) for e in history[:2]] == [
        ("dad", "pippa", 20.0, "recovered from zelda.backup.jsonl: hunch"),
        ("dad", "reflector", 30.0, "recovered from zelda.backup.jsonl: sure now"),
    ]


def test_adopt_from_recovers_a_line_the_rewrite_dropped(db):
    nb = _import("zelda", REWRITE, adopt_from=BACKUP).notebook
    assert [(e.op, e.text, e.source) for e in selectors.history(nb, 4)] == [("adopt", "how to log a death", "guessed")]


def test_adopt_from_leaves_unchanged_lines_alone(db):
    nb = _import("zelda", REWRITE, adopt_from=BACKUP).notebook
    assert [e.op for e in selectors.history(nb, 1)] == ["add"]
    assert [e.op for e in selectors.history(nb, 3)] == ["add"]


def test_the_view_never_shows_adopted_rows(db):
    nb = _import("zelda", REWRITE, adopt_from=BACKUP).notebook
    expected = [
        (1, "the guard swings twice", "seen"),
        (2, "block first, then attack", "dad_correction"),
        (3, "the bridge is safe", "seen"),
    ]
    assert _view("zelda") == expected
    assert [(x.n, x.text, x.source) for x in selectors.view(nb, until=10**11)] == expected
    assert "how to log a death" not in selectors.turn(nb)


def test_a_dropped_lines_number_is_not_given_again(db):
    _import("zelda", REWRITE, adopt_from=BACKUP)
    assert services.add(notebook="zelda", text="new", source="seen", by="pippa", why="w").n == 5


def test_adopted_rows_survive_a_round_trip(db):
    _import("zelda", REWRITE, adopt_from=BACKUP)
    exported = _export("zelda")
    _import("zelda copy", exported)
    assert _export("zelda copy") == exported


def test_a_bad_backup_is_refused_by_name_and_nothing_is_written(db):
    with pytest.raises(Invalid, match="^zelda.backup.jsonl: line 2: "):
        _import("zelda", REWRITE, adopt_from=[BACKUP[0], "{"], adopt_name="zelda.backup.jsonl")
    assert _count() == (0, 0, 0)
