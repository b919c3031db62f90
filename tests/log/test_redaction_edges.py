"""Redaction at the edges: no redact row from outside, and no copy of the words left behind, in the database's
files or in this process's memory."""

import json
import sqlite3
import time
from unittest import mock

import pytest
from django.db import connections

from notebooks.card import fragments
from notebooks.log import redaction, services
from notebooks.log.files import imports, rowformat
from notebooks.log.files.verify import verify_chain
from notebooks.log.rules.errors import Invalid
from notebooks.log.views import kept, selectors
from notebooks.models import Words
from tests.card_helpers import url
from tests.databases import pg_execute

SECRET = "the admin password is hunter2"


@pytest.fixture
def leaked(dad, notebook):
    services.add(notebook="zelda", text=SECRET, source="seen", by="pippa", why="saw it on the screen")
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="died twice")
    return notebook


def _redact_row(**fields: object) -> str:
    row = {"op": "redact", "n": 1, "redacts": rowformat.digest_of(SECRET), "by": "dad", "why": "a password"}
    return json.dumps({**row, "at": time.time(), **fields})


# ----- a redact row from outside -----------------------------------------------------------------------------------


def test_a_redact_row_appended_from_outside_is_refused_even_by_the_recorded_editor(leaked):
    with pytest.raises(Invalid, match="line 3: a redact row cannot be appended to a notebook's file: redaction is"):
        imports.append_rows(notebook="zelda", lines=[_redact_row()], by_default="harness", first_line=3)
    assert selectors.head(leaked).seq == 2
    assert Words.objects.filter(body=SECRET).exists()
    assert verify_chain(leaked) == []


def test_a_redact_row_appended_with_the_words_it_names_is_refused_too(notebook, dad):
    add = json.dumps({"op": "add", "n": 1, "text": SECRET, "source": "seen", "by": "pippa", "at": time.time()})
    with pytest.raises(Invalid, match="line 2: a redact row cannot be appended"):
        imports.append_rows(notebook="zelda", lines=[add, _redact_row()], by_default="harness")
    assert selectors.head(notebook).seq == 0


def test_an_exported_notebook_with_its_redactions_still_imports(leaked):
    redaction.redact(notebook="zelda", n=1, by="dad", why="a password")
    exported = list(selectors.export(leaked))
    imported = imports.import_notebook(title="copy", lines=exported, by="test")
    assert list(selectors.export(imported.notebook)) == exported
    assert verify_chain(imported.notebook) == []


# ----- the database's files ----------------------------------------------------------------------------------------


@pytest.mark.vendor("sqlite")
def test_every_new_sqlite_connection_overwrites_what_it_deletes_even_where_the_library_does_not(db):
    def default_off(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - a build whose compiled default is off
        raw = sqlite3.connect(*args, **kwargs)
        raw.execute("PRAGMA secure_delete = OFF")
        return raw

    fresh = connections.create_connection("default")
    try:
        with mock.patch("django.db.backends.sqlite3.base.Database.connect", default_off):
            fresh.connect()
        assert fresh.connection.execute("PRAGMA secure_delete").fetchone() == (1,)
    finally:
        fresh.close()


@pytest.mark.vendor("postgresql")
def test_the_words_table_is_vacuumed_once_a_redaction_commits(scratch_db):
    db = scratch_db()  # a database of its own: the redaction commits, as it does outside a test

    def vacuums() -> int:
        found = pg_execute(
            "SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'notebooks_words'", dbname=db.name
        )
        return found[0][0]

    db.manage("notebook", "create", "zelda")
    db.manage("notebook", "add", "zelda", SECRET, "--source", "seen", "--by", "pippa", "--why", "saw it")
    before = vacuums()
    redacted = db.manage("notebook", "redact", "zelda", "1", "--by", "dad", "--why", "a password")
    assert "not vacuumed" not in redacted.stderr
    assert vacuums() == before + 1


# ----- this process's memory ---------------------------------------------------------------------------------------


def _held_in_memory(secret: str) -> list[str]:
    """Where this process still keeps the words: kept views (their lines and turn texts) and card fragments."""
    found = []
    for key, view in list(kept._views.items()):
        if any(secret in (line.text or "") for line in view.lines) or secret in (view.turn or ""):
            found.append(f"kept view {key}")
    for key, held in list(fragments._kept.items()):
        if any(secret in html for html in held.html.values()):
            found.append(f"card fragments {key}")
    return found


def test_no_cache_in_this_process_holds_the_words_once_a_redaction_commits(
    leaked, editor_client, django_capture_on_commit_callbacks
):
    kept.forget()
    fragments.forget_all()
    selectors.view(leaked)  # the live view
    selectors.turn(leaked)  # its turn text
    selectors.view_at_seq(leaked, 1)  # a past view
    selectors.turn(leaked, until=time.time())  # a past view's turn text
    assert editor_client.get(url()).status_code == 200  # the card's rendered lines
    assert len(_held_in_memory(SECRET)) >= 3
    with django_capture_on_commit_callbacks(execute=True):  # a redaction through the API or the command line
        redaction.redact(notebook="zelda", n=1, by="dad", why="a password")
    assert _held_in_memory(SECRET) == []
