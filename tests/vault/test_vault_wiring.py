"""Sessions reach git when a vault is configured: take, checkpoint, land and abandon through notebooks.sessions."""

import pytest

from notebooks.log.rules.errors import Conflict
from notebooks.sessions import claims as session_claims
from notebooks.sessions import services as sessions
from notebooks.vault import claimed_titles
from tests.vault.vaulttools import (
    add,
    append_to,
    at,
    canonical,
    commits,
    file_bytes,
    outside,
    signed,
)


def test_a_session_lands_as_one_semantic_commit_by_its_actor(enabled):
    vault = enabled
    add("Dad's pending word", by="dad", source="dad")
    taken = sessions.take(notebook="zelda", plan="Tidy the guard lines", by="pippa")
    session = sessions.Session.objects.get(pk=taken.id)
    assert session.vault_base == commits(vault)[0]["sha"]
    assert "before the take of zelda" in commits(vault)[0]["subject"]
    assert claimed_titles() == {"zelda"}

    seq = add("the guard rests after two swings")
    vault.sweep()  # the watcher yields on zelda
    assert at(vault, "HEAD") == at(vault, session.vault_base)
    sessions.checkpoint(session=taken.id, note="halfway", by="pippa")
    assert vault.git.rev(f"refs/checkpoints/{taken.id}") is not None

    landed = sessions.land(session=taken.id, by="pippa", summary="One line about the rest.")
    assert landed.result == "landed"
    top = commits(vault)[0]
    assert top["author"] == "pippa" and top["subject"] == "Tidy the guard lines"
    assert f"Session: {taken.id}\nBase: {session.vault_base}\nRows: {seq}" in top["body"]
    assert at(vault, "HEAD") == canonical() == file_bytes(vault)
    assert claimed_titles() == frozenset()


def test_the_vaults_final_gate_refuses_the_land_and_the_session_stays_open(enabled):
    vault = enabled
    taken = sessions.take(notebook="zelda", plan="Tidy", by="pippa")
    add("the session's line")
    vault.sweep()
    lines = file_bytes(vault).splitlines(keepends=True)
    vault.path("zelda").write_bytes(b"".join(lines[:1] + lines[2:]))
    sessions.checkpoint(session=taken.id, note="after a hand edit", by="pippa")
    with pytest.raises(Conflict, match="final gate"):
        sessions.land(session=taken.id, by="pippa", summary="s")
    assert session_claims.is_open(sessions.Session.objects.get(pk=taken.id))
    vault.sweep()  # evidence kept, file restored
    assert sessions.land(session=taken.id, by="pippa", summary="s").result == "landed"
    assert commits(vault)[0]["author"] == "pippa"


def test_a_session_with_no_rows_lands_as_a_no_op_without_a_commit(enabled):
    vault = enabled
    taken = sessions.take(notebook="zelda", plan="Look only", by="pippa")
    head = commits(vault)[0]["sha"]
    assert sessions.land(session=taken.id, by="pippa", summary="").result == "no-op"
    assert commits(vault)[0]["sha"] == head


def test_an_abandoned_sessions_rows_are_committed_as_drift(enabled):
    vault = enabled
    taken = sessions.take(notebook="zelda", plan="Tidy", by="pippa")
    add("the session's line")
    sessions.abandon(session=taken.id, why="wrong plan", by="pippa")
    assert "abandoned session" in commits(vault)[0]["subject"]
    assert at(vault, "HEAD") == canonical()


def test_an_outside_append_by_the_sessions_actor_joins_the_session(enabled):
    vault = enabled
    taken = sessions.take(notebook="zelda", plan="Tidy", by="pippa")
    append_to(vault, "zelda", *signed(outside(n=4, text="written by the old harness", source="seen", by="pippa")))
    (f,) = vault.sweep().files
    sessions.land(session=taken.id, by="pippa", summary="One line, through the file.")
    assert f"Rows: {f.imported[0]}" in commits(vault)[0]["body"] and commits(vault)[0]["author"] == "pippa"


def test_an_outside_append_by_another_agent_to_a_claimed_notebook_is_refused(enabled):
    vault = enabled
    sessions.take(notebook="zelda", plan="Tidy", by="pippa")
    append_to(vault, "zelda", outside(n=4, text="not mine to write", source="seen", by="reflector"))
    (problem,) = vault.sweep().problems
    assert "line 4: Notebook 'zelda' is claimed by pippa's session" in problem.message
    assert file_bytes(vault) == canonical()
