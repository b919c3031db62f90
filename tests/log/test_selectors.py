"""The reads: view, the frozen reader, history and turn."""

import json
from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from notebooks.log import services
from notebooks.log.files import imports, rowformat
from notebooks.log.rules import checks
from notebooks.log.rules.errors import Invalid, NotFound
from notebooks.log.store import append
from notebooks.log.views import selectors


@pytest.fixture
def clock(monkeypatch):
    """The services' clock, set by the test: clock.now = 1000.0."""
    state = SimpleNamespace(now=1000.0)
    monkeypatch.setattr(append, "time", SimpleNamespace(time=lambda: state.now))
    return state


@pytest.fixture
def story(notebook, dad, clock):
    """The seed's story: at 1000 two lines, at 2000 Dad rewrites #2, at 3000 #1 is retired, at 4000 a rule."""
    services.add(notebook="zelda", text="the bridge guard swings twice", source="seen", by="pippa", why="saw it")
    services.add(notebook="zelda", text="always attack first", source="guessed", by="reflector", why="a hunch")
    clock.now = 2000.0
    services.edit(notebook="zelda", n=2, to="block first, then attack", by="dad", why="attacking first got her killed")
    clock.now = 3000.0
    services.retire(notebook="zelda", n=1, by="pippa", why="the guard changed", into=2)
    clock.now = 4000.0
    services.add(notebook="zelda", text="save before the bridge", source="dad", by="dad", why="a rule")
    return notebook


def _view(nb, until=None):  # noqa: ANN001, ANN202
    return [(line.n, line.text, line.source) for line in selectors.view(nb, until=until)]


# ----- view ---------------------------------------------------------------------------------------


def test_view_is_empty_for_a_new_notebook(notebook):
    assert selectors.view(notebook) == []


def test_view_shows_the_live_lines_in_number_order_with_their_last_words(story):
    assert _view(story) == [(2, "block first, then attack", "dad_correction"), (3, "save before the bridge", "dad")]


def test_view_says_who_last_changed_a_line_and_when(story):
    line = selectors.view(story)[0]
    assert (line.by, line.at, line.seq) == ("dad", 2000.0, 3)
    assert line.as_dict() == {
        "n": 2,
        "text": "block first, then attack",
        "source": "dad_correction",
        "by": "dad",
        "at": 2000.0,
        "seq": 3,
    }


def test_view_of_one_notebook_ignores_the_others(story):
    services.create_notebook(title="mario", by="dad")
    services.add(notebook="mario", text="jump", source="seen", by="pippa", why="w")
    assert _view(selectors.get_notebook("mario")) == [(1, "jump", "seen")]
    assert [n for n, _, _ in _view(story)] == [2, 3]


def test_the_frozen_reader_sees_the_notebook_as_it_stood(story):
    assert _view(story, until=999.0) == []
    assert _view(story, until=1000.0) == [
        (1, "the bridge guard swings twice", "seen"),
        (2, "always attack first", "guessed"),
    ]
    assert _view(story, until=2999.5) == [
        (1, "the bridge guard swings twice", "seen"),
        (2, "block first, then attack", "dad_correction"),
    ]
    assert _view(story, until=3000.0) == [(2, "block first, then attack", "dad_correction")]
    assert _view(story, until=10**12) == _view(story)


def test_the_frozen_reader_says_who_had_changed_the_line_by_then(story):
    (first, second) = selectors.view(story, until=1500.0)
    assert (second.by, second.at, second.seq) == ("reflector", 1000.0, 2)


def test_a_frozen_reader_before_a_merge_still_sees_the_old_lines(notebook, dad, clock):
    services.add(notebook="zelda", text="a", source="seen", by="pippa", why="w")
    services.add(notebook="zelda", text="b", source="seen", by="pippa", why="w")
    clock.now = 2000.0
    services.merge(notebook="zelda", numbers=[1, 2], text="a and b", by="dad", why="same")
    assert _view(notebook, until=1999.0) == [(1, "a", "seen"), (2, "b", "seen")]
    assert _view(notebook) == [(3, "a and b", "dad_correction")]


@pytest.mark.parametrize(
    "when, seconds",
    [
        ("2026-11-12T09:30", 1794475800.0),
        ("2026-11-12T09:30:00Z", 1794475800.0),
        ("2026-11-12T10:30:00+01:00", 1794475800.0),
        ("1794475800", 1794475800.0),
        ("1794475800.5", 1794475800.5),
        (12.5, 12.5),
    ],
)
def test_a_time_is_iso_8601_or_epoch_seconds(when, seconds):
    assert checks.parse_when(when) == seconds


