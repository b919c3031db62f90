"""The live view kept folded in memory: always what the log says, checked against the log on every read."""

import json
import time

import pytest
from django.db import transaction

from bench import data
from notebooks.log import redaction, services
from notebooks.log.files import imports, rowformat, verify
from notebooks.log.identity import wordkeys
from notebooks.log.views import kept, queries, selectors
from notebooks.log.views.selectors import ALL
from notebooks.models import Row, Words


@pytest.fixture(autouse=True)
def _no_folds_between_tests():
    kept.forget()
    yield
    kept.forget()


def by_log(notebook) -> list:  # noqa: ANN001
    return queries.view_by_sql(notebook, ALL)[0]


def texts(lines: list) -> dict[int, str]:
    return {line.n: line.text for line in lines}


def test_it_stays_what_the_log_says_through_every_kind_of_write(notebook, dad):
    assert selectors.view(notebook) == []
    a = services.add(notebook="zelda", text="the guard swings twice", source="seen", by="pippa", why="died")
    assert selectors.view(notebook) == by_log(notebook)
    b = services.add(notebook="zelda", text="always attack first", source="guessed", by="pippa", why="hunch")
    c = services.add(notebook="zelda", text="the key is left", source="dad", by="dad", why="I know")
    assert selectors.view(notebook) == by_log(notebook)
    services.edit(notebook="zelda", n=b.n, to="block first, then attack", by="dad", why="got her killed")
    assert selectors.view(notebook) == by_log(notebook)
    services.retire(notebook="zelda", n=c.n, by="dad", why="not about the game")
    assert selectors.view(notebook) == by_log(notebook)
    m = services.merge(notebook="zelda", numbers=[a.n, b.n], text="roll, then block", by="dad", why="one thing")
    lines = selectors.view(notebook)
    assert lines == by_log(notebook)
    assert texts(lines) == {m.n: "roll, then block"}
    assert lines[0].source == "dad_correction"


def test_a_warm_read_is_one_query(notebook, django_assert_num_queries):
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="died")
    selectors.view(notebook)
    with django_assert_num_queries(1):
        assert texts(selectors.view(notebook)) == {1: "roll after the second swing"}


def test_the_read_after_another_workers_row_folds_only_that_row_in_one_query(
    notebook, django_assert_num_queries, monkeypatch
):
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="died")
    selectors.view(notebook)
    with monkeypatch.context() as m:
        m.setattr(kept, "fold_in", lambda *args: None)  # written elsewhere: this process's fold never saw it
        services.add(notebook="zelda", text="the bridge is out", source="seen", by="pippa", why="fell")
    assert kept.kept_seq(notebook) == 1
    with django_assert_num_queries(1):
        lines = selectors.view(notebook)
    assert texts(lines) == {1: "roll after the second swing", 2: "the bridge is out"}
    assert kept.kept_seq(notebook) == 2


def test_a_writer_folds_its_own_rows_into_its_kept_view_once_committed(
    notebook, dad, django_assert_num_queries, django_capture_on_commit_callbacks
):
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="died")
    selectors.view(notebook)
    with django_capture_on_commit_callbacks() as waiting:
        services.add(notebook="zelda", text="the bridge is out", source="seen", by="pippa", why="fell")
    assert kept.kept_seq(notebook) == 1 and len(waiting) == 1  # not before the commit
    waiting[0]()
    with django_capture_on_commit_callbacks(execute=True):
        services.edit(notebook="zelda", n=1, to="roll after the third swing", by="dad", why="counted wrong")
    assert kept.kept_seq(notebook) == 3  # before any read
    with django_assert_num_queries(1):
        lines = selectors.view(notebook)
    assert lines == by_log(notebook)
    assert [(line.text, line.source) for line in lines] == [
        ("roll after the third swing", "dad_correction"),
        ("the bridge is out", "seen"),
    ]
    with django_capture_on_commit_callbacks(execute=True):
        services.merge(notebook="zelda", numbers=[1, 2], text="roll late, then jump", by="dad", why="one thing")
    assert kept.kept_seq(notebook) == selectors.head(notebook).seq
    assert selectors.view(notebook) == by_log(notebook)


def test_a_write_rolled_back_is_not_folded_in(notebook, django_capture_on_commit_callbacks):
    services.add(notebook="zelda", text="first", source="seen", by="pippa", why="saw it")
    selectors.view(notebook)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError), transaction.atomic():
        services.add(notebook="zelda", text="written then rolled back", source="seen", by="pippa", why="saw it")
        raise RuntimeError("the caller's transaction fails after the add")
    assert kept.kept_seq(notebook) == 1
    assert texts(selectors.view(notebook)) == {1: "first"}
    assert selectors.view(notebook) == by_log(notebook)


