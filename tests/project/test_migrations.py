"""The migration trap: Django's SQLite table rebuild drops triggers silently; post_migrate puts them back and a
system check (notebooks.E001) fails while one is missing."""

import pytest
from django.core import checks
from django.core.management.sql import emit_post_migrate_signal, emit_pre_migrate_signal
from django.db import IntegrityError, connection, models, transaction
from django.db.migrations.recorder import MigrationRecorder

from notebooks.log import services
from notebooks.log.store import triggers
from notebooks.log.views import selectors
from notebooks.models import Row


def _e001() -> list[checks.CheckMessage]:
    return [m for m in checks.run_checks(include_deployment_checks=False) if m.id == "notebooks.E001"]


def _update_refused() -> bool:
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("UPDATE notebooks_row SET why = 'rewritten'")
    except IntegrityError:
        return True
    return False


@pytest.fixture
def one_line(notebook):
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="seen twice")
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # PostgreSQL alters no table with deferred checks pending
    return notebook


def _add_a_defaulted_column_to_row() -> None:
    """What a later AddField migration does; on SQLite this rebuilds the table (new table, copy, drop, rename).

    As `migrate` does, pre_migrate goes first: it takes out the words' redaction trigger, which names this table.
    """
    emit_pre_migrate_signal(verbosity=0, interactive=False, db="default")
    field = models.TextField(default="", blank=True)
    field.set_attributes_from_name("later_column")
    editor = connection.schema_editor(atomic=False)
    editor.deferred_sql = []  # set by __enter__, which SQLite refuses inside the test's transaction
    editor.add_field(Row, field)
    for sql in editor.deferred_sql:
        editor.execute(sql)


def test_the_triggers_are_there_after_migrating_from_zero(db):
    assert triggers.installed() >= triggers.expected_triggers(connection.vendor)
    assert _e001() == []


def test_adding_a_column_keeps_the_rows_and_the_check_says_whether_the_triggers_survived(one_line):
    _add_a_defaulted_column_to_row()
    with connection.cursor() as cursor:
        cursor.execute("SELECT later_column FROM notebooks_row")
        assert cursor.fetchall() == [("",)]
    assert [line.text for line in selectors.view(one_line)] == ["roll after the second swing"]
    if connection.vendor == "sqlite":
        # The trap: the rebuild dropped the row table's triggers without a word.
        assert triggers.missing() == ["notebooks_row_no_delete", "notebooks_row_no_update"]
        assert not _update_refused()
        (error,) = _e001()
        assert error.level == checks.ERROR
        assert "notebooks_row_no_delete, notebooks_row_no_update" in error.msg
        assert "migrate" in error.hint
    else:
        # PostgreSQL's ALTER TABLE keeps the table and its triggers.
        assert triggers.missing() == []
        assert _update_refused()
        assert _e001() == []


def test_post_migrate_puts_the_triggers_back_after_a_rebuild(one_line):
    _add_a_defaulted_column_to_row()
    emit_post_migrate_signal(verbosity=0, interactive=False, db="default")
    assert triggers.missing() == []
    assert _e001() == []
    assert _update_refused()


def test_the_check_fails_for_each_missing_trigger_until_post_migrate(one_line):
    for name in sorted(triggers.expected_triggers(connection.vendor)):
        table = name.rsplit("_no_", 1)[0]
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TRIGGER {name}" + (f" ON {table}" if connection.vendor == "postgresql" else ""))
        assert triggers.missing() == [name]
        (error,) = _e001()
        assert name in error.msg
        emit_post_migrate_signal(verbosity=0, interactive=False, db="default")
        assert triggers.missing() == []
        assert _e001() == []


def test_a_disabled_trigger_counts_as_missing_on_postgresql(one_line):
    if connection.vendor != "postgresql":
        assert "notebooks_row_no_update" in triggers.installed()  # SQLite triggers cannot be disabled
        return
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE notebooks_row DISABLE TRIGGER notebooks_row_no_change")
    assert triggers.missing() == ["notebooks_row_no_change"]
    assert len(_e001()) == 1
    triggers.install()
    assert triggers.missing() == []


def test_installing_twice_is_harmless(one_line):
    triggers.install()
    triggers.install()
    assert triggers.missing() == []
    assert _update_refused()


def test_a_database_a_newer_release_migrated_fails_the_check(db):
    def newer() -> list[str]:
        return [m.msg for m in checks.run_checks(include_deployment_checks=False) if m.id == "notebooks.E004"]

    assert newer() == []
    MigrationRecorder(connection).record_applied("notebooks", "0015_turn_reads_archive_marks")  # renamed since
    assert newer() == []
    MigrationRecorder(connection).record_applied("notebooks", "0099_from_a_newer_release")
    assert newer() == ["Database 'default' was migrated by a newer release (0099_from_a_newer_release) than this code."]