@pytest.mark.parametrize("when", ["yesterday", "", "nan", "inf", "2026-13-01", float("nan")])
def test_a_time_that_is_not_a_time_is_refused(when):
    with pytest.raises(Invalid, match="not a time"):
        checks.parse_when(when)


def test_get_notebook_suggests_a_close_title(notebook):
    with pytest.raises(NotFound, match="Did you mean 'zelda'"):
        selectors.get_notebook("zelds")


@pytest.mark.parametrize("title", ["a\x00b", "\udcff", None])
def test_get_notebook_refuses_a_title_no_database_can_compare(notebook, title):
    with pytest.raises(NotFound):
        selectors.get_notebook(title)


# ----- history ------------------------------------------------------------------------------------


def test_history_gives_every_row_of_a_line_with_its_words_after_it(story):
    entries = selectors.history(story, 2)
    assert [(e.seq, e.op, e.text, e.source, e.by, e.at, e.why, e.adopted) for e in entries] == [
        (2, "add", "always attack first", "guessed", "reflector", 1000.0, "a hunch", False),
        (
            3,
            "edit",
            "block first, then attack",
            "dad_correction",
            "dad",
            2000.0,
            "attacking first got her killed",
            False,
        ),
        # #1 retired into #2 at 3000: #2's history shows it, with what #1 said then.
        (4, "retired_into", "the bridge guard swings twice", "seen", "pippa", 3000.0, "the guard changed", False),
    ]
    assert (entries[-1].how, entries[-1].from_n, entries[-1].into) == ("retired", 1, 2)


def test_history_of_a_retired_line_ends_with_its_strike_and_keeps_its_words(story):
    *_, strike = selectors.history(story, 1)
    assert (strike.op, strike.how, strike.into, strike.by, strike.why) == (
        "strike",
        "retired",
        2,
        "pippa",
        "the guard changed",
    )
    assert strike.text == "the bridge guard swings twice"


def test_history_of_a_merged_line_says_where_it_went(notebook, dad):
    services.add(notebook="zelda", text="a", source="seen", by="pippa", why="w")
    services.add(notebook="zelda", text="b", source="seen", by="pippa", why="w")
    services.merge(notebook="zelda", numbers=[1, 2], text="a and b", by="dad", why="same")
    assert [(e.op, e.how, e.into) for e in selectors.history(notebook, 2)] == [
        ("add", "", None),
        ("strike", "merged", 3),
    ]
    # The merged line names where it came from, with the words each line had: the add, then one entry per line.
    merged = selectors.history(notebook, 3)
    assert [(e.op, e.how, e.from_n, e.text, e.source, e.why) for e in merged] == [
        ("add", "", None, "a and b", "dad_correction", "same"),
        ("retired_into", "merged", 1, "a", "seen", "same"),
        ("retired_into", "merged", 2, "b", "seen", "same"),
    ]
    assert merged[0].merged_from == (1, 2)


def _jsonl(*rows: dict) -> list[str]:
    return [json.dumps(r) for r in rows]


def test_history_puts_adopted_rows_first_by_their_own_time(db):
    backup = _jsonl(
        {"op": "add", "n": 1, "text": "old one", "source": "seen", "by": "pippa", "at": 10},
        {"op": "add", "n": 2, "text": "old two", "source": "guessed", "by": "pippa", "at": 20},
        {"op": "edit", "n": 1, "to": "old one, edited", "by": "reflector", "why": "better", "at": 30},
    )
    rewrite = _jsonl({"op": "add", "n": 1, "text": "clean one", "source": "seen", "by": "chat", "at": 100})
    result = imports.import_notebook(title="zelda", lines=rewrite, by="dad", adopt_from=backup, adopt_name="bak")
    assert (result.rows, result.adopted) == (1, 3)
    nb = result.notebook
    entries = selectors.history(nb, 1)
    assert [(e.op, e.text, e.adopted, e.was_by, e.was_at) for e in entries] == [
        ("adopt", "old one", True, "pippa", 10.0),
        ("adopt", "old one, edited", True, "reflector", 30.0),
        ("add", "clean one", False, "", None),
    ]
    assert entries[1].why == "recovered from bak: better"
    assert [(e.op, e.text, e.adopted) for e in selectors.history(nb, 2)] == [("adopt", "old two", True)]
    # The view never shows adopted rows, and the dropped line's number is not given again.
    assert _view(nb) == [(1, "clean one", "seen")]
    assert services.add(notebook="zelda", text="new", source="seen", by="pippa", why="w").n == 3


