"""Reliability and security subcommands: redact, head, backup, grants."""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from notebooks.cli import TITLE, Commands, N, arg, until_time
from notebooks.log import redaction
from notebooks.log.files import backup as backups
from notebooks.log.rules.errors import Invalid
from notebooks.log.store import privileges
from notebooks.log.views import selectors

command = Commands()


def _seq_or_digest(parser: Any) -> None:
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--seq", type=int, help="the row whose words go (default: the line's current words)")
    which.add_argument("--digest", help="the digest of the words that go")


@command(
    TITLE,
    N,
    _seq_or_digest,
    arg("--by", required=True, help="the human editor"),
    arg("--why", required=True, help="the reason, shown in place of the words"),
)
def redact(cmd: BaseCommand, o: dict) -> None:
    """Remove a line's words from the database for good (the human editor only); the row stays and reads
    '[redacted: why]'."""
    w = redaction.redact(notebook=o["title"], n=o["n"], seq=o["seq"], digest=o["digest"], by=o["by"], why=o["why"])
    cmd.stdout.write(f"redacted words of line #{w.n} (redact row seq {w.seq})")


@command(TITLE, arg("--until", help="ISO 8601 or epoch seconds: the head as the notebook stood then"))
def head(cmd: BaseCommand, o: dict) -> None:
    """Print a notebook's head: its last seq and hash, to pin what you saw."""
    nb = selectors.get_notebook(o["title"])
    top = selectors.head_at(nb, until=until_time(o["until"]))
    cmd.stdout.write(f"{nb.title} seq {top.seq} head {top.hash}")


@command(arg("dest", help="the file to write; it must not exist"))
def backup(cmd: BaseCommand, o: dict) -> None:
    """Write a consistent copy of the database while it runs (SQLite backup API, pg_dump)."""
    dest = Path(o["dest"])
    backups.backup(dest)
    cmd.stdout.write(f"backup written to {dest}; check it with DATABASE_URL=… manage.py notebook verify")


@command(
    arg("role"), arg("--apply", action="store_true", help="run the statements (as the owner) instead of printing them")
)
def grants(cmd: BaseCommand, o: dict) -> None:
    """PostgreSQL: give a role least privilege (SELECT and INSERT on the log's tables)."""
    try:
        statements = privileges.apply(o["role"]) if o["apply"] else privileges.grant_sql(o["role"])
    except NotImplementedError as exc:
        raise Invalid(str(exc)) from None
    for sql in statements:
        cmd.stdout.write(sql + ";")
    if o["apply"]:
        cmd.stdout.write(f"granted least privilege to {o['role']}")
