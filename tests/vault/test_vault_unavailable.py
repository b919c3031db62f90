"""While git fails or the vault's directory cannot be written, a take or a land is refused whole before its
database transaction: 503 vault_unavailable with Retry-After through the API, the same code and retry_after
through MCP, a clear message and a non-zero exit at the CLI. A refused take leaves no session; a refused land
leaves the session open, and it lands once git works again. After the database's commit, a failure of the vault's
steps (the connection lost too) leaves the change standing and answered as such."""

import errno
import json
import os
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError

from notebooks.agents import mcp_server
from notebooks.log import services
from notebooks.log.identity.roles import Actor
from notebooks.models import Session, SessionEvent
from notebooks.sessions import claims as session_claims
from notebooks.sessions import services as sessions
from notebooks.vault import VaultUnavailable, claimed_titles, mirror, wiring
from tests.vault.vaulttools import add, canonical, commits

# Fails every commit-building git command while the flag file exists, as the soak's fault does.
WRAPPER = """#!/bin/sh
if [ -e "{flag}" ]; then
  for a in "$@"; do
    case "$a" in commit-tree|update-ref|mktree|hash-object) echo "injected git failure" >&2; exit 1;; esac
  done
fi
exec {git} "$@"
"""


@pytest.fixture
def enabled(vault, zelda, settings):  # noqa: ANN001, ANN201
    settings.NOTEBOOK_VAULT_ENABLED = True
    settings.NOTEBOOK_VAULT_CLAIMS = "notebooks.vault.claims.open_session_titles"
    services.create_notebook(title="mario", by="test")
    vault.sweep()
    return vault


@pytest.fixture
def git_fails(tmp_path, monkeypatch):  # noqa: ANN001, ANN201
    """A flag file: while it exists, the `git` first on PATH fails every command that writes an object or a ref."""
    flag, where = tmp_path / "git-fails", tmp_path / "bin"
    where.mkdir()
    wrapper = where / "git"
    wrapper.write_text(WRAPPER.format(flag=flag, git=shutil.which("git")))
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{where}{os.pathsep}{os.environ['PATH']}")
    return flag


@pytest.fixture
def unwritable(monkeypatch):  # noqa: ANN001, ANN201
    """A set: while it holds True, the vault's notebook files cannot be written or appended to (as `chattr +i`
    makes them, which even root cannot write through)."""
    on = {True}

    def refusing(real):  # noqa: ANN001, ANN202
        def write(path: Path, content: bytes, **kwargs: object) -> None:
            if on and path.suffix == ".jsonl":
                raise PermissionError(errno.EPERM, "Operation not permitted", str(path))
            real(path, content, **kwargs)

        return write

    monkeypatch.setattr(mirror, "write_atomic", refusing(mirror.write_atomic))
    monkeypatch.setattr(mirror, "append_bytes", refusing(mirror.append_bytes))
    return on


def drift() -> None:
    """A row outside any session on another notebook: the next take or land must commit it first."""
    add("the pipe leads down", title="mario", by="scout")


def landed_copies() -> list[dict]:
    return [r for r in map(json.loads, canonical().splitlines()) if r.get("lands") is not None]


def assert_refused_503(response, then: str) -> None:  # noqa: ANN001
    assert response.status_code == 503, response.content
    assert response["Retry-After"] == str(VaultUnavailable.retry_after)
    error = response.json()["error"]
    assert error["code"] == "vault_unavailable"
    assert "the vault could not be used" in error["message"] and then in error["message"]


# ----- the API -------------------------------------------------------------------------------------------------


def test_a_take_while_git_fails_is_503_and_takes_no_session(enabled, pippa, git_fails):
    drift()
    git_fails.touch()
    response = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "Tidy the guard lines"})
    assert_refused_503(response, "No session was taken")
    assert "injected git failure" in response.json()["error"]["message"]
    assert not Session.objects.exists() and claimed_titles() == frozenset()

    git_fails.unlink()
    again = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "Tidy the guard lines"})
    assert again.status_code == 201
    assert Session.objects.get().pk == again.json()["id"]


