"""The foundation's subcommands: create, import, export, view, history, turn, add, edit, retire, merge, move, …"""

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from notebooks.agents import answers, paging
from notebooks.cli import AFTER, JSON, LIMIT, TITLE, Commands, N, arg, iso, more_after, rows, shown, until_time
from notebooks.cli.arguments import BAD_ARGUMENT
from notebooks.log import moves, services
from notebooks.log.files import imports, rowformat
from notebooks.log.files.verify import verify_chain
from notebooks.log.rules import checks
from notebooks.log.rules.errors import Invalid
from notebooks.log.store import session_rows, triggers
from notebooks.log.views import selectors, snapshots
from notebooks.models import Notebook, Source

WHEN_HELP = "ISO 8601 (2026-11-12T09:30, UTC unless it says) or epoch seconds, a time already past"
UNTIL = arg("--until", help=WHEN_HELP)
EXPECTED = arg("--expected", type=int, help="the seq of the line's last row as you saw it")
BY = arg("--by", required=True, help="the actor (a user with the editor role acts as the editor)")
WHY = arg("--why", required=True, help="the reason")
ANY_TITLE = arg("title", nargs="?")
command = Commands()


@command(TITLE, arg("--by", default="cli", help="who creates it"))
def create(cmd: BaseCommand, o: dict) -> None:
    """Start an empty notebook."""
    nb = services.create_notebook(title=o["title"], by=o["by"])
    cmd.stdout.write(f"created notebook {nb.title!r}")


def _open(path: str, mode: str = "r") -> Any:
    if path == "-":
        return sys.stdin
    try:
        return Path(path).open(mode, encoding=None if "b" in mode else "utf-8")
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror}") from None


def _not_utf8(path: str, exc: UnicodeDecodeError) -> CommandError:
    return CommandError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})", returncode=BAD_ARGUMENT)


@command(
    arg("file", help="the JSONL file ('-' for standard input)"),
    arg("--title", required=True),
    arg("--adopt-from", metavar="BACKUP", help="the file as it was before a hand rewrite"),
    arg("--by", default="import", help="who records the import (adopted rows carry this name)"),
)
def import_(cmd: BaseCommand, o: dict) -> None:
    """Start a notebook from a JSON Lines file, all or nothing."""
    total = None
    if o["file"] != "-" and Path(o["file"]).is_file():  # a pipe or a FIFO is read once, without a count first
        with _open(o["file"], "rb") as f:
            total = sum(1 for _ in f)
    show = total is not None and total >= 5000 and sys.stderr.isatty()

    def progress(done: int) -> None:
        if show:
            filled = int(30 * done / total)
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total} rows checked")
            sys.stderr.flush()

    backup = None
    if o["adopt_from"]:
        try:
            with _open(o["adopt_from"]) as b:
                backup = list(b)
        except UnicodeDecodeError as exc:
            raise _not_utf8(o["adopt_from"], exc) from None
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
        raise _not_utf8(o["file"], exc) from None
    finally:
        if show:
            sys.stderr.write("\n")
    extra = f", {rows(result.adopted, 'adopted history row')}" if result.adopted else ""
    cmd.stdout.write(f"imported {rows(result.rows)} into {result.notebook.title!r}{extra}")


@command(TITLE, UNTIL)
def export(cmd: BaseCommand, o: dict) -> None:
    """Print a notebook's rows as JSON Lines."""
    nb = selectors.get_notebook(o["title"])
    out = getattr(cmd.stdout, "_out", None)
    if out is sys.stdout and hasattr(out, "reconfigure"):
        # The file format is UTF-8 with \n endings, whatever the locale: the same bytes as the vault's file.
        out.reconfigure(encoding="utf-8", newline="\n")
    until = until_time(o["until"])
    top = selectors.head_at(nb, until=until)  # read first: the file ends exactly at the head it reports
    for row in selectors.rows(nb, upto=top.seq):
        cmd.stdout.write(rowformat.dumps(row))
    # The head on stderr keeps the file plain JSON Lines; pin it with `notebook verify TITLE --pinned HASH`.
    cmd.stderr.write(f"{nb.title} seq {top.seq} head {top.hash}")


