"""The foundation's subcommands: create, import, export, view, history, turn, add, edit, retire, merge, move,
restore, put-back, verify, snapshots, editor."""

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from notebooks.cli import rows, shown
from notebooks.log import moves, services
from notebooks.log.files import imports, rowformat
from notebooks.log.files.verify import verify_chain
from notebooks.log.rules import checks
from notebooks.log.rules.errors import Invalid
from notebooks.log.store import triggers
from notebooks.log.views import selectors, snapshots, turn_reads
from notebooks.models import Notebook, Row, Source
from notebooks.sessions import reads as session_reads
from notebooks.similar import selectors as similar_selectors

WHEN_HELP = "ISO 8601 (2026-11-12T09:30, UTC unless it says) or epoch seconds"


def register(subparsers: Any, command: BaseCommand) -> None:
    def sub(name: str, handler: Any, help: str) -> Any:
        parser = subparsers.add_parser(name, help=help, description=help)
        parser.set_defaults(handler=handler)
        return parser

    p = sub("create", create, "Start an empty notebook.")
    p.add_argument("title")
    p.add_argument("--by", default="cli", help="who creates it")

    p = sub("import", import_, "Start a notebook from a JSON Lines file, all or nothing.")
    p.add_argument("file", help="the JSONL file ('-' for standard input)")
    p.add_argument("--title", required=True)
    p.add_argument("--adopt-from", metavar="BACKUP", help="the file as it was before a hand rewrite")
    p.add_argument("--by", default="import", help="who records the import (adopted rows carry this name)")

    p = sub("export", export, "Print a notebook's rows as JSON Lines.")
    p.add_argument("title")
    p.add_argument("--until", help=WHEN_HELP)

    p = sub("view", view, "Print the live lines.")
    p.add_argument("title")
    p.add_argument("--until", help=WHEN_HELP)
    p.add_argument("--json", action="store_true")

    p = sub("history", history, "Print every text a line has had, who changed it, when and why.")
    p.add_argument("title")
    p.add_argument("n", type=int)
    p.add_argument("--json", action="store_true")

    p = sub("turn", turn, "Print the text a play turn carries (noted as read, for the index, unless --until).")
    p.add_argument("title")
    p.add_argument("--until", help=WHEN_HELP)
    p.add_argument("--by", default="cli", help="who reads it, as the index shows (default cli)")

    p = sub("add", add, "Add a line.")
    p.add_argument("title")
    p.add_argument("words")
    p.add_argument("--source", required=True, choices=Source.values)
    _actor_args(p)

    p = sub("edit", edit, "Give a line new words, keeping its number.")
    p.add_argument("title")
    p.add_argument("n", type=int)
    p.add_argument("words")
    p.add_argument("--expected", type=int, help="the seq of the line's last row as you saw it")
    _actor_args(p)

    p = sub("retire", retire, "Take a line out of view (a strike row; its history stays).")
    p.add_argument("title")
    p.add_argument("n", type=int)
    p.add_argument("--into", type=int, help="the line that now says it")
    _actor_args(p)

    p = sub("merge", merge, "Write one line for several and retire them into it.")
    p.add_argument("title")
    p.add_argument("numbers", type=int, nargs="+")
    p.add_argument("--text", required=True)
    _actor_args(p)

    p = sub("move", move, "Move a line to another notebook: a new line there, same words, source and author.")
    p.add_argument("title")
    p.add_argument("n", type=int)
    p.add_argument("--to", required=True, help="the notebook to move it to")
    p.add_argument("--expected", type=int, help="the seq of the line's last row as you saw it")
    p.add_argument("--by", default="dad", help="the editor who moves it (default dad)")
    p.add_argument("--why", required=True, help="the reason")

    p = sub("restore", restore, "Bring a retired line's last words back as a new line (the next number).")
    p.add_argument("title")
    p.add_argument("n", type=int, help="the retired line")
    _actor_args(p)

    p = sub("put-back", put_back, "Edit a line back to the words of an older version in its history.")
    p.add_argument("title")
    p.add_argument("n", type=int)
    p.add_argument("--seq", type=int, required=True, help="the change whose words to put back (see `history`)")
    p.add_argument("--expected", type=int, help="the seq of the line's last row as you saw it")
    _actor_args(p)

    p = sub("verify", verify, "Check every hash chain and that the append-only triggers are installed.")
    p.add_argument("title", nargs="?")
    p.add_argument("--pinned", metavar="HASH", help="a head hash seen earlier: the chain must still hold it")

    p = sub("snapshots", snapshots_, "Make a notebook's view snapshots again from its log (all notebooks if no title).")
    p.add_argument("title", nargs="?")

    p = sub("editor", editor, "Give a user the human editor's role (creates the user without a password if needed).")
    p.add_argument("name")


