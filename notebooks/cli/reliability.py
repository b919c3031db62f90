"""Reliability and security subcommands: redact, head, backup, grants."""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from notebooks.log import redaction
from notebooks.log.files import backup as backups
from notebooks.log.rules import checks
from notebooks.log.rules.errors import Invalid
from notebooks.log.store import privileges
from notebooks.log.views import selectors


def register(subparsers: Any, command: BaseCommand) -> None:
    def sub(name: str, handler: Any, help: str) -> Any:
        parser = subparsers.add_parser(name, help=help, description=help)
        parser.set_defaults(handler=handler)
        return parser

    p = sub(
        "redact",
        redact,
        "Remove a line's words from the database for good (the human editor only); the row stays and reads "
        "'[redacted: why]'.",
    )
    p.add_argument("title")
    p.add_argument("n", type=int)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--seq", type=int, help="the row whose words go (default: the line's current words)")
    which.add_argument("--digest", help="the digest of the words that go")
    p.add_argument("--by", required=True, help="the human editor")
    p.add_argument("--why", required=True, help="the reason, shown in place of the words")

    p = sub("head", head, "Print a notebook's head: its last seq and hash, to pin what you saw.")
    p.add_argument("title")
    p.add_argument("--until", help="ISO 8601 or epoch seconds: the head as the notebook stood then")

    p = sub("backup", backup, "Write a consistent copy of the database while it runs (SQLite backup API, pg_dump).")
    p.add_argument("dest", help="the file to write; it must not exist")

    p = sub("grants", grants, "PostgreSQL: give a role least privilege (SELECT and INSERT on the log's tables).")
    p.add_argument("role")
    p.add_argument("--apply", action="store_true", help="run the statements (as the owner) instead of printing them")


def redact(cmd: BaseCommand, o: dict) -> None:
    w = redaction.redact(notebook=o["title"], n=o["n"], seq=o["seq"], digest=o["digest"], by=o["by"], why=o["why"])
    cmd.stdout.write(f"redacted words of line #{w.n} (redact row seq {w.seq})")


def head(cmd: BaseCommand, o: dict) -> None:
    nb = selectors.get_notebook(o["title"])
    until = o["until"]
    top = selectors.head_at(nb, until=None if until is None else checks.parse_when(until))
    cmd.stdout.write(f"{nb.title} seq {top.seq} head {top.hash}")


def backup(cmd: BaseCommand, o: dict) -> None:
    dest = Path(o["dest"])
    backups.backup(dest)
    cmd.stdout.write(f"backup written to {dest}; check it with DATABASE_URL=… manage.py notebook verify")


def grants(cmd: BaseCommand, o: dict) -> None:
    try:
        statements = privileges.apply(o["role"]) if o["apply"] else privileges.grant_sql(o["role"])
    except NotImplementedError as exc:
        raise Invalid(str(exc)) from None
    for sql in statements:
        cmd.stdout.write(sql + ";")
    if o["apply"]:
        cmd.stdout.write(f"granted least privilege to {o['role']}")
