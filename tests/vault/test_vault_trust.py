"""Issue 22 in the vault: no file system trick (a link, a special file, a repository planted by another user) gets
anything read or run, files get the mode the setting names, and what comes from outside (a row's `by`, a huge
value, a file's name) is checked and cut before it reaches an alarm, a commit message or the watcher's log."""

import json
import os
import stat
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from notebooks.models import VaultAlarm
from notebooks.vault import GitError, Vault
from tests.vault.vaulttools import add, append_to, at, canonical, commits, file_bytes, outside

SECRET = b"SECRET_KEY=do-not-leak-this-one\n"


def test_a_link_in_a_notebooks_place_is_never_read_nor_committed(vault, zelda, tmp_path):
    vault.sweep()
    secret = tmp_path / "secret_key"
    secret.write_bytes(SECRET)
    leak = vault.root / "leak.jsonl"
    leak.symlink_to(secret)
    path = vault.path("zelda")
    path.unlink()
    path.symlink_to(secret)
    result = vault.sweep()
    assert {f.title: f.problem for f in result.problems} == {"leak": "not_a_file", "zelda": "not_a_file"}
    for ref in [sha for _, sha in vault.git.refs("refs/")]:
        tree = vault.git.ls_tree(ref)
        assert all(SECRET not in vault.git.blob(blob) for blob in tree.values()), ref
    assert secret.read_bytes() == SECRET  # the target is untouched
    assert not leak.exists() and not leak.is_symlink()
    assert not path.is_symlink() and file_bytes(vault) == canonical()  # written again from the log
    assert VaultAlarm.objects.filter(problem="not_a_file").count() == 2
    assert "symbolic link" in VaultAlarm.objects.get(title="zelda").message


def test_a_link_to_a_file_that_reads_as_rows_is_not_imported(vault, zelda, tmp_path):
    vault.sweep()
    target = tmp_path / "rows.jsonl"
    target.write_bytes(file_bytes(vault) + outside(n=4, text="via a link", source="seen", by="pippa").encode() + b"\n")
    path = vault.path("zelda")
    path.unlink()
    path.symlink_to(target)
    result = vault.sweep()
    assert result.problems[0].problem == "not_a_file" and not result.problems[0].imported
    assert b"via a link" not in canonical()


def test_a_named_pipe_is_refused_without_blocking(vault, zelda):
    vault.sweep()
    fifo = vault.root / "pipe.jsonl"
    os.mkfifo(fifo)
    result = vault.sweep()  # an open for reading would wait for a writer forever
    assert [f.problem for f in result.problems] == ["not_a_file"]
    assert "named pipe" in result.problems[0].message and not fifo.exists()


def test_appends_never_follow_a_link(vault, zelda, tmp_path):
    from notebooks.vault.state import NotRegular, append_bytes

    target = tmp_path / "elsewhere"
    target.write_bytes(b"")
    link = vault.root / "x.jsonl"
    link.symlink_to(target)
    with pytest.raises(NotRegular):
        append_bytes(link, b"{}\n")
    assert target.read_bytes() == b""


def _chown_tree(root: Path, uid: int) -> None:
    for where, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            os.lchown(os.path.join(where, name), uid, -1)
    os.lchown(root, uid, -1)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a directory to another user needs root")
def test_a_repository_another_user_owns_is_refused_with_a_clear_error(vault, zelda):
    vault.sweep()
    hook = vault.root / ".git" / "hooks" / "post-index-change"
    ran = vault.root.parent / "hook-ran"
    hook.write_text(f"#!/bin/sh\ntouch {ran}\n")
    hook.chmod(0o755)
    _chown_tree(vault.root / ".git", 65534)
    add("a new row")
    with pytest.raises(GitError, match="owned by uid 65534"):
        Vault(vault.root).sweep()
    assert not ran.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a directory to another user needs root")
def test_a_vault_directory_another_user_owns_is_refused(vault, zelda):
    os.lchown(vault.root, 65534, -1)
    with pytest.raises(GitError, match="not a directory owned by this service's user"):
        Vault(vault.root).sweep()


def test_git_never_runs_with_its_ownership_check_turned_off(vault, monkeypatch):
    seen = []
    real = subprocess.run

    def spy(command, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        seen.append(command)
        return real(command, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", spy)
    vault.sweep()
    assert seen and not any("safe.directory" in part for command in seen for part in command)


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_vault_files_get_the_mode_the_setting_names(vault, zelda, settings):
    settings.NOTEBOOK_VAULT_FILE_MODE = 0o660
    old = os.umask(0o077)  # whatever the service's umask
    try:
        vault.sweep()  # a new file
        assert _mode(vault.path("zelda")) == 0o660
        append_to(vault, "zelda", outside(n=4, text="from outside", source="seen", by="pippa"))
        vault.sweep()  # replaced, with the imported row's seq and hash
        assert _mode(vault.path("zelda")) == 0o660
        add("written by the log")
        vault.sweep()  # appended in place
        assert _mode(vault.path("zelda")) == 0o660
        assert _mode(vault.root / ".git" / "notebooks-vault-state.json") == 0o600  # the vault's own: not theirs
    finally:
        os.umask(old)


def test_the_default_file_mode_is_the_service_users_alone(vault, zelda):
    vault.sweep()
    assert _mode(vault.path("zelda")) == 0o600


# ----- what comes from outside -------------------------------------------------------------------------------


def test_a_huge_refused_value_is_cut_in_its_alarm(vault, zelda):
    vault.sweep()
    append_to(vault, "zelda", json.dumps({"op": "x" * 2_000_000, "n": 4, "at": 1}))
    result = vault.sweep()
    assert result.problems[0].problem == "refused_append"
    alarm = VaultAlarm.objects.get()
    assert len(alarm.message) <= 500 and "unknown op" in alarm.message
    assert len(result.problems[0].message) <= 500


@pytest.mark.parametrize("name", ["pippa\n\nSession: 9\nRows: 1-4", "\x1b[31mpippa\x1b[0m", "pip\rpa"])
def test_a_rows_by_with_a_control_character_is_refused_and_reaches_no_commit_or_log(vault, zelda, name):
    vault.sweep()
    append_to(vault, "zelda", outside(n=4, text="forged trailers", source="seen", by=name))
    out, err = StringIO(), StringIO()
    with pytest.raises(Exception):  # noqa: B017, PT011 - the command exits non-zero: the file was refused
        call_command("notebook", "vault", "sync", "--vault", str(vault.root), stdout=out, stderr=err)
    assert "control character" in err.getvalue()
    for commit in commits(vault):
        assert "Session: 9" not in commit["body"] and "\x1b" not in commit["body"] and "\r" not in commit["body"]
    assert "\x1b" not in out.getvalue() + err.getvalue() and "\r" not in out.getvalue() + err.getvalue()
    assert b"forged trailers" not in canonical()
    assert at(vault, "HEAD") == canonical()


def test_the_watchers_report_of_a_file_name_is_one_line(vault, zelda):
    (vault.root / "bad\x1b[31mname\n.jsonl").write_text("")
    lines = vault.sweep().report()
    assert any("ignored" in line for line in lines)
    assert all(line.isprintable() for line in lines)
