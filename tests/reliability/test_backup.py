"""Backups taken while a writer is busy (SQLite's backup API, pg_dump) restore into a database that verifies."""

import re
import shutil
import subprocess
import time

from tests.databases import Commands, Scratch, pg_admin, record, scale, serve_once


def _heads(db: Commands) -> dict[str, tuple[int, str]]:
    out = db.run("notebook", "verify")
    assert "triggers installed; every chain verifies" in out
    return {m[0]: (int(m[1]), m[2]) for m in re.findall(r"^(\S+): (\d+) rows, chain intact, head (\w+)$", out, re.M)}


def _busy_writer(db: Scratch, tmp_path):
    db.stress("setup", "--notebooks", "zelda,metroid")
    log = tmp_path / "writer.jsonl"
    writer = db.start(
        "-m",
        "tests.stress",
        "work",
        "--name",
        "pippa",
        "--notebooks",
        "zelda,metroid",
        "--ops",
        "100000",
        "--seconds",
        "300",
        "--log",
        str(log),
    )
    while not (log.exists() and log.read_text().count("\n") >= scale(10, 300)):
        assert writer.poll() is None, writer.stderr.read()
        time.sleep(0.05)
    return writer


def test_a_backup_taken_during_writes_restores_and_verifies(scratch_templates, tmp_path):
    db = scratch_templates.new()
    with db.commands() as on_live:  # one process for the live database's commands, not one per command
        writer = _busy_writer(db, tmp_path)
        try:
            if db.vendor == "sqlite":
                backup = tmp_path / "backup.sqlite3"
                assert "backup written" in on_live.run("notebook", "backup", str(backup))
                restored = Scratch(
                    "sqlite", f"sqlite:///{tmp_path / 'restored.sqlite3'}", path=tmp_path / "restored.sqlite3"
                )
                shutil.copyfile(backup, restored.path)  # restore: the server stopped, the file copied into place
            else:
                backup = tmp_path / "backup.sql"
                on_live.run("notebook", "backup", str(backup))
                restored = scratch_templates.empty()
                a = pg_admin()
                subprocess.run(
                    [
                        "psql",
                        "-X",
                        "-q",
                        "-v",
                        "ON_ERROR_STOP=1",
                        "-h",
                        a["host"],
                        "-p",
                        str(a["port"]),
                        "-U",
                        a["user"],
                        "-d",
                        restored.name,
                        "-f",
                        str(backup),
                    ],
                    check=True,
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
        finally:
            writer.kill()
            writer.wait()
        db.settle()
        with restored.commands() as on_restored:
            restored_heads = _heads(on_restored)
            live_heads = _heads(on_live)
            assert set(restored_heads) == {"zelda", "metroid"}
            for title, (seq, _hash) in restored_heads.items():
                assert 0 < seq <= live_heads[title][0]
                # The backup is a prefix of the live log: its head is still in the live chain.
                on_live.run("notebook", "verify", title, "--pinned", restored_heads[title][1])
            refused = on_restored.run(
                "notebook",
                "add",
                "zelda",
                "after restore",
                "--source",
                "seen",
                "--by",
                "pippa",
                "--why",
                "restored and writable",
            )
            secret = on_restored.run("notebook", "token", "probe").strip().splitlines()[-1]
    assert "added line" in refused
    assert {nb["title"] for nb in serve_once(restored, secret)["notebooks"]} == {"zelda", "metroid"}
    record(
        "backup and restore",
        method="backup API" if db.vendor == "sqlite" else "pg_dump, then psql",
        rows=sum(s for s, _h in restored_heads.values()),
        verified=True,
    )


def test_a_backup_never_overwrites_a_file(scratch_db, tmp_path):
    db = scratch_db()
    existing = tmp_path / "existing"
    existing.write_text("keep me")
    done = db.manage("notebook", "backup", str(existing), check=False)
    assert done.returncode == 2 and "already exists" in done.stderr
    assert existing.read_text() == "keep me"