def test_rows_imported_with_a_redaction_of_their_words_show_its_mark(notebook, dad):
    selectors.view(notebook)  # kept while empty
    secret = "the admin password is hunter2"
    rows = [
        {"op": "add", "n": 1, "text": "first", "source": "seen", "by": "pippa", "why": "saw it", "at": 1.0},
        {"op": "add", "n": 2, "text": secret, "source": "seen", "by": "pippa", "why": "saw it", "at": 2.0},
        {"op": "redact", "n": 2, "redacts": rowformat.digest_of(secret), "by": "dad", "why": "a password", "at": 3.0},
    ]
    imports.import_notebook(title="zelda", lines=[json.dumps(r) for r in rows], by="test")
    lines = selectors.view(notebook)
    assert lines == by_log(notebook)
    assert texts(lines) == {1: "first", 2: "[redacted: a password]"}


def test_it_rebuilds_from_the_log_when_the_row_it_folded_is_not_there(notebook):
    services.add(notebook="zelda", text="first", source="seen", by="pippa", why="saw it")
    with transaction.atomic():
        sid = transaction.savepoint()
        services.add(notebook="zelda", text="written then rolled back", source="seen", by="pippa", why="saw it")
        assert len(selectors.view(notebook)) == 2
        transaction.savepoint_rollback(sid)
    assert texts(selectors.view(notebook)) == {1: "first"}
    services.add(notebook="zelda", text="second, for real", source="seen", by="pippa", why="saw it")
    assert texts(selectors.view(notebook)) == {1: "first", 2: "second, for real"}


def test_it_rebuilds_when_the_kept_hash_is_not_the_logs(notebook):
    services.add(notebook="zelda", text="first", source="seen", by="pippa", why="saw it")
    selectors.view(notebook)
    (view,) = kept._views.values()  # a memory fault, simulated: no public function damages a kept view
    view.lines.clear()  # a view that no longer matches what it claims to stand for…
    view.hash = "f" * 64  # …is caught by the hash check against the log
    assert texts(selectors.view(notebook)) == {1: "first"}


def test_it_rebuilds_when_too_many_rows_came_after_it(notebook, monkeypatch):
    monkeypatch.setattr(kept, "FOLD_STEP", 2)
    monkeypatch.setattr(kept, "fold_in", lambda *args: None)  # rows written by another worker
    services.add(notebook="zelda", text="first", source="seen", by="pippa", why="saw it")
    selectors.view(notebook)
    for i in range(3):
        services.add(notebook="zelda", text=f"line {i}", source="seen", by="pippa", why="saw it")
    assert selectors.view(notebook) == by_log(notebook)
    assert len(selectors.view(notebook)) == 4


def test_a_caller_changing_the_list_it_got_does_not_change_the_view(notebook):
    services.add(notebook="zelda", text="first", source="seen", by="pippa", why="saw it")
    selectors.view(notebook).clear()
    assert texts(selectors.view(notebook)) == {1: "first"}


def test_the_turn_names_the_head_it_was_read_at(notebook):
    services.add(notebook="zelda", text="first", source="seen", by="pippa", why="saw it")
    selectors.turn(notebook)
    w = services.add(notebook="zelda", text="second", source="seen", by="pippa", why="saw it")
    text = selectors.turn(notebook)
    assert f"(seq {w.seq}, head {selectors.head(notebook).hash[:16]})" in text
    assert "[#2 seen] second" in text


def test_every_frozen_view_of_a_generated_notebook_is_the_fold_of_its_rows(db):
    rows = list(data.rows(400, seed=11))
    imported = imports.import_notebook(title="generated", lines=data.jsonl(400, seed=11), by="test")
    nb = imported.notebook
    assert verify.verify_chain(nb) == []
    for cut in range(0, len(rows) + 1, 7):
        expected = data.fold(rows[:cut])
        got = selectors.view_at_seq(nb, cut)
        assert {x.n: (x.text, x.source) for x in got} == expected, f"cut {cut}"
        assert [x.n for x in got] == sorted(expected)
    assert {x.n: (x.text, x.source) for x in selectors.view(nb)} == data.fold(rows)


def test_an_import_keeps_each_words_once_and_a_chain_that_verifies(db):
    rows = [{"op": "add", "n": i, "text": f"line {i % 7}", "source": "seen", "at": 100 + i} for i in range(1, 301)]
    lines = [json.dumps(r) for r in rows]
    nb = imports.import_notebook(title="repeats", lines=lines, by="test").notebook
    assert Words.objects.filter(notebook=nb).count() == 7
    assert verify.verify_chain(nb) == []
    assert len(selectors.view(nb)) == 300