def test_a_land_while_git_fails_is_503_leaves_the_session_open_and_it_lands_later(enabled, pippa, git_fails):
    taken = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "Tidy"}).json()
    added = pippa.post("/api/notebooks/zelda/lines", {"text": "the guard rests", "source": "seen", "why": "saw it"})
    assert added.status_code == 201
    drift()
    head = commits(enabled)[0]["sha"]
    git_fails.touch()
    response = pippa.post(f"/api/sessions/{taken['id']}/land", {"summary": "One line."})
    assert_refused_503(response, "The session stays open")
    session = Session.objects.get(pk=taken["id"])
    assert session_claims.is_open(session) and claimed_titles() == {"zelda"}
    assert not SessionEvent.objects.filter(session=session, kind__in=["land", "refuse"]).exists()
    assert landed_copies() == [] and commits(enabled)[0]["sha"] == head

    git_fails.unlink()
    landed = pippa.post(f"/api/sessions/{taken['id']}/land", {"summary": "One line."})
    assert landed.status_code == 200 and landed.json()["rows"] == 1
    assert [r["lands"] for r in landed_copies()] == [added.json()["seq"]]


def test_a_take_and_a_land_while_the_vault_is_unwritable_are_503(enabled, pippa, unwritable):
    drift()
    response = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "Tidy"})
    assert_refused_503(response, "No session was taken")
    assert "Operation not permitted" in response.json()["error"]["message"]
    assert not Session.objects.exists()


def test_a_land_while_the_vault_is_unwritable_is_503_and_the_session_stays_open(enabled, pippa, unwritable):
    unwritable.clear()
    taken = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "Tidy"}).json()
    pippa.post("/api/notebooks/zelda/lines", {"text": "the guard rests", "source": "seen", "why": "saw it"})
    drift()
    unwritable.add(True)
    assert_refused_503(pippa.post(f"/api/sessions/{taken['id']}/land", {"summary": "x"}), "The session stays open")
    assert session_claims.is_open(Session.objects.get(pk=taken["id"])) and landed_copies() == []
    unwritable.clear()
    assert pippa.post(f"/api/sessions/{taken['id']}/land", {"summary": "x"}).status_code == 200
    assert len(landed_copies()) == 1


def test_a_vault_lock_that_cannot_be_opened_refuses_whole(enabled, pippa, monkeypatch):
    def no_lock(self):  # noqa: ANN001, ANN202
        raise PermissionError(errno.EACCES, "Permission denied", str(self.root / ".git"))

    monkeypatch.setattr(mirror.Vault, "lock", no_lock)
    response = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "Tidy"})
    assert_refused_503(response, "Nothing was done")
    assert not Session.objects.exists()


# ----- MCP and the CLI ----------------------------------------------------------------------------------------


@pytest.fixture
def mcp_tool(monkeypatch):  # noqa: ANN001, ANN201
    """An MCP tool of pippa's, called in this thread and on the test's own connection."""
    monkeypatch.setattr(mcp_server, "close_old_connections", lambda: None)
    monkeypatch.setattr(mcp_server.connections, "close_all", lambda: None)
    server = mcp_server.build(Actor("pippa"))
    return lambda name, **arguments: server._tool_manager.get_tool(name).fn(**arguments)


