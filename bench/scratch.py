"""Fresh databases for the benchmarks, and the CPU a process has used: shared by every bench that starts its own."""

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")


def psql(sql: str) -> None:
    """One statement on the PostgreSQL server's maintenance database, outside any transaction."""
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(sql)


@contextmanager
def fresh_database(vendor: str, name: str, folder: Path) -> Iterator[str]:
    """The URL of an empty database, dropped again on the way out (a SQLite file in `folder`, left for a look)."""
    if vendor == "sqlite":
        path = folder / f"{name}.sqlite3"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        yield f"sqlite:///{path}"
        return
    psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    psql(f"CREATE DATABASE {name}")
    try:
        yield f"{PG}/{name}"
    finally:
        psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def process_cpu(pid: int) -> float | None:
    """User and system CPU seconds of a process on this machine (a database backend), from /proc; None if gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
