"""The index says when a play turn last read each notebook, and an emptied notebook can be archived off it (a mark,
reversible, never a deletion)."""

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from notebooks.card import services as card_services
from notebooks.log import services
from notebooks.log.rules.errors import Invalid
from notebooks.log.views import turn_reads
from notebooks.models import ArchiveMark, Notebook, TurnRead


def _card_of(html: str, title: str) -> str:
    return html[html.index(f"/notebooks/{title}/") :].split("</li>")[0]


def test_a_notebook_no_turn_read_stands_out_and_one_read_says_when_and_by_whom(editor_client, lines, pippa):
    services.create_notebook(title="zelda-stray", by="pippa")
    services.add(notebook="zelda-stray", text="keese are fast", source="seen", by="pippa", why="seen")
    assert pippa.get("/api/notebooks/zelda/turn").status_code == 200
    html = editor_client.get("/").content.decode()
    assert "A turn last read it" in _card_of(html, "zelda") and "by pippa" in _card_of(html, "zelda")
    stray = _card_of(html, "zelda-stray")
    assert "No play turn has read it" in stray and "wrong title" in stray
    assert 'class="box notebook unread"' in html[: html.index("/notebooks/zelda-stray/")].rsplit("<li", 1)[1]


def test_a_frozen_turn_is_not_a_play_turn_and_records_nothing(lines, pippa):
    assert pippa.get("/api/notebooks/zelda/turn", until="2020-01-01T00:00").status_code == 200
    assert not TurnRead.objects.exists()


def test_the_cli_turn_notes_its_reader(lines, capsys):
    call_command("notebook", "turn", "zelda", "--by", "harness")
    read = TurnRead.objects.get(notebook__title="zelda")
    assert read.by == "harness"


def test_a_process_writes_a_notebooks_read_at_most_once_a_minute_and_only_forward(lines):
    nb = Notebook.objects.get(title="zelda")
    assert turn_reads.note_turn_read(nb, "pippa", now=1000.0)
    assert not turn_reads.note_turn_read(nb, "tom", now=1030.0)  # within the minute: nothing written
    assert turn_reads.note_turn_read(nb, "tom", now=1061.0)
    turn_reads.forget()
    assert turn_reads.note_turn_read(nb, "old", now=500.0)  # another process's older clock does not move it back
    read = TurnRead.objects.get(notebook=nb)
    assert (read.at, read.by) == (1061.0, "tom")


def test_a_notebook_with_live_lines_cannot_be_archived(lines):
    with pytest.raises(Invalid, match="still has 3 live lines"):
        card_services.set_archived(notebook="zelda", archived_=True, by="dad")
    assert not ArchiveMark.objects.exists()


def test_an_emptied_notebook_is_archived_off_the_index_and_comes_back(editor_client, lines):
    services.create_notebook(title="stray", by="pippa")
    answer = editor_client.post("/notebooks/stray/archive/", {"archive": "1"})
    assert answer.status_code == 302
    html = editor_client.get("/").content.decode()
    assert "/notebooks/stray/" not in html and "Archived notebooks (1)" in html
    shelf = editor_client.get("/?archived=1").content.decode()
    assert "/notebooks/stray/" in shelf and "Put back on the index" in shelf and "/notebooks/zelda/" not in shelf
    editor_client.post("/notebooks/stray/archive/", {"archive": "0"})
    assert "/notebooks/stray/" in editor_client.get("/").content.decode()
    marks = list(ArchiveMark.objects.order_by("id").values_list("archived", "by"))
    assert marks == [(True, "dad"), (False, "dad")]  # both kept: the record of what he did


def test_an_archived_notebook_that_gets_lines_again_shows_on_the_index(editor_client, lines):
    services.create_notebook(title="stray", by="pippa")
    card_services.set_archived(notebook="stray", archived_=True, by="dad")
    services.add(notebook="stray", text="keese are fast", source="seen", by="pippa", why="seen")
    assert "/notebooks/stray/" in editor_client.get("/").content.decode()


def test_archiving_twice_is_refused_with_a_message(editor_client, lines):
    services.create_notebook(title="stray", by="pippa")
    card_services.set_archived(notebook="stray", archived_=True, by="dad")
    with pytest.raises(Invalid, match="already archived"):
        card_services.set_archived(notebook="stray", archived_=True, by="dad")
    answer = editor_client.post("/notebooks/stray/archive/", {"archive": "1"}, follow=True)
    assert "already archived" in answer.content.decode()


def test_an_agent_signed_in_cannot_archive(client, lines, django_user_model):
    services.create_notebook(title="stray", by="pippa")
    client.force_login(django_user_model.objects.create_user("viewer", password="x" * 20))
    assert client.post("/notebooks/stray/archive/", {"archive": "1"}).status_code == 403
    assert not ArchiveMark.objects.exists()


@pytest.mark.django_db
def test_archive_marks_are_append_only(lines):
    services.create_notebook(title="stray", by="pippa")
    card_services.set_archived(notebook="stray", archived_=True, by="dad")
    for sql in ("UPDATE notebooks_archivemark SET archived = false", "DELETE FROM notebooks_archivemark"):
        with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql)