def test_an_mcp_take_and_land_while_git_fails_are_503_refusals_with_retry_after(enabled, git_fails, mcp_tool):
    drift()
    git_fails.touch()
    refused = mcp_tool("take", notebook="zelda", plan="Tidy")
    assert refused.is_error
    error = refused.structured_content["error"]
    assert error["code"] == "vault_unavailable" and error["retry_after"] == VaultUnavailable.retry_after
    assert refused.content[0].text.startswith("vault_unavailable (503): The take of 'zelda' is refused")
    assert not Session.objects.exists()

    git_fails.unlink()
    taken = mcp_tool("take", notebook="zelda", plan="Tidy")
    mcp_tool("add", notebook="zelda", text="the guard rests", why="saw it")
    drift()
    git_fails.touch()
    refused = mcp_tool("land", session=taken.id, summary="One line.")
    assert refused.is_error and refused.structured_content["error"]["code"] == "vault_unavailable"
    assert session_claims.is_open(Session.objects.get(pk=taken.id))


def test_the_cli_take_and_land_while_git_fails_say_so_and_exit_non_zero(enabled, git_fails):
    drift()
    git_fails.touch()
    with pytest.raises(CommandError) as refused:
        call_command("notebook", "take", "zelda", "--plan", "Tidy", "--by", "pippa", stdout=StringIO())
    assert refused.value.returncode == 1
    assert "The take of 'zelda' is refused" in str(refused.value) and "try again in" in str(refused.value)
    assert not Session.objects.exists()

    git_fails.unlink()
    taken = sessions.take(notebook="zelda", plan="Tidy", by="pippa")
    add("the guard rests")
    drift()
    git_fails.touch()
    with pytest.raises(CommandError) as refused:
        call_command("notebook", "land", str(taken.id), "--summary", "x", "--by", "pippa", stdout=StringIO())
    assert refused.value.returncode == 1 and "The session stays open" in str(refused.value)
    assert session_claims.is_open(Session.objects.get(pk=taken.id))


# ----- after the database's commit ----------------------------------------------------------------------------


@pytest.fixture
def connection_lost_after_the_commit(monkeypatch):  # noqa: ANN001, ANN201
    """The vault's steps after a land's, a checkpoint's or an abandon's commit find the database's connection gone
    (a backend terminated): the change stands, so its answer is the change's, not a 500."""

    def lost(*args: object, **kwargs: object) -> None:
        raise OperationalError("terminating connection due to administrator command")

    for name in ("vault_land_commit", "vault_checkpoint", "vault_abandon"):
        monkeypatch.setattr(wiring, name, lost)


def test_a_land_whose_connection_is_lost_after_its_commit_answers_the_land(
    enabled, pippa, connection_lost_after_the_commit
):
    taken = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "Tidy"}).json()
    pippa.post("/api/notebooks/zelda/lines", {"text": "the guard rests", "source": "seen", "why": "saw it"})
    checkpoint = pippa.post(f"/api/sessions/{taken['id']}/checkpoint", {"note": "halfway"})
    assert checkpoint.status_code == 200
    landed = pippa.post(f"/api/sessions/{taken['id']}/land", {"summary": "One line."})
    assert landed.status_code == 200 and landed.json()["result"] == "landed"
    assert not session_claims.is_open(Session.objects.get(pk=taken["id"])) and len(landed_copies()) == 1

    again = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "Next"}).json()
    abandoned = pippa.post(f"/api/sessions/{again['id']}/abandon", {"why": "nothing to do"})
    assert abandoned.status_code == 200


def test_a_take_refused_because_another_holds_the_notebook_commits_none_of_the_holders_rows(enabled, pippa, reflector):
    """Else the holder's land, once git works again, is refused: its rows "already committed as automatic history"."""
    taken = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "Tidy"}).json()
    pippa.post("/api/notebooks/zelda/lines", {"text": "the guard rests", "source": "seen", "why": "saw it"})
    head = commits(enabled)[0]["sha"]
    refused = reflector.post("/api/sessions", {"notebook": "zelda", "plan": "Mine"})
    assert refused.status_code == 409 and refused.json()["error"]["holder"] == "pippa"
    assert commits(enabled)[0]["sha"] == head
    landed = pippa.post(f"/api/sessions/{taken['id']}/land", {"summary": "One line."})
    assert landed.status_code == 200 and landed.json()["rows"] == 1
