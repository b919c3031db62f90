"""`notebook vault sync|watch|append|alarms|ack`: the notebooks mirrored as JSONL files in a git repository."""

import argparse
import json
import math
import signal
import threading
from dataclasses import asdict
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from notebooks.cli import JSON, Commands, arg, iso, keys
from notebooks.log.rules.checks import shown
from notebooks.vault import SweepResult, Vault
from notebooks.vault import alarms as vault_alarms
from notebooks.vault import watch as watch_vault
from notebooks.vault.fileformat import json_object
from notebooks.vault.state import NotRegular, append_bytes, read_bytes_or_none

# Exit status of a sweep that refused a file (kept as evidence, restored from the log).
REFUSED = 6


SYNC_HELP = (
    "One sweep: rows appended to a file by an outside writer are checked and imported (each by the writer its "
    "key proves, an unsigned one by the outside agent or refused: docs/vault.md), "
    "the log's new rows are written to their files, and one commit records what changed. A file that is not an "
    f"append of the log is refused: kept on an evidence branch, restored, reported; the exit status is {REFUSED}."
)
APPEND_HELP = (
    "Append the JSON rows read from stdin (one object a line) to NOTEBOOK's file while holding the vault's lock, "
    "so no sweep reads or replaces the file meanwhile; then one sweep imports them (all or nothing). Input that is "
    f"not one JSON object a line is refused (exit status 2) and nothing is appended; a refused append exits {REFUSED}."
)
WATCH_HELP = "A sweep every --interval seconds until stopped (SIGINT or SIGTERM); refusals are reported on stderr."


BY = arg(
    "--by",
    help="who started a notebook a new file brings (default: NOTEBOOK_VAULT_DEFAULT_BY); never a row's author: "
    "a row is by the writer its key proves, else the outside agent (NOTEBOOK_VAULT_OUTSIDE_AGENT)",
)
command = Commands(
    group="vault",
    help="The vault: every notebook as its JSONL file in git (sync, watch, append, alarms, ack).",
    description="The vault: every notebook mirrored as its append-only JSONL file in a git repository.",
)


def _vault_option(parser: Any) -> None:
    """--vault, its help naming the vault the settings give when the parser is made."""
    parser.add_argument(
        "--vault", help=f"the vault's directory (default: NOTEBOOK_VAULT, now {settings.NOTEBOOK_VAULT})"
    )


def _seconds(raw: str) -> float:
    """A wait between sweeps, in seconds: finite and not negative."""
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{raw!r} is not a number of seconds, 0 or more (like 2 or 0.5)")
    return value


def _vault(o: dict) -> Vault:
    """The vault, created if absent; a path that cannot hold one is a one-line refusal, not a traceback."""
    vault = Vault(o["vault"])
    if vault.root.exists() and not vault.root.is_dir():
        raise CommandError(f"cannot use {vault.root} as the vault: it is a file, not a directory", returncode=1)
    try:
        vault.ensure()
    except OSError as exc:
        raise CommandError(f"cannot use {vault.root} as the vault: {exc.strerror or exc}", returncode=1) from None
    return vault


def _report(cmd: BaseCommand, *results: SweepResult, refuse: bool = True) -> None:
    """What each sweep did, its refusals on stderr; a refusal by the last exits REFUSED unless not `refuse` (a watcher
    goes on)."""
    for result in results:
        for line in result.report():
            cmd.stdout.write(line)
        for f in result.problems:
            cmd.stderr.write(shown(f"REFUSED {f.message}", 2000))
            if f.evidence_ref:  # a link or a special file is never read, so nothing of it is kept
                cmd.stderr.write(
                    f"  the file as found is kept on {f.evidence_ref} ({f.evidence_sha[:12]}); restored from the log"
                )
    cmd.stdout.flush()  # a watcher's lines are read as they come
    if refuse and results[-1].problems:
        raise CommandError(f"{len(results[-1].problems)} file(s) refused; nothing was lost", returncode=REFUSED)


@command(_vault_option, BY, description=SYNC_HELP)
def sync(cmd: BaseCommand, o: dict) -> None:
    """One sweep."""
    vault = _vault(o)
    result = vault.sweep(by_default=o["by"])
    _report(cmd, result)
    if not result.report():
        cmd.stdout.write(f"up to date at {result.head[:12]}")