@command(TITLE, UNTIL, AFTER, LIMIT, JSON)
def view(cmd: BaseCommand, o: dict) -> None:
    """Print the live lines, a page of them; --json prints the API's answer to GET .../lines."""
    after, limit = paging.read("lines", o["after"], o["limit"], names=("--after", "--limit"))
    until_time(o["until"])  # a bad time is the CLI's refusal, as before
    answer = answers.lines(o["title"], o["until"], after, limit)
    if o["json"]:
        cmd.stdout.write(json.dumps(answer.model_dump(mode="json"), ensure_ascii=False, indent=1))
        return
    for line in answer.lines:
        cmd.stdout.write(f"#{line.n} [{line.source}] {shown(line.text)}")
    if not answer.lines:
        cmd.stderr.write("(no live lines)")
    more_after(cmd, answer)


@command(TITLE, N, JSON)
def history(cmd: BaseCommand, o: dict) -> None:
    """Print every text a line has had, who changed it, when and why."""
    nb = selectors.get_notebook(o["title"])
    entries = selectors.history(nb, o["n"])
    if o["json"]:
        cmd.stdout.write(json.dumps([e.as_dict() for e in entries], ensure_ascii=False, indent=1))
        return
    for e in entries:
        when = iso(e.was_at) if e.adopted and e.was_at is not None else iso(e.at)
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
                written = f"written by {e.was_by} {iso(e.was_at)}" if e.was_at is not None else f"by {e.was_by}"
                what = f"(moved from {e.moved_from.notebook} #{e.moved_from.n}, {written}) {what}"
        tag = "adopted" if e.adopted else e.op
        if e.op == "retired_into":
            tag = "merged" if e.how == "merged" else "retired"
        if e.lands is not None:
            what += f" (landed: proposed at seq {e.lands})"
        if e.claimed_at is not None:
            what += f" (appended from outside; its writer dated it {iso(e.claimed_at)})"
        why = f"  (why: {shown(e.why)})" if e.why else ""
        cmd.stdout.write(f"{when} {tag:<7} by {who}: {what}{why}")


@command(TITLE, UNTIL, arg("--by", default="cli", help="who reads it, as the index shows (default cli)"))
def turn(cmd: BaseCommand, o: dict) -> None:
    """Print the text a play turn carries (noted as read, for the index, unless --until): the API's turn, so a holder
    whose session lapsed is told on stderr which of her lines it leaves out, and which it would retire."""
    until_time(o["until"])  # a bad time is the CLI's refusal, as before
    answer = answers.turn(o["title"], o["until"], o["by"])
    cmd.stdout.write(answer.text)
    if answer.session is not None and answer.session.state == "lapsed":
        sid, left, kept = answer.session.id, answer.lapsed, answer.lapsed_retired
        said = [f"session #{sid} lapsed at {iso(answer.session.lease_until)}."]
        if left:
            said[0] += f" {rows(len(left), 'pending line')} {'is' if len(left) == 1 else 'are'} not in this turn:"
            said += [f"  #{x.n} {checks.shown(x.text, 80)}" for x in left]
        if kept:
            said.append(f"Still in this turn, though it retires them: {', '.join(f'#{n}' for n in kept)}.")
        abandon = f"`notebook abandon {sid} --why REASON --by {o['by']}`"
        said.append(f"Take a new session, or {abandon}{' to let them go' if left or kept else ''}.")
        cmd.stderr.write("\n".join(said))


def _pending(title: str, seq: int) -> str:
    """What a write by a session's holder is until the session lands (fold.py: a proposal), said after its answer."""
    found = session_rows.op_and_session(title, seq)
    if found is None or found[0] != "propose":
        return ""
    return f"; pending: it counts once session #{found[1]} lands"


@command(TITLE, arg("words"), arg("--source", required=True, choices=Source.values), BY, WHY)
def add(cmd: BaseCommand, o: dict) -> None:
    """Add a line."""
    w = services.add(notebook=o["title"], text=o["words"], source=o["source"], by=o["by"], why=o["why"])
    answer = answers.added(o["title"], w.n, w.seq, o["words"], reader=o["by"])  # the API's: her pending lines too
    like = ", ".join(f"#{x.n} ({x.score:.2f})" for x in answer.similar)
    said = f"added line #{w.n} (seq {w.seq}){_pending(o['title'], w.seq)}"
    cmd.stdout.write(said + (f"; most like it: {like}" if like else ""))


