"""A land commits to the database first and to git after, outside any transaction: a slow git holds up no
writer, and a land whose git step failed stands and is committed in git by the next sweep or land."""

import json
import os
import stat
from pathlib import Path

import pytest

from notebooks.log.rules.errors import Conflict
from notebooks.sessions import claims as session_claims
from notebooks.sessions import services as sessions
from notebooks.vault import GitError, Vault
from notebooks.vault import sessions as vault_sessions
from tests.vault.vaulttools import add, at, canonical, commits, file_bytes

GIT_DELAY = 3.0


@pytest.fixture
def git_fails_after_the_database(monkeypatch):  # noqa: ANN001, ANN201
    """The land's commits in git fail once (the check before the database's land still runs git as usual)."""
    real = vault_sessions.land_commits
    failed = []

    def once(git, nb, **kwargs):  # noqa: ANN001, ANN003, ANN202
        if not kwargs.get("check_only") and not failed:
            failed.append(kwargs["session_id"])

            def broken(*args: str, **kw: object) -> bytes:
                if args[0] in ("commit-tree", "update-ref"):
                    raise GitError(f"git {args[0]} failed: No space left on device")
                return type(git).run(git, *args, **kw)

            git.run = broken
        return real(git, nb, **kwargs)

    monkeypatch.setattr(vault_sessions, "land_commits", once)
    return failed


def _semantic(vault: Vault, session_id: int) -> list[dict[str, str]]:
    return [c for c in commits(vault) if f"\nSession: {session_id}\n" in c["body"] and "\nRows: " in c["body"]]


def test_a_land_whose_git_step_fails_stands_and_the_next_sweep_commits_it(enabled, git_fails_after_the_database):
    vault = enabled
    taken = sessions.take(notebook="zelda", plan="Tidy the guard lines", by="pippa")
    seq = add("the guard rests after two swings")
    head = commits(vault)[0]["sha"]

    landed = sessions.land(session=taken.id, by="pippa", summary="One line about the rest.")
    assert git_fails_after_the_database == [taken.id]
    assert landed.result == "landed" and landed.rows == 1
    assert not session_claims.is_open(sessions.Session.objects.get(pk=taken.id))  # the land stands in the database
    assert commits(vault)[0]["sha"] == head and _semantic(vault, taken.id) == []

    result = vault.sweep()  # the watcher's sweep
    (semantic,) = _semantic(vault, taken.id)
    assert result.repaired == [semantic["sha"]]
    assert semantic["author"] == "pippa" and semantic["subject"] == "Tidy the guard lines"
    assert (
        f"Session: {taken.id}\nBase: {sessions.Session.objects.get(pk=taken.id).vault_base}\nRows: {seq}"
        in (semantic["body"])
    )
    assert at(vault, "HEAD") == canonical() == file_bytes(vault)

    again = vault.sweep()
    assert again.repaired == [] and again.commit is None
    assert len(_semantic(vault, taken.id)) == 1


def test_the_next_land_commits_a_missed_land_before_its_own(enabled, git_fails_after_the_database):
    vault = enabled
    first = sessions.take(notebook="zelda", plan="First", by="pippa")
    add("the first session's line")
    sessions.land(session=first.id, by="pippa", summary="one line")
    assert _semantic(vault, first.id) == []

    second = sessions.take(notebook="zelda", plan="Second", by="reflector")  # its take sweeps: the repair runs
    add("the second session's line", by="reflector")
    sessions.land(session=second.id, by="reflector", summary="another line")
    authors = [c["author"] for c in commits(vault) if c in _semantic(vault, first.id) + _semantic(vault, second.id)]
    assert authors == ["reflector", "pippa"]  # newest first: the missed land went in before the second session
    assert at(vault, "HEAD") == canonical()