def test_history_of_a_line_that_does_not_exist_is_refused(story):
    for n in (9, 0, -1, 2**31, 10**30):
        with pytest.raises(NotFound, match="no line"):
            selectors.history(story, n)


# ----- turn ---------------------------------------------------------------------------------------


@pytest.fixture
def every_source(notebook, dad):
    for text, source, by in [
        ("her guess", "guessed", "pippa"),
        ("what she saw", "seen", "pippa"),
        ("his rule", "dad", "dad"),
        ("another sight", "seen", "reflector"),
        ("to be corrected", "guessed", "pippa"),
        ("his second rule", "dad", "dad"),
    ]:
        services.add(notebook="zelda", text=text, source=source, by=by, why="w")
    services.edit(notebook="zelda", n=5, to="block first, then attack after his swing", by="dad", why="w")
    return notebook


def test_turn_puts_dads_corrections_first_then_his_lines_then_hers(every_source):
    body = selectors.turn(every_source).splitlines()[1:-1]
    assert body == [
        "[#5 dad_correction] block first, then attack after his swing",
        "[#3 dad] his rule",
        "[#6 dad] his second rule",
        "[#2 seen] what she saw",
        "[#4 seen] another sight",
        "[#1 guessed] her guess",
    ]


def test_turn_ends_with_the_game_only_sentence(every_source):
    assert selectors.turn(every_source).splitlines()[-1] == rowformat.GAME_ONLY
    assert (
        rowformat.GAME_ONLY == "Write only what the game taught you in this notebook; it is not the coordination log."
    )


def test_turn_opens_with_a_header_naming_the_notebook_and_its_head(story):
    header = selectors.turn(story).splitlines()[0]
    head = selectors.head(story)
    assert header == f"# Notebook 'zelda' as it stood at 1970-01-01T01:06:40+00:00 (seq 5, head {head.hash[:16]})"


def test_turn_of_an_empty_notebook_is_the_header_and_the_sentence(notebook):
    assert selectors.turn(notebook).splitlines() == [
        "# Notebook 'zelda' as it stood at its start (seq 0, head 0000000000000000)",
        rowformat.GAME_ONLY,
    ]


def test_turn_leaves_out_retired_lines(story):
    assert "swings twice" not in selectors.turn(story)


def test_a_frozen_turn_reads_the_notebook_as_it_stood(story):
    lines = selectors.turn(story, until=1500.0).splitlines()
    assert lines[0].startswith("# Notebook 'zelda' as it stood at 1970-01-01T00:16:40+00:00 (seq 2, head ")
    assert lines[1:] == [
        "[#1 seen] the bridge guard swings twice",
        "[#2 guessed] always attack first",
        rowformat.GAME_ONLY,
    ]


# ----- a fixed number of queries ------------------------------------------------------------------


def _big(title: str, lines: int) -> None:
    """A notebook of `lines` lines, every third edited and every fifth retired, imported in one go."""
    rows, at = [], 1.0
    for n in range(1, lines + 1):
        rows.append({"op": "add", "n": n, "text": f"line {n}", "source": "seen", "by": "pippa", "at": at})
    for n in range(3, lines + 1, 3):
        rows.append({"op": "edit", "n": n, "to": f"line {n}, edited", "by": "dad", "why": "w", "at": at})
    for n in range(5, lines + 1, 5):
        rows.append({"op": "strike", "n": n, "how": "retired", "by": "dad", "why": "w", "at": at})
    imports.import_notebook(title=title, lines=_jsonl(*rows), by="test")


def _queries(read) -> int:  # noqa: ANN001
    with CaptureQueriesContext(connection) as ctx:
        read()
    return len(ctx.captured_queries)


@pytest.mark.parametrize(
    "read",
    [
        lambda nb: selectors.view(nb),
        lambda nb: selectors.view(nb, until=1.0),
        lambda nb: selectors.history(nb, 15),
        lambda nb: selectors.turn(nb),
        lambda nb: selectors.turn(nb, until=1.0),
        lambda nb: list(selectors.export(nb)),
    ],
    ids=["view", "frozen view", "history", "turn", "frozen turn", "export"],
)
def test_reads_take_a_fixed_few_queries_whatever_the_size(db, read, django_assert_max_num_queries):
    _big("small", 15)
    _big("large", 600)
    small, large = selectors.get_notebook("small"), selectors.get_notebook("large")
    # A large notebook never takes more queries than a small one (it may take fewer: a snapshot stands at its head).
    assert _queries(lambda: read(large)) <= _queries(lambda: read(small)) <= 4
    with django_assert_max_num_queries(3):
        read(large)
    assert len(selectors.view(large)) == 480