def test_a_notebook_whose_lines_are_all_retired_still_names_its_head(notebook, dad):
    services.add(notebook="zelda", text="first", source="seen", by="pippa", why="saw it")
    w = services.retire(notebook="zelda", n=1, by="dad", why="not about the game")
    assert selectors.view(notebook) == []
    assert f"(seq {w.seq}, " in selectors.turn(notebook)
    kept.forget()
    assert f"(seq {w.seq}, " in selectors.turn(notebook)
    assert selectors.turn(notebook, until=0).startswith("# Notebook 'zelda' as it stood at its start (seq 0,")


def test_a_view_by_time_is_the_view_at_the_last_row_recorded_by_then(db):
    rows = list(data.rows(200, seed=3))
    nb = imports.import_notebook(title="timed", lines=data.jsonl(200, seed=3), by="test").notebook
    for i in (0, 1, 57, 120, 199):
        at = rows[i]["at"]
        assert selectors.view(nb, until=at) == selectors.view_at_seq(nb, i + 1)
        assert selectors.view(nb, until=at + 0.5) == selectors.view_at_seq(nb, i + 1)
        assert selectors.cut_for(nb, at) == i + 1
    assert selectors.view(nb, until=rows[0]["at"] - 1) == []


def test_a_warm_turn_is_one_query_and_changes_with_the_log(notebook, django_assert_num_queries):
    services.add(notebook="zelda", text="first", source="seen", by="pippa", why="saw it")
    before = selectors.turn(notebook)
    with django_assert_num_queries(1):
        assert selectors.turn(notebook) == before
    services.edit(notebook="zelda", n=1, to="first, better", by="pippa", why="clearer")
    assert "[#1 seen] first, better" in selectors.turn(notebook)


def test_get_notebook_reads_the_fields_it_did_not_fetch_on_demand(notebook):
    found = selectors.get_notebook("zelda")
    assert (found.pk, found.title, found.created_by, found.created_at) == (
        notebook.pk, "zelda", "test", notebook.created_at,
    )  # fmt: skip


def test_a_frozen_view_read_again_is_one_query_and_still_what_the_log_says(notebook, django_assert_num_queries):
    first = services.add(notebook="zelda", text="first", source="seen", by="pippa", why="saw it")
    services.edit(notebook="zelda", n=1, to="first, later words", by="pippa", why="clearer")
    at = Row.objects.get(notebook=notebook, seq=first.seq).at
    assert texts(selectors.view(notebook, until=at)) == {1: "first"}
    with django_assert_num_queries(1):
        assert texts(selectors.view(notebook, until=at)) == {1: "first"}
    assert selectors.turn(notebook, until=at) == selectors.turn(notebook, until=at)
    assert "[#1 seen] first" in selectors.turn(notebook, until=at)


def test_a_kept_frozen_view_is_not_used_once_its_row_is_not_the_logs(notebook):
    with transaction.atomic():
        sid = transaction.savepoint()
        services.add(notebook="zelda", text="rolled back", source="seen", by="pippa", why="saw it")
        assert texts(selectors.view_at_seq(notebook, 1)) == {1: "rolled back"}
        transaction.savepoint_rollback(sid)
    services.add(notebook="zelda", text="kept", source="seen", by="pippa", why="saw it")
    assert texts(selectors.view_at_seq(notebook, 1)) == {1: "kept"}


def test_it_keeps_no_more_lines_than_its_bound(notebook, monkeypatch):
    monkeypatch.setattr(kept, "LINES_KEPT", 3)
    for i in range(3):
        services.add(notebook="zelda", text=f"line {i}", source="seen", by="pippa", why="saw it")
    selectors.view_at_seq(notebook, 1)
    selectors.view_at_seq(notebook, 2)
    selectors.view(notebook)  # 3 lines: the past views (1 and 2 lines) are dropped to make room
    assert kept.kept_sizes() == [3]
    assert texts(selectors.view_at_seq(notebook, 2)) == {1: "line 0", 2: "line 1"}


def test_a_row_appended_with_words_redacted_before_shows_the_mark(notebook, dad, django_capture_on_commit_callbacks):
    secret = "the admin password is hunter2"
    services.add(notebook="zelda", text=secret, source="seen", by="pippa", why="saw it")
    services.add(notebook="zelda", text="other", source="seen", by="pippa", why="saw it")
    redaction.redact(notebook="zelda", n=1, by="dad", why="a password")
    selectors.view(notebook)  # kept, after the redaction
    copied = {
        "op": "edit",
        "n": 2,
        "to": "[redacted: a password]",
        "redacted": True,
        "digest": wordkeys.keyed("zelda", secret)[1],
    }
    with django_capture_on_commit_callbacks(execute=True):  # a vault file's append carrying the redacted words
        imports.append_rows(
            notebook="zelda",
            lines=[json.dumps({**copied, "by": "pippa", "why": "copied", "at": time.time()})],
            by_default="x",
        )
    lines = selectors.view(notebook)
    assert lines == by_log(notebook)
    assert texts(lines) == {1: "[redacted: a password]", 2: "[redacted: a password]"}
