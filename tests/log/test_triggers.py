import pytest
from django.db import IntegrityError, connection, transaction

from notebooks.log import services
from notebooks.log.store import triggers


@pytest.fixture
def one_line(notebook):
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="seen twice")
    return notebook


def _refused(sql: str) -> None:
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql)


def test_every_trigger_is_installed_after_migrating(db):
    assert triggers.missing() == []


def test_it_refuses_a_raw_update_of_a_row(one_line):
    _refused("UPDATE notebooks_row SET why = 'rewritten'")


def test_it_refuses_a_raw_delete_of_a_row(one_line):
    _refused("DELETE FROM notebooks_row")


def test_it_refuses_a_raw_update_of_words(one_line):
    _refused("UPDATE notebooks_words SET body = 'rewritten'")


def test_it_refuses_renaming_a_notebook(one_line):
    _refused("UPDATE notebooks_notebook SET title = 'other'")


def test_it_refuses_the_databases_own_bulk_rewrite(one_line):
    """SQLite's INSERT OR REPLACE deletes past a trigger unless recursive_triggers is on; PostgreSQL's TRUNCATE
    fires only statement triggers."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA recursive_triggers")
            assert cursor.fetchone()[0] == 1
        columns = 'id, notebook_id, seq, op, n, digest, source, "by", how, "into", at, was_by, prev_hash, hash'
        _refused(f"INSERT OR REPLACE INTO notebooks_row ({columns}, why) SELECT {columns}, 'x' FROM notebooks_row")
    else:
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # deferred FK checks would block TRUNCATE first
        _refused("TRUNCATE notebooks_row CASCADE")
