"""Online backups: SQLite's backup API (a consistent copy while writers go on), pg_dump on PostgreSQL."""

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from django.db import connection as default_connection
from django.db.backends.base.base import BaseDatabaseWrapper

from notebooks.log.rules.errors import Invalid


def backup(dest: Path, connection: BaseDatabaseWrapper = default_connection) -> None:
    """Write a consistent copy of the whole database to `dest` (which must not exist)."""
    if dest.exists():
        raise Invalid(f"{dest} already exists; a backup never overwrites a file.")
    if connection.vendor == "sqlite":
        connection.ensure_connection()
        target = sqlite3.connect(dest)
        try:
            # Copies in steps, restarting a step if a writer changed the page meanwhile; the result is one snapshot.
            connection.connection.backup(target, pages=4096)
        finally:
            target.close()
        return
    if connection.vendor != "postgresql":
        raise Invalid(f"no backup is written for {connection.vendor}")
    pg_dump = shutil.which("pg_dump")
    if pg_dump is None:
        raise Invalid("pg_dump is not installed; install the PostgreSQL client of the server's major version.")
    s = connection.settings_dict
    env = dict(os.environ)
    if s.get("PASSWORD"):
        env["PGPASSWORD"] = s["PASSWORD"]
    args = [pg_dump, "--no-owner", "--no-privileges", "--file", str(dest), "--dbname", s["NAME"]]
    for flag, key in (("--host", "HOST"), ("--port", "PORT"), ("--username", "USER")):
        if s.get(key):
            args += [flag, str(s[key])]
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        dest.unlink(missing_ok=True)
        raise Invalid(f"pg_dump failed: {done.stderr.strip()}")
