"""kill -9 in the middle of a large import and of a burst of writes: afterwards the database is consistent,
the import is all or nothing, every write a writer was told landed is there, the chains verify and the server
starts again."""

import json
import os
import random
import signal
import time

from tests.databases import Scratch, pg_admin, record, scale, serve_once


class Watch:
    """Tells when an import's transaction is inserting rows (not merely reading the file): SQLite's WAL file is
    growing, or PostgreSQL shows an INSERT or COPY into the log's tables (asked on one kept connection)."""

    def __init__(self, db: Scratch) -> None:
        self.db = db
        self.conn = None
        if db.vendor == "sqlite":
            self.wal = db.path.with_name(db.path.name + "-wal")
            self.wal_before = self.wal.stat().st_size if self.wal.exists() else 0
        else:
            import psycopg

            a = pg_admin()
            self.conn = psycopg.connect(dbname="postgres", autocommit=True, **{k: v for k, v in a.items() if v})

    def writing(self) -> bool:
        if self.conn is None:
            return self.wal.exists() and self.wal.stat().st_size > self.wal_before + 256 * 1024
        found = self.conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND state = 'active' "
            "AND (query ILIKE 'INSERT INTO %%notebooks_%%' OR query ILIKE 'COPY notebooks_%%')",
            [self.db.name],
        ).fetchone()
        return found[0] > 0

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


def _kill_while_writing(db: Scratch, proc, rng: random.Random) -> bool:
    """Kill -9 the process a little after it starts writing; False if it finished first."""
    watch = Watch(db)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            if watch.writing():
                time.sleep(rng.uniform(0, 0.05))  # a PostgreSQL COPY of the whole file takes a fraction of a second
                if proc.poll() is not None:
                    break
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                return True
            time.sleep(0.002)
        proc.wait()
        return False
    finally:
        watch.close()


def _check(db: Scratch, *logs) -> dict:
    db.settle()
    summary = json.loads(db.stress("check", *map(str, logs)).stdout)
    assert summary["problems"] == []
    return summary


def test_an_import_killed_midway_is_all_or_nothing(scratch_db, tmp_path):
    db = scratch_db()
    rows = scale(10_000, 100_000)
    big = tmp_path / "big.jsonl"
    db.stress("generate", "--rows", str(rows), "--out", str(big), "--seed", "7")
    rng = random.Random(7)
    kills, attempts, wanted = 0, 0, scale(1, 5)
    while kills < wanted and attempts < 3 * wanted:
        attempts += 1
        title = f"big{attempts}"
        proc = db.start("manage.py", "notebook", "import", str(big), "--title", title)
        killed = _kill_while_writing(db, proc, rng)
        kills += killed
        stored = _check(db)["notebooks"].get(title, {"rows": 0})["rows"]
        assert stored == (0 if killed else rows)  # all or nothing
    assert kills == wanted, "the kills did not land while the import was writing"
    db.manage("notebook", "import", str(big), "--title", "big", timeout=scale(300, 1800))
    summary = _check(db)
    assert summary["notebooks"]["big"]["rows"] == rows
    assert "big" in {nb["title"] for nb in serve_once(db)["notebooks"]}
    record("kill -9 during an import", rows=rows, kills=kills, rows_after_kill=0, lost=0)


def test_a_burst_of_writes_killed_keeps_every_landed_write(scratch_db, tmp_path):
    db = scratch_db()
    notebooks = "zelda,metroid"
    db.stress("setup", "--notebooks", notebooks)
    rng = random.Random(11)
    logs, killed = [], 0
    for burst in range(scale(1, 5)):
        batch = []
        for i in range(scale(6, 8)):
            log = tmp_path / f"burst{burst}-{i}.jsonl"
            logs.append(log)
            batch.append(
                (
                    log,
                    db.start(
                        "-m",
                        "tests.stress",
                        "work",
                        "--name",
                        f"pippa{burst}x{i}",
                        "--notebooks",
                        notebooks,
                        "--ops",
                        "100000",
                        "--seconds",
                        "120",
                        "--seed",
                        str(100 * burst + i),
                        "--log",
                        str(log),
                    ),
                )
            )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not all(
            log.exists() and log.read_text().count("\n") >= 3 for log, _ in batch
        ):
            time.sleep(0.05)
        for _log, proc in batch:
            time.sleep(rng.uniform(0, 0.2))
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            killed += 1
    summary = _check(db, *logs)
    # A writer killed between its commit and its log line leaves rows nobody claims: at most one write each.
    assert summary["unclaimed"] <= killed * 3
    assert summary["landed"] > 0
    assert {nb["title"] for nb in serve_once(db)["notebooks"]} == {"zelda", "metroid"}
    after = db.manage("notebook", "add", "zelda", "still writable", "--source", "seen", "--by", "pippa", "--why", "x")
    assert "added line" in after.stdout
    _check(db)
    record(
        "kill -9 during bursts of writes",
        processes_killed=killed,
        landed=summary["landed"],
        rows=sum(nb["rows"] for nb in summary["notebooks"].values()),
        unclaimed=summary["unclaimed"],
        lost=0,
    )
