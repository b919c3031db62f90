"""Eight processes write at once; every write lands or gets a clear error, and nothing is lost.

Small here; `make reliability` runs the same tests with bigger numbers on SQLite and PostgreSQL.
"""

import json
import time

from tests.databases import record, scale

PROCESSES = 8


def hammer(db, tmp_path, notebooks: list[str], ops: int) -> dict:
    db.stress("setup", "--notebooks", ",".join(notebooks))
    logs = [tmp_path / f"worker{i}.jsonl" for i in range(PROCESSES)]
    started = time.monotonic()
    workers = [
        db.start(
            "-m",
            "tests.stress",
            "work",
            "--name",
            f"pippa{i}",
            "--notebooks",
            ",".join(notebooks),
            "--ops",
            str(ops),
            "--seed",
            str(i),
            "--log",
            str(log),
        )
        for i, log in enumerate(logs)
    ]
    for worker in workers:
        _out, err = worker.communicate(timeout=scale(240, 1200))
        assert worker.returncode == 0, err
    seconds = time.monotonic() - started
    summary = json.loads(db.stress("check", *map(str, logs)).stdout)
    summary["seconds"] = round(seconds, 1)
    return summary


def _assert_nothing_lost(summary: dict, ops: int) -> None:
    assert summary["problems"] == []
    assert summary["attempts"] == PROCESSES * ops
    assert summary["landed"] > PROCESSES * ops // 3
    assert summary["unclaimed"] == 0  # every stored row belongs to a write its writer was told landed


def test_eight_processes_on_one_notebook_lose_nothing(scratch_db, tmp_path):
    ops = scale(12, 250)
    summary = hammer(scratch_db(), tmp_path, ["zelda"], ops)
    _assert_nothing_lost(summary, ops)
    assert summary["notebooks"]["zelda"]["rows"] >= summary["landed"]
    record("concurrency, one notebook", processes=PROCESSES, **_figures(summary))


def test_eight_processes_on_several_notebooks_lose_nothing(scratch_db, tmp_path):
    ops = scale(12, 250)
    summary = hammer(scratch_db(), tmp_path, ["zelda", "metroid", "celeste", "hades"], ops)
    _assert_nothing_lost(summary, ops)
    assert all(nb["rows"] > 0 for nb in summary["notebooks"].values())
    record("concurrency, four notebooks", processes=PROCESSES, **_figures(summary))


def _figures(summary: dict) -> dict:
    rows = sum(nb["rows"] for nb in summary["notebooks"].values())
    return {
        "attempts": summary["attempts"],
        "landed": summary["landed"],
        "refused": summary["refused"],
        "rows": rows,
        "lost": 0,
        "seconds": summary["seconds"],
    }
