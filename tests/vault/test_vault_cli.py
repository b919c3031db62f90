"""The vault's commands as real processes, against a file database migrated for them."""

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.databases import ROOT


@pytest.fixture(scope="module")
def site(tmp_path_factory):  # noqa: ANN001, ANN201
    """A migrated SQLite file and a vault directory, for processes of their own (the test database is not theirs)."""
    where = tmp_path_factory.mktemp("vault_cli")
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{where / 'db.sqlite3'}",
        "NOTEBOOK_VAULT": str(where / "vault"),
        "SECRET_KEY": "a-test-key-for-the-vault-cli-tests-only",
        "DJANGO_SETTINGS_MODULE": "notebook_site.settings",
        "PYTHONWARNINGS": "ignore",
    }
    env.pop("NOTEBOOKS_TEST_REPORT", None)
    run = lambda *args, **kw: _manage(env, *args, **kw)  # noqa: E731
    assert run("migrate", "--no-input", "-v", "0").returncode == 0
    run("notebook", "create", "zelda")
    run("notebook", "add", "zelda", "rolle après le 2ᵉ coup — ✓", "--source", "seen", "--by", "pippa", "--why", "vu")
    return env, where / "vault"


def _manage(env: dict, *args: str, extra: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env={**env, **(extra or {})}, capture_output=True, timeout=120
    )


def test_export_prints_the_vaults_file_byte_for_byte_whatever_the_locale(site):
    env, vault = site
    assert _manage(env, "notebook", "vault", "sync").returncode == 0
    for extra in ({}, {"LC_ALL": "C", "LANG": "C"}, {"PYTHONIOENCODING": "latin-1"}):
        done = _manage(env, "notebook", "export", "zelda", extra=extra)
        assert done.returncode == 0, done.stderr
        assert done.stdout == (vault / "zelda.jsonl").read_bytes()
    assert "après".encode() in done.stdout


def test_sync_exits_non_zero_and_says_so_on_stderr_when_it_refuses_a_file(site):
    env, vault = site
    _manage(env, "notebook", "vault", "sync")
    good = (vault / "zelda.jsonl").read_bytes()
    (vault / "zelda.jsonl").write_text("rewritten by hand\n")
    done = _manage(env, "notebook", "vault", "sync")
    assert done.returncode == 6
    assert b"REFUSED zelda.jsonl is not an append of the log" in done.stderr
    assert (vault / "zelda.jsonl").read_bytes() == good


def test_watch_sweeps_until_it_is_stopped(site):
    env, vault = site
    _manage(env, "notebook", "add", "zelda", "for the watcher", "--source", "seen", "--by", "pippa", "--why", "x")
    watcher = subprocess.Popen(
        [sys.executable, "manage.py", "notebook", "vault", "watch", "--interval", "0.2"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        # Until its first sweep the file may not exist yet: only an earlier test's `vault sync` made it.
        while not (vault / "zelda.jsonl").exists() or b"for the watcher" not in (vault / "zelda.jsonl").read_bytes():
            assert time.monotonic() < deadline, "the watcher never wrote the row"
            time.sleep(0.1)
        watcher.send_signal(signal.SIGTERM)
        out, err = watcher.communicate(timeout=30)
    finally:
        if watcher.poll() is None:
            watcher.kill()
    assert watcher.returncode == 0, err
    assert b"watching" in out and out.rstrip().endswith(b"stopped")
