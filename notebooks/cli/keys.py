"""`notebook key issue|revoke|list|sign`: the keys outside writers sign vault rows with (docs/vault.md)."""

import json
import os
import re
import sys
from collections.abc import Iterable
from datetime import datetime

from django.core.management.base import BaseCommand, CommandError

from notebooks.cli import JSON, Commands, arg
from notebooks.cli.arguments import BAD_ARGUMENT
from notebooks.log.identity import signing, writer_keys
from notebooks.models import TITLE_PATTERN

SECRET_ENV = "NOTEBOOK_WRITER_KEY"
LISTED = ("key_id", "actor", "editor", "created_at", "created_by", "revoked_at", "revoked_by", "revoked_why")
EXITS = "Exit status: 0 done, 2 bad input, 3 not the editor, 4 no such key, 5 revoked already."
SIGN_HELP = (
    "Read rows from stdin (one JSON object a line) and print each signed for TITLE's file with the key: `kid` and "
    "`mac` added (any it carried replaced), nothing else changed. Needs no database: an outside writer runs it. "
    f"The secret is read from --secret-file, else from ${SECRET_ENV}; it is never printed. Input that is not one "
    "JSON object a line is refused (exit status 2) and nothing is printed."
)

command = Commands(
    group="key",
    help="Writer keys: what proves who wrote a row appended to a vault file (issue, revoke, list, sign).",
    description="Writer keys, issued and revoked like API tokens; an outside writer signs its vault rows with one.",
)


@command(
    arg("--actor", required=True, help="whom the rows it signs are by"),
    arg("--editor", action="store_true", help="the editor's role, while the actor's user holds it"),
    arg("--by", default="cli", help="who issues it (recorded)"),
    description="Issue a key. Exit status: 0 done, 2 bad input, 3 an editor's key for an actor without the role.",
)
def issue(cmd: BaseCommand, o: dict) -> None:
    """Issue a key; its secret is printed once, on the last line."""
    issued = writer_keys.issue(actor=o["actor"], editor=o["editor"], by=o["by"])
    k = issued.key
    role = "editor while their user holds the role" if k.editor else "agent"
    cmd.stdout.write(f"writer key {k.key_id} for {k.actor} ({role}); its secret is shown once, keep it secret:")
    cmd.stdout.write(issued.secret)


@command(
    arg("key_id", metavar="KEY_ID"),
    arg("--by", default="cli", help="who revokes it (recorded)"),
    arg("--why", default="", help="the reason"),
    description=EXITS,
)
def revoke(cmd: BaseCommand, o: dict) -> None:
    """Revoke a key: rows it signs prove nothing from now on."""
    k = writer_keys.revoke(key_id=o["key_id"], by=o["by"], why=o["why"])
    cmd.stdout.write(f"revoked writer key {k.key_id} of {k.actor}: rows it signs prove nothing from now on")


@command(arg("--actor", help="only this actor's keys"), JSON, description=None)
def list_(cmd: BaseCommand, o: dict) -> None:
    """List the keys (never a secret)."""
    found = writer_keys.keys(actor=o["actor"])
    if o["json"]:
        listed = [{name: getattr(k, name) for name in LISTED} for k in found]
        cmd.stdout.write(json.dumps(listed, ensure_ascii=False, indent=1, default=datetime.isoformat))
        return
    if not found:
        cmd.stderr.write("(no writer keys)")
    for k in found:
        state = f"revoked {k.revoked_at:%Y-%m-%d %H:%M} by {k.revoked_by}" if k.revoked_at else "live"
        role = "editor" if k.editor else "agent"
        cmd.stdout.write(f"{k.key_id} {k.actor} {role} created {k.created_at:%Y-%m-%d %H:%M} by {k.created_by} {state}")


def check_title(title: str) -> str:
    if not re.fullmatch(TITLE_PATTERN, title):
        raise CommandError(f"{title!r} is not a notebook title", returncode=BAD_ARGUMENT)
    return title


def check_key_id(key_id: str) -> str:
    if not signing.KEY_ID.fullmatch(key_id):
        raise CommandError(f"{key_id[:40]!r} is not a writer key id (wk and 10 hex digits)", returncode=BAD_ARGUMENT)
    return key_id


def stdin_bytes() -> bytes:
    """Standard input as bytes (a stream without a byte buffer, as tests give, is encoded as UTF-8)."""
    stdin = getattr(sys.stdin, "buffer", None)
    return stdin.read() if stdin is not None else sys.stdin.read().encode("utf-8")


def secret_from(o: dict) -> str:
    """The secret from --secret-file (o['secret_file']), else from $NOTEBOOK_WRITER_KEY; a bad one is exit 2."""
    if o["secret_file"]:
        try:
            with open(o["secret_file"], encoding="utf-8") as f:
                secret = f.read(200).strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read the secret file: {exc}", returncode=BAD_ARGUMENT) from None
    else:
        secret = os.environ.get(SECRET_ENV, "").strip()
        if not secret:
            raise CommandError(f"give the secret with --secret-file FILE or ${SECRET_ENV}", returncode=BAD_ARGUMENT)
    if not signing.SECRET.fullmatch(secret):
        raise CommandError("that is not a writer key's secret (nbw_ and 43 characters)", returncode=BAD_ARGUMENT)
    return secret


@command(
    arg("--notebook", required=True, metavar="TITLE", help="the notebook whose file the rows go to"),
    arg("--key-id", required=True, metavar="KEY_ID"),
    arg("--secret-file", metavar="FILE", help=f"a file holding the secret (default: ${SECRET_ENV})"),
    description=SIGN_HELP,
)
def sign(cmd: BaseCommand, o: dict) -> None:
    """Sign rows read from stdin for a notebook's file."""
    title, key_id = check_title(o["notebook"]), check_key_id(o["key_id"])
    secret = secret_from(o)
    lines = [(k, line) for k, line in enumerate(stdin_bytes().split(b"\n"), 1) if line.strip()]
    signed = signed_rows(lines, title=title, key_id=key_id, secret=secret, nothing="signed")
    if not signed:
        raise CommandError("no rows on stdin: nothing signed", returncode=BAD_ARGUMENT)
    for row in signed:
        cmd.stdout.write(row)


def signed_rows(lines: Iterable[tuple[int, bytes]], *, title: str, key_id: str, secret: str, nothing: str) -> list[str]:
    """Each row with the number a refusal names, signed for TITLE's file with the key; else a refusal."""
    signed = []
    for k, line in lines:
        try:
            row = json.loads(line)
        except ValueError:  # not JSON, or not UTF-8
            row = None
        if not isinstance(row, dict):
            raise CommandError(f"stdin line {k} is not one JSON object: nothing {nothing}", returncode=BAD_ARGUMENT)
        try:
            row = signing.sign(row, key_id, secret, notebook=title)
        except signing.NotCanonical as exc:
            raise CommandError(f"stdin line {k}: {exc}: nothing {nothing}", returncode=BAD_ARGUMENT) from None
        signed.append(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
    return signed