def _actor_args(parser: Any) -> None:
    parser.add_argument("--by", required=True, help="the actor (a user with the editor role acts as the editor)")
    parser.add_argument("--why", required=True, help="the reason")


def _when(value: str | None) -> float | None:
    return None if value is None else checks.parse_when(value)


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, tz=UTC).isoformat(timespec="seconds")


def create(cmd: BaseCommand, o: dict) -> None:
    nb = services.create_notebook(title=o["title"], by=o["by"])
    cmd.stdout.write(f"created notebook {nb.title!r}")


def _open(path: str) -> Any:
    if path == "-":
        return sys.stdin
    try:
        return Path(path).open(encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror}") from None


def _count_lines(path: str) -> int | None:
    if path == "-":
        return None
    try:
        with Path(path).open("rb") as f:
            return sum(1 for _ in f)
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror}") from None


def import_(cmd: BaseCommand, o: dict) -> None:
    total = _count_lines(o["file"])
    show = total is not None and total >= 5000 and sys.stderr.isatty()

    def progress(done: int) -> None:
        if show:
            width = 30
            filled = int(width * done / total)
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} rows checked")
            sys.stderr.flush()

    backup = None
    if o["adopt_from"]:
        try:
            with _open(o["adopt_from"]) as b:
                backup = list(b)
        except UnicodeDecodeError as exc:
            raise CommandError(f"{o['adopt_from']} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        with _open(o["file"]) as f:
            result = imports.import_notebook(
                title=o["title"],
                lines=f,
                by=o["by"],
                adopt_from=backup,
                adopt_name=Path(o["adopt_from"]).name if o["adopt_from"] else "backup",
                progress=progress,
            )
    except UnicodeDecodeError as exc:
        raise CommandError(f"{o['file']} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    finally:
        if show:
            sys.stderr.write("\n")
    extra = f", {rows(result.adopted, 'adopted history row')}" if result.adopted else ""
    cmd.stdout.write(f"imported {rows(result.rows)} into {result.notebook.title!r}{extra}")


def export(cmd: BaseCommand, o: dict) -> None:
    nb = selectors.get_notebook(o["title"])
    out = getattr(cmd.stdout, "_out", None)
    if out is sys.stdout and hasattr(out, "reconfigure"):
        # The file format is UTF-8 with \n endings, whatever the locale: the same bytes as the vault's file.
        out.reconfigure(encoding="utf-8", newline="\n")
    until = _when(o["until"])
    top = selectors.head_at(nb, until=until)  # read first: the file ends exactly at the head it reports
    for row in selectors.rows(nb, upto=top.seq):
        cmd.stdout.write(rowformat.dumps(row))
    # The head on stderr keeps the file plain JSON Lines; pin it with `notebook verify TITLE --pinned HASH`.
    cmd.stderr.write(f"{nb.title} seq {top.seq} head {top.hash}")


def view(cmd: BaseCommand, o: dict) -> None:
    nb = selectors.get_notebook(o["title"])
    lines = selectors.view(nb, until=_when(o["until"]))
    if o["json"]:
        cmd.stdout.write(json.dumps([line.as_dict() for line in lines], ensure_ascii=False, indent=1))
        return
    for line in lines:
        cmd.stdout.write(f"#{line.n} [{line.source}] {shown(line.text)}")
    if not lines:
        cmd.stderr.write("(no live lines)")


def history(cmd: BaseCommand, o: dict) -> None:
    nb = selectors.get_notebook(o["title"])
    entries = selectors.history(nb, o["n"])
    if o["json"]:
        cmd.stdout.write(json.dumps([e.as_dict() for e in entries], ensure_ascii=False, indent=1))
        return
    for e in entries:
        when = _iso(e.was_at) if e.adopted and e.was_at is not None else _iso(e.at)
        who = e.was_by if e.adopted and e.was_by else e.by
        if e.op == "strike" and e.moved_to:
            what = f"moved to {e.moved_to.notebook} #{e.moved_to.n}"
        elif e.op == "strike":
            into = f" into #{e.into}" if e.into else ""
            what = f"{e.how}{into}"
        elif e.op == "propose":  # a session's pending row: it counts only once the session lands
            said = "" if e.proposes == "strike" else f": [{e.source}] {shown(e.text)}"
            what = f"{e.proposes} in session #{e.session}, pending until it lands{said}"
        elif e.op == "restored":  # another line's add brought these words back
            what = f"as #{e.into}: [{e.source}] {shown(e.text)}"
        elif e.op == "retired_into":  # another line's strike into this one, with what it said then
            said = f"[{e.source}] {shown(e.text)}"
            what = f"from #{e.from_n}: {said}" if e.how == "merged" else f"#{e.from_n} into this: {said}"
        else:
            what = f"{f'(restores #{e.into}) ' if e.op == 'add' and e.into else ''}[{e.source}] {shown(e.text)}"
            if e.merged_from:
                what = f"(merged from {', '.join(f'#{x}' for x in e.merged_from)}) {what}"
            if e.moved_from:  # with who first wrote the words, and when
                written = f"written by {e.was_by} {_iso(e.was_at)}" if e.was_at is not None else f"by {e.was_by}"
                what = f"(moved from {e.moved_from.notebook} #{e.moved_from.n}, {written}) {what}"
        tag = "adopted" if e.adopted else e.op
        if e.op == "retired_into":
            tag = "merged" if e.how == "merged" else "retired"
        if e.lands is not None:
            what += f" (landed: proposed at seq {e.lands})"
        if e.claimed_at is not None:
            what += f" (appended from outside; its writer dated it {_iso(e.claimed_at)})"
        why = f"  (why: {shown(e.why)})" if e.why else ""
        cmd.stdout.write(f"{when} {tag:<7} by {who}: {what}{why}")


def turn(cmd: BaseCommand, o: dict) -> None:
    nb = selectors.get_notebook(o["title"])
    until = _when(o["until"])
    own = session_reads.own_session(nb, o["by"]) if until is None else None  # the holder reads her own writes
    cmd.stdout.write(selectors.turn(nb, until=until) if own is None else session_reads.holder_turn(nb, own))
    if until is None:
        turn_reads.note_turn_read(nb, o["by"])


def _pending(title: str, seq: int) -> str:
    """What a write by a session's holder is until the session lands (fold.py: a proposal), said after its answer."""
    found = Row.objects.filter(notebook__title=title, seq=seq).values_list("op", "session_id").first()
    if found is None or found[0] != "propose":
        return ""
    return f"; pending: it counts once session #{found[1]} lands"


def add(cmd: BaseCommand, o: dict) -> None:
    w = services.add(notebook=o["title"], text=o["words"], source=o["source"], by=o["by"], why=o["why"])
    near = similar_selectors.nearest_for(selectors.get_notebook(o["title"]), o["words"], exclude=w.n)
    like = ", ".join(f"#{x['n']} ({x['score']:.2f})" for x in near)
    said = f"added line #{w.n} (seq {w.seq}){_pending(o['title'], w.seq)}"
    cmd.stdout.write(said + (f"; most like it: {like}" if like else ""))


def edit(cmd: BaseCommand, o: dict) -> None:
    w = services.edit(notebook=o["title"], n=o["n"], to=o["words"], by=o["by"], why=o["why"], expected=o["expected"])
    cmd.stdout.write(f"edited line #{w.n} (seq {w.seq}){_pending(o['title'], w.seq)}")


def retire(cmd: BaseCommand, o: dict) -> None:
    w = services.retire(notebook=o["title"], n=o["n"], by=o["by"], why=o["why"], into=o["into"])
    into = f" into #{o['into']}" if o["into"] else ""
    cmd.stdout.write(f"retired line #{w.n}{into} (seq {w.seq}){_pending(o['title'], w.seq)}")


def merge(cmd: BaseCommand, o: dict) -> None:
    w = services.merge(notebook=o["title"], numbers=o["numbers"], text=o["text"], by=o["by"], why=o["why"])
    merged = ", ".join(f"#{x}" for x in o["numbers"])
    cmd.stdout.write(
        f"merged {merged} into new line #{w.n} (seqs {w.seqs[0]}-{w.seqs[-1]}){_pending(o['title'], w.seq)}"
    )


def move(cmd: BaseCommand, o: dict) -> None:
    w = moves.move(notebook=o["title"], n=o["n"], to=o["to"], by=o["by"], why=o["why"], expected=o["expected"])
    seqs = f"seq {w.strike_seq} in {w.notebook!r}, seq {w.add_seq} in {w.to!r}"
    cmd.stdout.write(f"moved line #{w.n} of {w.notebook!r} to {w.to!r} as line #{w.m} ({seqs})")


def restore(cmd: BaseCommand, o: dict) -> None:
    w = services.restore(notebook=o["title"], n=o["n"], by=o["by"], why=o["why"])
    cmd.stdout.write(f"restored line #{o['n']} as new line #{w.n} (seq {w.seq}){_pending(o['title'], w.seq)}")


def put_back(cmd: BaseCommand, o: dict) -> None:
    w = services.put_back(notebook=o["title"], n=o["n"], seq=o["seq"], by=o["by"], why=o["why"], expected=o["expected"])
    cmd.stdout.write(f"put back the words of change {o['seq']} into line #{w.n} (seq {w.seq})")


def verify(cmd: BaseCommand, o: dict) -> None:
    problems = [f"append-only trigger missing: {name}" for name in triggers.missing()]
    notebooks = [selectors.get_notebook(o["title"])] if o["title"] else list(Notebook.objects.all())
    if o["pinned"] and not o["title"]:
        raise Invalid("--pinned needs the notebook's title.")
    for nb in notebooks:
        problems += verify_chain(nb, pinned=o["pinned"])
        problems += [f"{nb.title}: {problem}" for problem in snapshots.problems(nb.pk)]
    for problem in problems:
        cmd.stderr.write(problem)
    if problems:
        raise CommandError(f"{len(problems)} problem(s) found", returncode=1)
    for nb in notebooks:
        top = selectors.head(nb)
        cmd.stdout.write(f"{nb.title}: {rows(top.seq)}, chain intact, head {top.hash}")
    cmd.stdout.write("triggers installed; every chain verifies")


def snapshots_(cmd: BaseCommand, o: dict) -> None:
    notebooks = [selectors.get_notebook(o["title"])] if o["title"] else list(Notebook.objects.all())
    for nb in notebooks:
        made = services.rebuild_snapshots(notebook=nb.title)
        cmd.stdout.write(f"{nb.title}: {made} snapshot(s) made from {rows(selectors.head(nb).seq)}")


def editor(cmd: BaseCommand, o: dict) -> None:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from notebooks.log.identity.roles import EDITOR_GROUP, check_name

    check_name(o["name"])
    user, created = get_user_model().objects.get_or_create(username=o["name"])
    if created:
        user.set_unusable_password()
        user.save()
    user.groups.add(Group.objects.get_or_create(name=EDITOR_GROUP)[0])
    cmd.stdout.write(f"{user.username} is an editor" + (" (new user, no password yet)" if created else ""))
