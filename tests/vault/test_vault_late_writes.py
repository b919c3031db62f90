"""Rows an outside writer appends while a sweep replaces the file (to give imported rows their seq and hash)
are never lost: those that reach the old file are found through a link the vault keeps to it, and imported."""

from io import StringIO

import pytest
from django.core.management import call_command

from notebooks.log.views import selectors
from notebooks.vault import alarms
from tests.vault.vaulttools import append_to, canonical, file_bytes, outside


def texts(notebook) -> list[str]:  # noqa: ANN001
    return [line.text for line in selectors.view(notebook)]


def test_a_row_appended_between_the_sweeps_read_and_its_replace_is_imported(vault, zelda, monkeypatch):
    import notebooks.vault.mirror as mirror

    vault.sweep(claimed=set())
    append_to(vault, "zelda", outside(n=4, text="the east gate opens at dawn", source="seen", by="pippa"))
    real = mirror.write_atomic
    late = outside(n=5, text="the west gate stays shut", source="seen", by="pippa")

    def a_writer_strikes_just_before_the_replace(path, content):  # noqa: ANN001, ANN202
        if path == vault.path("zelda"):
            append_to(vault, "zelda", late)  # after the sweep's last look at the file, before os.replace
        return real(path, content)

    monkeypatch.setattr(mirror, "write_atomic", a_writer_strikes_just_before_the_replace)
    first = vault.sweep(claimed=set())
    monkeypatch.undo()
    assert first.problems == []
    vault.sweep(claimed=set())
    assert "the east gate opens at dawn" in texts(zelda)
    assert "the west gate stays shut" in texts(zelda)
    assert texts(zelda).count("the west gate stays shut") == 1
    assert alarms.vault_alarms() == []
    assert file_bytes(vault) == canonical()


def test_a_row_written_through_a_handle_opened_before_the_replace_is_imported(vault, zelda):
    vault.sweep(claimed=set())
    append_to(vault, "zelda", outside(n=4, text="the east gate opens at dawn", source="seen", by="pippa"))
    with open(vault.path("zelda"), "a", encoding="utf-8") as writer:  # a writer that opened the file earlier
        vault.sweep(claimed=set())  # imports row 4 and replaces the file the handle still points at
        writer.write(outside(n=5, text="the west gate stays shut", source="seen", by="pippa") + "\n")
    vault.sweep(claimed=set())
    vault.sweep(claimed=set())
    assert texts(zelda).count("the west gate stays shut") == 1
    assert alarms.vault_alarms() == []
    assert file_bytes(vault) == canonical()


def test_a_replace_that_fails_leaves_no_link_that_could_import_a_row_twice(vault, zelda, monkeypatch):
    import notebooks.vault.mirror as mirror

    vault.sweep(claimed=set())
    append_to(vault, "zelda", outside(n=4, text="the east gate opens at dawn", source="seen", by="pippa"))

    def full(path, content):  # noqa: ANN001, ANN202
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(mirror, "write_atomic", full)
    with pytest.raises(OSError):
        vault.sweep(claimed=set())
    monkeypatch.undo()
    append_to(vault, "zelda", outside(n=5, text="the west gate stays shut", source="seen", by="pippa"))
    vault.sweep(claimed=set())
    vault.sweep(claimed=set())
    assert texts(zelda).count("the east gate opens at dawn") == 1
    assert texts(zelda).count("the west gate stays shut") == 1
    assert alarms.vault_alarms() == []
    assert file_bytes(vault) == canonical()


def test_vault_append_appends_under_the_lock_and_imports(vault, zelda, monkeypatch):
    rows = outside(n=4, text="the east gate opens at dawn", source="seen", by="pippa") + "\n"
    monkeypatch.setattr("sys.stdin", StringIO(rows))
    out = StringIO()
    call_command("notebook", "vault", "append", "zelda", stdout=out)
    assert "zelda.jsonl" in out.getvalue()
    assert "the east gate opens at dawn" in texts(zelda)
    assert file_bytes(vault) == canonical()


def test_vault_append_refuses_what_is_not_one_json_object_a_line_and_appends_nothing(vault, zelda, monkeypatch):
    from django.core.management.base import CommandError

    vault.sweep(claimed=set())
    before = file_bytes(vault)
    monkeypatch.setattr("sys.stdin", StringIO('{"op": "add", "n": 4}\nnot json\n'))
    with pytest.raises(CommandError) as refused:
        call_command("notebook", "vault", "append", "zelda")
    assert refused.value.returncode == 2 and "line 2" in str(refused.value)
    assert file_bytes(vault) == before


def test_a_notebook_started_from_a_file_that_could_not_be_rewritten_takes_the_rows_appended_since(
    vault, dad, monkeypatch
):
    import notebooks.vault.mirror as mirror
    from notebooks.log.views import selectors as log_selectors

    append_to(vault, "feed", outside(n=1, text="the east gate opens at dawn", source="seen", by="pippa"))

    def moved(*args: object) -> None:
        raise mirror._Moved  # the writer appended again before the new notebook's file could be rewritten

    monkeypatch.setattr(mirror.Vault, "_write", moved)
    assert vault.sweep(claimed=set()).files[0].waiting
    monkeypatch.undo()
    append_to(vault, "feed", outside(n=2, text="the west gate stays shut", source="seen", by="pippa"))
    result = vault.sweep(claimed=set())
    assert result.problems == [] and alarms.vault_alarms() == []
    feed = log_selectors.get_notebook("feed")
    assert texts(feed) == ["the east gate opens at dawn", "the west gate stays shut"]
    assert file_bytes(vault, "feed") == canonical("feed")