def test_the_vaults_final_gate_refuses_before_the_database_is_touched(enabled, monkeypatch):
    vault = enabled
    taken = sessions.take(notebook="zelda", plan="Tidy", by="pippa")
    add("the session's line")
    vault.sweep()
    vault.path("zelda").write_bytes(b"rewritten by hand\n")
    events = sessions.SessionEvent.objects.filter(session_id=taken.id).count()
    with pytest.raises(Conflict, match="final gate"):
        sessions.land(session=taken.id, by="pippa", summary="s")
    assert sessions.SessionEvent.objects.filter(session_id=taken.id).count() == events  # no drift, no land event


# ----- a slow git holds up no writer (a file database: an in-memory one shows no locking) -----------------

SETUP = """
import json
import django
django.setup()
from notebooks.log import services
from notebooks.sessions import services as sessions
from notebooks.vault import Vault
services.create_notebook(title="zelda", by="dad")
services.create_notebook(title="mario", by="dad")
services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="seen")
Vault().sweep()
taken = sessions.take(notebook="zelda", plan="Tidy", by="pippa")
services.add(notebook="zelda", text="the guard rests", source="seen", by="pippa", why="seen")
print(json.dumps({"session": taken.id}))
"""

LAND = """
import sys
import django
django.setup()
from notebooks.sessions import services as sessions
print(sessions.land(session=int(sys.argv[1]), by="pippa", summary="one line").result)
"""

ADD_WHILE_GIT_RUNS = """
import pathlib
import sys
import time
import django
django.setup()
from notebooks.log import services
services.add(notebook="mario", text="warm-up", source="seen", by="reflector", why="a first write")
started = pathlib.Path(sys.argv[1])
deadline = time.monotonic() + 120
while not started.exists():
    assert time.monotonic() < deadline, "the land never reached git"
    time.sleep(0.01)
t = time.monotonic()
services.add(notebook="mario", text="written while zelda lands", source="seen", by="reflector", why="seen")
print(time.monotonic() - t)
"""


def _slow_git(where: Path) -> Path:
    """A `git` that sleeps before committing as pippa (the semantic commit: the vault commits as itself) when
    SLOW_GIT_STARTED names a file, which it creates first."""
    bin_dir = where / "bin"
    bin_dir.mkdir()
    script = bin_dir / "git"
    script.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" commit-tree "*)\n'
        '  if [ -n "$SLOW_GIT_STARTED" ] && [ "$GIT_AUTHOR_NAME" = pippa ]; then\n'
        f'    touch "$SLOW_GIT_STARTED"; sleep {GIT_DELAY}\n'
        "  fi;;\n"
        "esac\n"
        'exec /usr/bin/git "$@"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def test_a_write_to_another_notebook_does_not_wait_for_a_lands_git(scratch_db, tmp_path):
    scratch = scratch_db()
    started = tmp_path / "git-started"
    vault_env = {"NOTEBOOK_VAULT": str(tmp_path / "vault"), "NOTEBOOK_VAULT_ENABLED": "1"}
    session = json.loads(scratch.run("-c", SETUP, env=scratch.env(**vault_env)).stdout)["session"]

    slow = {"PATH": f"{_slow_git(tmp_path)}{os.pathsep}{os.environ['PATH']}", "SLOW_GIT_STARTED": str(started)}
    land = scratch.start("-c", LAND, str(session), env=scratch.env(**vault_env, **slow))
    writer = scratch.start("-c", ADD_WHILE_GIT_RUNS, str(started))
    out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    land_still_in_git = land.poll() is None
    took = float(out.split()[-1])
    assert took < GIT_DELAY / 3, f"the add waited {took:.2f} s for the land's git"
    assert land_still_in_git  # it did not wait: the land was still committing in git when the add was done

    out, err = land.communicate(timeout=120)
    assert land.returncode == 0, err
    assert out.split()[-1] == "landed"
    log = Vault(tmp_path / "vault").git.text("log", "-1", "--format=%an%n%B")
    assert log.startswith("pippa\nTidy") and f"Session: {session}" in log
