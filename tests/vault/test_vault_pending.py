"""The vault file that anyone else reads shows a session's change only once it lands (fold.py)."""

from notebooks.sessions import services as sessions
from tests.agent_helpers import older_reader
from tests.vault.vaulttools import add, append_to, at, canonical, file_bytes, outside, signed


def _older_reader(data: bytes) -> list[str]:
    """The file's lines as a reader of the seed's format sees them, in number order."""
    view = older_reader(data.decode().splitlines())
    return [view[n] for n in sorted(view)]


def test_the_vault_file_shows_a_sessions_rows_only_once_it_lands(enabled):
    vault = enabled
    before = _older_reader(file_bytes(vault))
    taken = sessions.take(notebook="zelda", plan="One lesson", by="pippa")
    add("the guard rests after two swings")
    sessions.checkpoint(session=taken.id, note="halfway", by="pippa")  # the file is written meanwhile
    vault.sweep()
    assert _older_reader(canonical()) == before
    sessions.land(session=taken.id, by="pippa", summary="One lesson")
    assert (
        _older_reader(file_bytes(vault))
        == _older_reader(at(vault, "HEAD"))
        == [*before, "the guard rests after two swings"]
    )


def test_an_abandoned_sessions_rows_never_show_in_the_vault_file(enabled):
    vault = enabled
    before = _older_reader(file_bytes(vault))
    taken = sessions.take(notebook="zelda", plan="One lesson", by="pippa")
    add("a line that never counts")
    sessions.abandon(session=taken.id, why="wrong", by="pippa")
    vault.sweep()
    assert _older_reader(file_bytes(vault)) == _older_reader(at(vault, "HEAD")) == before


def test_the_holders_harness_appends_an_edit_of_her_pending_line_to_the_file(enabled):
    vault = enabled
    before = _older_reader(file_bytes(vault))
    taken = sessions.take(notebook="zelda", plan="One lesson", by="pippa")
    add("the guard rests after two swings")  # line 4, proposed
    vault.sweep()
    append_to(
        vault, "zelda", *signed(outside("edit", n=4, to="the guard rests after three swings", by="pippa", why="x"))
    )
    result = vault.sweep()
    assert not result.problems
    assert _older_reader(file_bytes(vault)) == before  # still pending for every other reader
    sessions.land(session=taken.id, by="pippa", summary="One lesson")
    assert _older_reader(file_bytes(vault)) == [*before, "the guard rests after three swings"]