@command(TITLE, N, arg("words"), EXPECTED, BY, WHY)
def edit(cmd: BaseCommand, o: dict) -> None:
    """Give a line new words, keeping its number."""
    w = services.edit(notebook=o["title"], n=o["n"], to=o["words"], by=o["by"], why=o["why"], expected=o["expected"])
    cmd.stdout.write(f"edited line #{w.n} (seq {w.seq}){_pending(o['title'], w.seq)}")


@command(TITLE, N, arg("--into", type=int, help="the line that now says it"), EXPECTED, BY, WHY)
def retire(cmd: BaseCommand, o: dict) -> None:
    """Take a line out of view (a strike row; its history stays)."""
    w = services.retire(notebook=o["title"], n=o["n"], by=o["by"], why=o["why"], into=o["into"], expected=o["expected"])
    into = f" into #{o['into']}" if o["into"] else ""
    cmd.stdout.write(f"retired line #{w.n}{into} (seq {w.seq}){_pending(o['title'], w.seq)}")


@command(
    TITLE, arg("numbers", type=int, nargs="+"), arg("--text", required=True),
    arg("--source", choices=Source.values, help="the merged line's (default: seen if one merged line was)"),
    BY, WHY,
)  # fmt: skip
def merge(cmd: BaseCommand, o: dict) -> None:
    """Write one line for several and retire them into it."""
    w = services.merge(
        notebook=o["title"], numbers=o["numbers"], text=o["text"], by=o["by"], why=o["why"], source=o["source"]
    )
    merged = ", ".join(f"#{x}" for x in o["numbers"])
    cmd.stdout.write(
        f"merged {merged} into new line #{w.n} (seqs {w.seqs[0]}-{w.seqs[-1]}){_pending(o['title'], w.seq)}"
    )


@command(
    TITLE,
    N,
    arg("--to", required=True, help="the notebook to move it to"),
    EXPECTED,
    arg("--by", default="dad", help="the editor who moves it (default dad)"),
    WHY,
)
def move(cmd: BaseCommand, o: dict) -> None:
    """Move a line to another notebook: a new line there, same words, source and author."""
    w = moves.move(notebook=o["title"], n=o["n"], to=o["to"], by=o["by"], why=o["why"], expected=o["expected"])
    seqs = f"seq {w.strike_seq} in {w.notebook!r}, seq {w.add_seq} in {w.to!r}"
    cmd.stdout.write(f"moved line #{w.n} of {w.notebook!r} to {w.to!r} as line #{w.m} ({seqs})")


@command(TITLE, arg("n", type=int, help="the retired line"), BY, WHY)
def restore(cmd: BaseCommand, o: dict) -> None:
    """Bring a retired line's last words back as a new line (the next number)."""
    w = services.restore(notebook=o["title"], n=o["n"], by=o["by"], why=o["why"])
    cmd.stdout.write(f"restored line #{o['n']} as new line #{w.n} (seq {w.seq}){_pending(o['title'], w.seq)}")


@command(
    TITLE,
    N,
    arg("--seq", type=int, required=True, help="the change whose words to put back (see `history`)"),
    EXPECTED,
    BY,
    WHY,
)
def put_back(cmd: BaseCommand, o: dict) -> None:
    """Edit a line back to the words of an older version in its history."""
    w = services.put_back(notebook=o["title"], n=o["n"], seq=o["seq"], by=o["by"], why=o["why"], expected=o["expected"])
    cmd.stdout.write(f"put back the words of change {o['seq']} into line #{w.n} (seq {w.seq})")


@command(ANY_TITLE, arg("--pinned", metavar="HASH", help="a head hash seen earlier: the chain must still hold it"))
def verify(cmd: BaseCommand, o: dict) -> None:
    """Check every hash chain and that the append-only triggers are installed."""
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


@command(ANY_TITLE)
def snapshots_(cmd: BaseCommand, o: dict) -> None:
    """Make a notebook's view snapshots again from its log (all notebooks if no title)."""
    notebooks = [selectors.get_notebook(o["title"])] if o["title"] else list(Notebook.objects.all())
    for nb in notebooks:
        made = services.rebuild_snapshots(notebook=nb.title)
        cmd.stdout.write(f"{nb.title}: {made} snapshot(s) made from {rows(selectors.head(nb).seq)}")


@command(arg("name"))
def editor(cmd: BaseCommand, o: dict) -> None:
    """Give a user the human editor's role (creates the user without a password if needed)."""
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
