"""The reads the card added to selectors: one line, filters, summaries, lines added per day, the audit."""

import json

from django.db import connection
from django.test.utils import CaptureQueriesContext

from notebooks.card import selectors as card_selectors
from notebooks.log import services
from notebooks.log.files import imports
from notebooks.log.views import kept, selectors


def test_live_line_is_the_lines_current_words_or_none_once_retired(lines):
    assert selectors.live_line(lines, 2).text == "always attack first"
    services.edit(notebook="zelda", n=2, to="block first", by="dad", why="r")
    line = selectors.live_line(lines, 2)
    assert (line.text, line.source) == ("block first", "dad_correction")
    services.retire(notebook="zelda", n=2, by="dad", why="r")
    assert selectors.live_line(lines, 2) is None
    assert selectors.live_line(lines, 99) is None


def test_live_line_reads_as_of_a_cut(lines):
    services.edit(notebook="zelda", n=2, to="block first", by="dad", why="r")
    assert selectors.live_line(lines, 2, cut=3).text == "always attack first"


def test_notebook_summaries_count_live_lines_by_source_from_the_kept_views(lines):
    services.create_notebook(title="tetris", by="test")
    services.edit(notebook="zelda", n=1, to="roll twice", by="dad", why="r")
    services.retire(notebook="zelda", n=2, by="dad", why="r")
    kept.forget()
    cold = {s.title: s.counts for s in card_selectors.notebook_summaries()}
    with CaptureQueriesContext(connection) as queries:
        found = {s.title: s for s in card_selectors.notebook_summaries()}
    # The heads, the reader's review marks, the turns' last reads, the archive marks, and one check of zelda's kept
    # view (tetris has no rows to read): none of them grows with the notebooks' rows.
    assert len(queries) == 5
    assert {title: s.counts for title, s in found.items()} == cold
    assert found["zelda"].counts == {"dad_correction": 1, "dad": 1}
    assert found["zelda"].by_source == [("dad_correction", 1), ("dad", 1)]
    assert found["zelda"].rows == 5 and found["zelda"].last_at == selectors.head(lines).at
    assert (found["tetris"].counts, found["tetris"].rows, found["tetris"].last_at) == ({}, 0, None)


def test_added_per_day_counts_add_rows_by_utc_day_and_source(dad):
    day = 86400
    rows = [
        {"op": "add", "n": 1, "text": "a", "source": "seen", "at": 3 * day + 5},
        {"op": "add", "n": 2, "text": "b", "source": "seen", "at": 3 * day + 80000},
        {"op": "add", "n": 3, "text": "c", "source": "dad", "at": 4 * day + 1, "by": "dad"},
        {"op": "strike", "n": 1, "by": "dad", "why": "r", "at": 4 * day + 2},
        {"op": "add", "n": 4, "text": "d", "source": "guessed", "at": 6 * day},
    ]
    nb = imports.import_notebook(title="zelda", lines=[json.dumps(r) for r in rows], by="t").notebook
    got = [(c.day, c.source, c.count) for c in card_selectors.added_per_day(nb)]
    assert got == [(3, "seen", 2), (4, "dad", 1), (6, "guessed", 1)]
    assert [(c.day, c.count) for c in card_selectors.added_per_day(nb, cut=2)] == [(3, 2)]


def test_added_per_day_counts_a_merge_keeping_her_words_and_a_restore_where_the_line_was_first_counted(lines):
    services.add(notebook="zelda", text="roll after the second hit", source="seen", by="pippa", why="seen")
    before = [(c.source, c.count) for c in card_selectors.added_per_day(lines)]
    assert ("seen", 2) in before
    services.merge(notebook="zelda", numbers=[1, 4], text="roll after the second swing", by="dad", why="one")
    services.restore(notebook="zelda", n=4, by="dad", why="back")
    assert [(c.source, c.count) for c in card_selectors.added_per_day(lines)] == before
    # Words of his own make a new line of his, counted the day he wrote them.
    services.merge(notebook="zelda", numbers=[2, 3], text="block, then roll", by="dad", why="mine")
    after = dict((c.source, c.count) for c in card_selectors.added_per_day(lines))
    assert after["dad_correction"] == 1 and after["seen"] == 2


def test_audit_pages_newest_first_across_notebooks(lines):
    services.create_notebook(title="tetris", by="test")
    services.add(notebook="tetris", text="rotate", source="seen", by="pippa", why="s")
    page = card_selectors.audit(per_page=2)
    assert (page.total, page.pages) == (4, 2)
    assert [(r.notebook, r.seq) for r in page.rows] == [("tetris", 1), ("zelda", 3)]
    assert [(r.notebook, r.seq) for r in card_selectors.audit(per_page=2, page=2).rows] == [("zelda", 2), ("zelda", 1)]
    assert card_selectors.audit(by="dad").total == 1
    assert card_selectors.audit(op="strike").total == 0
    assert card_selectors.actors() == ["dad", "pippa"]


def test_retire_many_retires_all_for_one_reason(lines):
    written = services.retire_many(notebook="zelda", numbers=[1, 2], by="dad", why="not about the game")
    assert len(written.seqs) == 2
    assert [x.n for x in selectors.view(lines)] == [3]


def test_retire_many_writes_nothing_when_one_line_cannot_go(lines):
    import pytest

    from notebooks.log.rules.errors import Conflict, Forbidden, Invalid

    services.retire(notebook="zelda", n=2, by="dad", why="r")
    head = selectors.head(lines).seq
    with pytest.raises(Conflict):
        services.retire_many(notebook="zelda", numbers=[1, 2], by="dad", why="r")
    with pytest.raises(Forbidden):
        services.retire_many(notebook="zelda", numbers=[1, 3], by="pippa", why="r")
    with pytest.raises(Invalid):
        services.retire_many(notebook="zelda", numbers=[1, 1], by="dad", why="r")
    with pytest.raises(Invalid):
        services.retire_many(notebook="zelda", numbers=[], by="dad", why="r")
    with pytest.raises(Invalid):
        services.retire_many(notebook="zelda", numbers=[1], by="dad", why=" ")
    assert selectors.head(lines).seq == head


def test_retire_many_belongs_to_the_actors_open_session_like_every_write(lines):
    import pytest

    from notebooks.log.rules.errors import Conflict
    from notebooks.models import Row
    from notebooks.sessions import services as sessions

    services.create_notebook(title="tetris", by="test")
    services.add(notebook="tetris", text="rotate", source="seen", by="pippa", why="s")
    taken = sessions.take(notebook="zelda", plan="tidy", by="pippa")
    with pytest.raises(Conflict, match="is refused while it is open"):
        services.retire_many(notebook="tetris", numbers=[1], by="pippa", why="r")
    services.retire_many(notebook="zelda", numbers=[1, 2], by="pippa", why="not about the game")
    # A session's strikes are its proposals (fold.py) until it lands.
    assert set(Row.objects.filter(proposes="strike").values_list("session_id", flat=True)) == {taken.id}
