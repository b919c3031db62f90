"""`notebook vault sync|watch|alarms|ack`: the notebooks mirrored as JSONL files in a git repository."""

import argparse
import json
import math
import signal
import threading
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from notebooks.vault import SweepResult, Vault
from notebooks.vault import alarms as vault_alarms
from notebooks.vault import watch as watch_vault

# Exit status of a sweep that refused a file (kept as evidence, restored from the log).
REFUSED = 6


def register(subparsers: Any, command: BaseCommand) -> None:
    parser = subparsers.add_parser(
        "vault",
        help="The vault: every notebook as its JSONL file in git (sync, watch, alarms, ack).",
        description="The vault: every notebook mirrored as its append-only JSONL file in a git repository.",
    )
    verbs = parser.add_subparsers(dest="vault_command", required=True, parser_class=type(parser))

    p = verbs.add_parser("sync", help="One sweep.", description=SYNC_HELP)
    _vault_args(p)
    p.set_defaults(handler=sync)

    p = verbs.add_parser("watch", help="Sweep every few seconds until stopped.", description=WATCH_HELP)
    _vault_args(p)
    p.add_argument("--interval", type=_seconds, default=2.0, help="seconds between sweeps (default 2)")
    p.add_argument("--sweeps", type=int, help="stop after this many sweeps")
    p.set_defaults(handler=watch)

    p = verbs.add_parser("alarms", help="Files the vault refused, newest first (unacknowledged unless --all).")
    p.add_argument("--all", action="store_true", help="acknowledged ones too")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=alarms)

    p = verbs.add_parser("ack", help="The editor has seen an alarm: it leaves the banner (the record stays).")
    p.add_argument("alarm", type=int)
    p.add_argument("--by", required=True)
    p.add_argument("--why", default="")
    p.set_defaults(handler=ack)


SYNC_HELP = (
    "One sweep: rows appended to a file by an outside writer are checked and imported (keeping their `by`), "
    "the log's new rows are written to their files, and one commit records what changed. A file that is not an "
    f"append of the log is refused: kept on an evidence branch, restored, reported; the exit status is {REFUSED}."
)
WATCH_HELP = "A sweep every --interval seconds until stopped (SIGINT or SIGTERM); refusals are reported on stderr."


def _vault_args(parser: Any) -> None:
    parser.add_argument(
        "--vault", help=f"the vault's directory (default: NOTEBOOK_VAULT, now {settings.NOTEBOOK_VAULT})"
    )
    parser.add_argument("--by", help="whom an appended row is by when it does not say (default: harness)")


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


def _report(cmd: BaseCommand, result: SweepResult) -> None:
    for line in result.report():
        cmd.stdout.write(line)
    for f in result.problems:
        cmd.stderr.write(f"REFUSED {f.message}")
        cmd.stderr.write(
            f"  the file as found is kept on {f.evidence_ref} ({f.evidence_sha[:12]}); restored from the log"
        )


def sync(cmd: BaseCommand, o: dict) -> None:
    vault = _vault(o)
    result = vault.sweep(by_default=o["by"])
    _report(cmd, result)
    if result.problems:
        raise CommandError(f"{len(result.problems)} file(s) refused; nothing was lost", returncode=REFUSED)
    if not result.report():
        cmd.stdout.write(f"up to date at {result.head[:12]}")


def watch(cmd: BaseCommand, o: dict) -> None:
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

    def on_sweep(result: SweepResult) -> None:
        _report(cmd, result)
        cmd.stdout.flush()

    def on_error(exc: Exception) -> None:
        cmd.stderr.write(f"sweep failed, trying again: {getattr(exc, 'message', exc)}")

    def on_standby() -> None:
        cmd.stdout.write(f"another watcher sweeps {vault.root}; standing by until it stops")
        cmd.stdout.flush()

    def on_lead() -> None:
        cmd.stdout.write(f"sweeping {vault.root}")
        cmd.stdout.flush()

    try:
        vault.ensure()
        watch_vault(
            vault=vault,
            interval=o["interval"],
            sweeps=o["sweeps"],
            stop=stop,
            on_sweep=on_sweep,
            on_error=on_error,
            on_standby=on_standby,
            on_lead=on_lead,
        )
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    cmd.stdout.write("stopped")


def alarms(cmd: BaseCommand, o: dict) -> None:
    found = vault_alarms.vault_alarms(include_acknowledged=o["all"])
    if o["json"]:
        cmd.stdout.write(json.dumps([a.as_dict() for a in found], ensure_ascii=False, indent=1))
        return
    for a in found:
        when = datetime.fromtimestamp(a.at, tz=UTC).isoformat(timespec="seconds")
        cmd.stdout.write(f"#{a.id} {when} {a.title} {a.problem}: {a.message} (evidence {a.evidence_ref})")
    if not found:
        cmd.stderr.write("(no alarms)")


def ack(cmd: BaseCommand, o: dict) -> None:
    vault_alarms.acknowledge_vault_alarm(alarm=o["alarm"], by=o["by"], why=o["why"])
    cmd.stdout.write(f"alarm #{o['alarm']} acknowledged")