@command(
    _vault_option,
    BY,
    arg("--interval", type=_seconds, default=2.0, help="seconds between sweeps (default 2)"),
    arg("--sweeps", type=int, help="stop after this many sweeps"),
    description=WATCH_HELP,
)
def watch(cmd: BaseCommand, o: dict) -> None:
    """Sweep every few seconds until stopped."""
    if o["sweeps"] is not None and o["sweeps"] < 1:
        raise CommandError("--sweeps is at least 1", returncode=2)
    if o["interval"] == 0 and o["sweeps"] is None:
        # Without pause and without end, the watcher would keep a whole core busy.
        raise CommandError("--interval 0 needs --sweeps N; a watcher that runs until stopped must wait", returncode=2)
    vault = _vault(o)
    stop = threading.Event()
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, lambda *_: stop.set())
    cmd.stdout.write(f"watching {vault.root} every {o['interval']}s (Ctrl-C stops)")

    def say(line: str) -> None:
        cmd.stdout.write(line)
        cmd.stdout.flush()  # a watcher's lines are read as they come

    try:
        watch_vault(
            vault=vault,
            interval=o["interval"],
            sweeps=o["sweeps"],
            stop=stop,
            on_sweep=lambda result: _report(cmd, result, refuse=False),
            on_error=lambda exc: cmd.stderr.write(
                shown(f"sweep failed, trying again: {getattr(exc, 'message', exc)}", 2000)
            ),
            on_standby=lambda: say(f"another watcher sweeps {vault.root}; standing by until it stops"),
            on_lead=lambda: say(f"sweeping {vault.root}"),
        )
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    cmd.stdout.write("stopped")


@command(
    arg("notebook"),
    _vault_option,
    BY,
    arg("--key-id", metavar="KEY_ID", help="sign each row with this writer key as it is appended"),
    arg("--secret-file", metavar="FILE", help=f"the key's secret (default: ${keys.SECRET_ENV})"),
    description=APPEND_HELP,
)
def append(cmd: BaseCommand, o: dict) -> None:
    """Append rows from stdin to a notebook's file under the vault's lock, then sweep."""
    title = keys.check_title(o["notebook"])
    lines = [line for line in keys.stdin_bytes().split(b"\n") if line.strip()]
    if not lines:
        raise CommandError("no rows on stdin: nothing appended", returncode=2)
    for k, line in enumerate(lines, 1):
        if json_object(line) is None:
            raise CommandError(f"stdin line {k} is not one JSON object in UTF-8: nothing appended", returncode=2)
    if o["key_id"] is not None:
        key_id = keys.check_key_id(o["key_id"])
        secret = keys.secret_from(o)
        signed = keys.signed_rows(enumerate(lines, 1), title=title, key_id=key_id, secret=secret, nothing="appended")
        lines = [row.encode("utf-8") for row in signed]
    elif o["secret_file"] is not None:
        raise CommandError("--secret-file needs --key-id: nothing appended", returncode=2)
    vault = _vault(o)
    with vault.lock():  # the lock every sweep holds: the file is neither read nor replaced while rows go in
        before = vault.sweep(by_default=o["by"])  # the file first holds the log's rows, which the new ones follow
        path = vault.path(title)
        try:
            held = read_bytes_or_none(path)  # the sweep above replaced any link or special file, but a directory
            gap = bool(held) and not held.endswith(b"\n")
            append_bytes(path, (b"\n" if gap else b"") + b"".join(line + b"\n" for line in lines))
        except NotRegular as exc:
            raise CommandError(f"{exc}: nothing appended; move it aside and append again", returncode=1) from None
        result = vault.sweep(by_default=o["by"])
    _report(cmd, before, result)
    cmd.stdout.write(f"{title}.jsonl: {len(lines)} row(s) appended")


@command(arg("--all", action="store_true", help="acknowledged ones too"), JSON, description=None)
def alarms(cmd: BaseCommand, o: dict) -> None:
    """Files the vault refused, newest first (unacknowledged unless --all)."""
    found = vault_alarms.vault_alarms(include_acknowledged=o["all"])
    if o["json"]:
        cmd.stdout.write(json.dumps([asdict(a) for a in found], ensure_ascii=False, indent=1))
        return
    for a in found:
        seen = f"; acknowledged by {a.acknowledged_by} {iso(a.acknowledged_at)}" if a.acknowledged_by else ""
        cmd.stdout.write(f"#{a.id} {iso(a.at)} {a.title} {a.problem}: {a.message} (evidence {a.evidence_ref}{seen})")
    if not found:
        cmd.stderr.write("(no alarms)")


@command(arg("alarm", type=int), arg("--by", required=True), arg("--why", default=""), description=None)
def ack(cmd: BaseCommand, o: dict) -> None:
    """The editor has seen an alarm: it leaves the banner (the record stays)."""
    vault_alarms.acknowledge_vault_alarm(alarm=o["alarm"], by=o["by"], why=o["why"])
    cmd.stdout.write(f"alarm #{o['alarm']} acknowledged")
