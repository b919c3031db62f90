"""A line moved between notebooks in the vault: a sweep writes both files exactly as export prints them, one commit
for both, and an outside append of a move to one file is refused with an alarm, nothing imported."""

from notebooks.log import services
from notebooks.log.identity.roles import Actor
from notebooks.log.moves import move
from notebooks.log.views import selectors
from notebooks.vault import alarms
from tests.vault.vaulttools import append_to, canonical, commits, file_bytes, outside


def test_a_sweep_after_a_move_writes_both_files_as_export_prints_them(vault, zelda):
    services.create_notebook(title="zelda heading", by="pippa")
    services.add(notebook="zelda heading", text="the owl statue saves", source="seen", by="pippa", why="seen")
    vault.sweep(claimed=set())
    before = len(commits(vault))
    move(notebook="zelda heading", n=1, to="zelda", by=Actor("dad", editor=True), why="a wrong title")
    result = vault.sweep(claimed=set())
    assert sorted(f.appended for f in result.files) == [1, 1]
    assert len(commits(vault)) == before + 1
    assert file_bytes(vault) == canonical() and file_bytes(vault, "zelda heading") == canonical("zelda heading")
    assert b'"moved_from": "zelda heading", "moved_from_n": 1' in file_bytes(vault)
    assert b'"how": "moved", "into": null' in file_bytes(vault, "zelda heading")
    assert vault.sweep(claimed=set()).commit is None  # the files are the log's: nothing more to write
    assert alarms.vault_alarms() == []


def test_an_outside_append_of_a_move_is_refused_with_an_alarm(vault, zelda):
    services.create_notebook(title="zelda 2", by="dad")
    vault.sweep(claimed=set())
    good = file_bytes(vault)
    row = outside("strike", n=1, how="moved", moved_to="zelda 2", moved_to_n=1, by="dad", why="elsewhere")
    append_to(vault, "zelda", row)
    vault.sweep(claimed=set())
    assert "a move writes both notebooks at once" in alarms.vault_alarms()[0].message
    assert selectors.head(zelda).seq == 3 and file_bytes(vault) == good
    assert selectors.view(selectors.get_notebook("zelda 2")) == []
