"""The database's owner drops the triggers and rewrites the log; `notebook verify` finds each change.

DDL is transactional on SQLite and PostgreSQL, so the dropped triggers come back when the test rolls back.
"""

import io

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from notebooks.log import services
from notebooks.log.files.verify import verify_chain
from notebooks.log.store import triggers
from notebooks.log.views import selectors


@pytest.fixture
def five_rows(dad, notebook):
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="died twice")
    services.add(notebook="zelda", text="always attack first", source="guessed", by="pippa", why="a hunch")
    services.edit(notebook="zelda", n=2, to="block first, then attack", by="dad", why="attacking first killed her")
    services.add(notebook="zelda", text="the bridge guard swings twice", source="seen", by="pippa", why="watched")
    services.retire(notebook="zelda", n=1, by="dad", why="not about the game")
    assert verify_chain(notebook) == []
    return notebook


def as_owner(*statements: str) -> None:
    """Drop every append-only trigger, then run the statements: what only the owner can do."""
    with connection.cursor() as cursor:
        for table in triggers.PROTECTED_TABLES:
            if connection.vendor == "sqlite":
                cursor.execute(f"DROP TRIGGER IF EXISTS {table}_no_update")
                cursor.execute(f"DROP TRIGGER IF EXISTS {table}_no_delete")
            else:
                cursor.execute(f"DROP TRIGGER IF EXISTS {table}_no_change ON {table}")
        for sql in statements:
            cursor.execute(sql)


def _verify(*args: str) -> str:
    err = io.StringIO()
    with pytest.raises(CommandError, match=r"problem\(s\) found") as exc:
        call_command("notebook", "verify", *args, stdout=io.StringIO(), stderr=err)
    assert exc.value.returncode == 1
    return err.getvalue()


def test_verify_passes_an_untouched_notebook(five_rows):
    out = io.StringIO()
    call_command("notebook", "verify", "zelda", stdout=out)
    assert "zelda: 5 rows, chain intact" in out.getvalue()


def test_verify_reports_dropped_triggers(five_rows):
    as_owner()
    assert "append-only trigger missing" in _verify()


def test_verify_finds_a_changed_row(five_rows):
    as_owner("UPDATE notebooks_row SET why = 'she asked for it' WHERE seq = 3")
    assert "zelda: seq 3: content does not match its hash (row changed)" in _verify("zelda")


def test_verify_finds_changed_words(five_rows):
    as_owner("UPDATE notebooks_words SET body = 'always attack first, hard' WHERE body = 'always attack first'")
    assert "zelda: seq 2: words do not match their digest (words changed)" in _verify("zelda")


def test_verify_finds_a_deleted_row(five_rows):
    as_owner("DELETE FROM notebooks_row WHERE seq = 3")
    assert "zelda: seq 4: expected seq 3 (a row is missing or inserted)" in _verify("zelda")


def test_verify_finds_a_deleted_row_even_when_the_seqs_are_closed_up(five_rows):
    as_owner(
        "DELETE FROM notebooks_row WHERE seq = 3",
        "UPDATE notebooks_row SET seq = seq + 1000 WHERE seq > 3",
        "UPDATE notebooks_row SET seq = seq - 1001 WHERE seq > 1000",
    )
    problems = _verify("zelda")
    assert "zelda: seq 3: does not follow the row before it (chain broken)" in problems
    assert "zelda: seq 3: content does not match its hash (row changed)" in problems


def test_verify_finds_deleted_words(five_rows):
    as_owner("DELETE FROM notebooks_words WHERE body = 'the bridge guard swings twice'")
    assert "zelda: seq 4: its words are gone and no redact row names them" in _verify("zelda")


def _forged_strike(*, seq: int, n: int, after: int, hash_: str) -> str:
    """SQL inserting a strike of line n at `seq`, linked to row `after`, with a made-up hash."""
    return (
        "INSERT INTO notebooks_row (notebook_id, seq, op, n, digest, source, by, why, how, at, was_by, prev_hash, hash)"
        f" SELECT notebook_id, {seq}, 'strike', {n}, '', '', 'dad', 'forged', 'retired', at, '', hash, '{hash_}'"
        f" FROM notebooks_row WHERE seq = {after}"
    )


def test_verify_finds_a_row_inserted_in_the_middle(five_rows):
    as_owner(
        "UPDATE notebooks_row SET seq = seq + 1000 WHERE seq >= 3",
        "UPDATE notebooks_row SET seq = seq - 999 WHERE seq > 1000",
        _forged_strike(seq=3, n=2, after=2, hash_="forged"),
    )
    problems = _verify("zelda")
    assert "zelda: seq 3: content does not match its hash (row changed)" in problems
    assert "zelda: seq 4: does not follow the row before it (chain broken)" in problems


def test_verify_finds_a_row_appended_without_its_hash(five_rows):
    as_owner(
        _forged_strike(seq=6, n=4, after=5, hash_="f00d"),
    )
    assert "zelda: seq 6: content does not match its hash (row changed)" in _verify("zelda")


def test_verify_finds_two_rows_swapped(five_rows):
    as_owner(
        "UPDATE notebooks_row SET seq = 1002 WHERE seq = 2",
        "UPDATE notebooks_row SET seq = 2 WHERE seq = 3",
        "UPDATE notebooks_row SET seq = 3 WHERE seq = 1002",
    )
    problems = _verify("zelda")
    assert "zelda: seq 2: does not follow the row before it (chain broken)" in problems
    assert "zelda: seq 2: content does not match its hash (row changed)" in problems


def test_verify_finds_the_last_row_deleted_against_a_pinned_head(five_rows):
    pinned = selectors.head(five_rows).hash
    as_owner("DELETE FROM notebooks_row WHERE seq = 5")
    assert verify_chain(five_rows) == []  # the shorter chain is consistent: only the pinned head tells
    assert f"the pinned head {pinned} is not in the chain" in _verify("zelda", "--pinned", pinned)


def test_verify_accepts_a_pinned_head_that_later_rows_followed(five_rows):
    pinned = selectors.head(five_rows).hash
    services.add(notebook="zelda", text="a sixth line", source="seen", by="pippa", why="later")
    out = io.StringIO()
    call_command("notebook", "verify", "zelda", "--pinned", pinned, stdout=out)
    assert "chain intact" in out.getvalue()


def test_head_and_export_give_the_same_head(five_rows):
    out, err = io.StringIO(), io.StringIO()
    call_command("notebook", "head", "zelda", stdout=out)
    top = selectors.head(five_rows)
    assert out.getvalue().strip() == f"zelda seq 5 head {top.hash}"
    exported = io.StringIO()
    call_command("notebook", "export", "zelda", stdout=exported, stderr=err)
    assert err.getvalue().strip() == f"zelda seq 5 head {top.hash}"
    assert exported.getvalue().strip().splitlines()[-1].endswith(f'"hash": "{top.hash}"}}')
