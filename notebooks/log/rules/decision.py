"""The one decision, asked by every door: whether a row may be written against the `State` the rows so far leave.
A door (`Door`) may word a refusal its own way, never change its code. Pure: no Django, no I/O."""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from notebooks.log.rules import fold
from notebooks.log.rules.alike import alike_key
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid, NotebookError, NotFound, Redacted, Unchanged
from notebooks.log.rules.fold import MAX_NUMBER, PROPOSABLE, PROPOSE, LineState
from notebooks.log.rules.state import State, apply

RETIRED, MERGED, MOVED = "retired", "merged", "moved"


# A file's refusal keeps its code and is an Invalid too: the file is bad input (an import's callers catch it).
_IN_FILE = {kind: type(f"File{kind.__name__}", (kind, Invalid), {}) for kind in (NotFound, Forbidden, Conflict)}


def in_file(exc: NotebookError, line_no: int) -> NotebookError:
    """The refusal of a file's row, naming the file's line, with the same code: still an Invalid (a bad file)."""
    fallback = type(exc) if isinstance(exc, Invalid) else Invalid
    kind = next((k for base, k in _IN_FILE.items() if isinstance(exc, base)), fallback)
    message = exc.message if exc.message.startswith(f"line {line_no}: ") else f"line {line_no}: {exc.message}"
    message = message if len(message) <= 1000 else message[:999] + "…"  # outside input, cut (checks.bounded)
    return kind(message, line=line_no)  # a file names its line; what a service answers with, it does not


@dataclass(frozen=True)
class Door:
    """Where a row comes from: what the decision judges and how a refusal is worded, never what a row means."""

    file: bool = False  # a JSON Lines file's row: refusals in the file's words (the importer adds its line)
    appended: bool = False  # after an existing notebook's head: an adopt names an existing line
    outside: bool = False  # a vault append: no redaction, no move (each has a door that does the rest of it)
    session_rows: bool = True  # a proposal or a landed copy may come (an import's, a new file's; not an append's)
    authors: bool = True  # who may change whose line is judged (an import brings history whole, `by` claimed)
    editors: frozenset[str] = frozenset()  # the editor's names, which only a proven editor's adopt gives as `was_by`


SERVICE = Door()  # the services: card, API, MCP, CLI
# Authors judged already: a land's copies (each proposal was, when written), an add's (precheck, before its read).
JUDGED = Door(authors=False)
IMPORT = Door(file=True, authors=False)  # a file that starts a notebook, a backup to adopt from, verify's replay


def _said(door: Door, kind: type[NotebookError], service: str, filed: str, **details: Any) -> NotebookError:
    return kind(filed if door.file else service, **details)


def missing_line(state: State, door: Door, op: str, n: int) -> NotebookError:
    return _said(
        door, NotFound, f"Notebook {state.title!r} has no line #{n}.", f"{op} of line #{n}, which does not exist"
    )


def already_retired(door: Door, op: str, line: LineState) -> NotebookError:
    filed = f"{op} of line #{line.n}, which is {'retired' if op == 'edit' else 'already retired'}"
    service = f"Line #{line.n} is already retired; its history keeps its words."
    return _said(door, Conflict, service, filed, current_seq=line.last_seq)


# A stale change, said with a row's name: the log's (seq) or the card's (change).
STALE = "Line #{n} changed since you read it (you saw {row} {saw}, it is now at {row} {now})."


def _stale(line: LineState, expected: int | None) -> None:
    if expected is not None and expected != line.last_seq:
        raise Conflict(
            STALE.format(n=line.n, row="seq", saw=expected, now=line.last_seq),
            current=line.words,
            current_seq=line.last_seq,
        )


def number_after(title: str, top: int | None) -> int:
    """The number a new line takes after the highest given, refused when none is left."""
    if top is not None and top >= MAX_NUMBER:
        raise Conflict(
            f"Notebook {title!r} has given its last line number (#{MAX_NUMBER}) and cannot take a new line; "
            "its lines can still be edited and retired."
        )
    return (top or 0) + 1


def _refuse_redacted(state: State, row: dict[str, Any], door: Door) -> None:
    """Redacted words never come back, under either digest they were known by."""
    redacted = state.redacted
    if not redacted:  # most notebooks, and every file until its first redact row
        return
    for digest in (row.get("digest"), row.get("plain")):
        if digest and digest in redacted and row.get("words") is not None:
            where = redacted[digest]
            said = (
                f"Those words were redacted from notebook {state.title!r} (redact row seq {where}); "
                "they cannot be written into it again."
            )
            filed = f"these words were redacted on line {where}; they cannot be written again"
            raise _said(door, Redacted, said, filed, redact_seq=where)


# An outside redact row would name words and delete none (verify then fails); an exported file's are imported.
OUTSIDE_REDACT = (
    "a redact row cannot be appended to a notebook's file: redaction is the human editor's act, through the card, "
    "the command line (notebook redact) or the API, which delete the words with it"
)
# An outside move would name a row the other notebook never got: a move writes both in one transaction.
OUTSIDE_MOVE = (
    "a moved line's row cannot be appended to a notebook's file: a move writes both notebooks at once, through the "
    "card or the command line (notebook move)"
)
# An outside landed copy would make a session's change count without its land (its gate, Dad's decision).
OUTSIDE_SESSION_ROW = (
    "a session's proposal or landed copy cannot be appended to a notebook's file: append plain add, edit and strike "
    "rows (the holder's become her session's proposals), and land the session (notebook land, the API, or Dad on "
    "/sessions/), which runs its gate"
)


def decide(
    state: State, row: dict[str, Any], *, editor: bool, door: Door = SERVICE, session: int | None = None
) -> dict[str, Any]:
    """The row to append (normalised in place), or the refusal. Besides a row's fields `row` may carry `restores`,
    `expected` (the seq the writer read the line at), `plain` (the plain digest) and `verb` (the act's name)."""
    op = row["op"]
    at = row.get("at")
    if at is not None and at < state.at:
        raise Invalid(f"'at' {at} goes back in time (the row before is at {state.at})")
    if door.outside:
        if op == "redact":  # by anyone: no door to delete the words through
            raise Invalid(OUTSIDE_REDACT)
        if row.get("moved_notebook"):
            raise Forbidden(OUTSIDE_MOVE)
    lands = row.get("lands")
    if not door.session_rows and (op == PROPOSE or lands is not None):
        raise Invalid(OUTSIDE_SESSION_ROW)
    if lands is not None and op not in PROPOSABLE:
        raise Invalid(f"'lands' names seq {lands}, which is no unlanded proposal of {op} of line #{row['n']}")
    _DECIDE[op](state, row, editor, door, session)
    return row


def precheck(row: dict[str, Any], *, editor: bool) -> None:
    """What a row's author may not write whatever the notebook holds, asked before the notebook is read."""
    op, by = row["op"], row["by"]
    if op == "redact":
        fold.check_may_redact(name=by, editor=editor)
    elif row.get("how") == MOVED or (op == "add" and row.get("moved_notebook")):
        fold.check_may_move(name=by, editor=editor)
    elif op == "add" and row.get("source") is not None:
        fold.check_may_write(name=by, editor=editor, source=row["source"], verb=row.get("verb", "add"))


def _may_change(row: dict[str, Any], editor: bool, door: Door, line: LineState, verb: str) -> None:
    if door.authors:
        fold.check_may_change(name=row["by"], editor=editor, n=line.n, source=line.source, verb=row.get("verb", verb))


def _add(state: State, row: dict[str, Any], editor: bool, door: Door, session: int | None) -> None:
    source, by, lands = row.get("source"), row["by"], row.get("lands")
    restores = row.get("restores")
    old = state.line(restores, session) if restores is not None else None
    if door.authors and not door.file and row.get("moved_notebook"):
        fold.check_may_move(name=by, editor=editor)
    if restores is not None:
        if row.get("moved_notebook"):
            raise Invalid("an add restores a line of its notebook or moves one in, not both")
        try:
            fold.check_may_restore(
                n=restores, added=old is not None, live=old is not None and old.live,
                restored_as=state.restored_as(restores, session), moved_to=state.moved.get(restores),
            )  # fmt: skip
        except NotebookError as exc:
            raise (type(exc)(f"'restores': {exc.message}") if door.file else exc) from None
        _may_change(row, editor, door, old, "restore")
        if (source is None or door.appended) and old.words is None:
            raise Invalid(f"Line #{restores}'s last words were redacted; they cannot be brought back.")
        if source is None:  # a service's restore brings back the line's last words and source
            source = row["source"] = old.source
            row["words"] = old.words
        elif door.appended and (row.get("words") != old.words or source != old.source):  # words None: marked redacted
            raise Invalid(
                f"'restores': a restore brings back line #{restores}'s last words and source ({old.source}), and this "
                "row's are others: restore it as it was, then edit the new line"
            )
        row["into"] = restores  # the row keeps it in `into`, and hashes it there
    if door.authors:
        fold.check_may_write(
            name=by, editor=editor, source=source, verb="write" if door.file else "restore" if restores else "add"
        )
    if lands is not None:
        _landed(state, row)
    else:
        n = row.get("n")
        if n is None:  # the log gives the number
            row["n"] = number_after(state.title, state.top_n)
        elif n != state.top_n + 1:
            raise Invalid(f"a new line takes number {state.top_n + 1}, not {n} (numbers are never reused)")
    _refuse_redacted(state, row, door)


def _changed(state: State, row: dict[str, Any], editor: bool, door: Door, session: int | None) -> LineState:
    """The live line an edit or a strike changes (in the holder's own view), once the writer may change it."""
    n, op = row["n"], row["op"]
    current = state.own_line(n, session) if session is not None else state.line(n)
    if current is None or not current.live:
        if row.get("lands") is not None and not door.file:
            raise Conflict(
                f"Line #{n} was retired by another writer since the session proposed to {op} it (seq {row['lands']}); "
                "the land would change a retired line. Abandon or discard the session."
            )
        raise missing_line(state, door, op, n) if current is None else already_retired(door, op, current)
    if op == "strike" and row.get("how") == MOVED and door.authors and not door.file:
        fold.check_may_move(name=row["by"], editor=editor)
    _may_change(row, editor, door, current, "edit" if op == "edit" else "retire")
    if row.get("lands") is not None:
        _landed(state, row)
    if not door.file:
        _stale(current, row.get("expected"))
    return current


def _edit(state: State, row: dict[str, Any], editor: bool, door: Door, session: int | None) -> None:
    n = row["n"]
    current = _changed(state, row, editor, door, session)
    landing = row.get("lands") is not None and not door.file
    judged = not door.file or door.appended  # an import brings history whole, a repeated edit too
    if judged and row.get("lands") is None and row["words"] is not None and row["words"] == current.words:
        raise Unchanged(f"Line #{n} already says exactly that; nothing to change.")
    source = row.get("source")
    if source is None:
        filed_by = row["by"] if door.file else None
        source = row["source"] = fold.source_after_edit(editor=editor, current=current.source, filed_by=filed_by)
    elif not landing and source not in (current.source, fold.DAD_CORRECTION):
        raise Invalid(f"an edit keeps the line's source ({current.source}) or makes it dad_correction")
    if door.authors:
        fold.check_may_write(name=row["by"], editor=editor, source=source)
    _refuse_redacted(state, row, door)


def _strike(state: State, row: dict[str, Any], editor: bool, door: Door, session: int | None) -> None:
    n, into = row["n"], row.get("into")
    if row.get("how") == MERGED and into is None:  # a merge is an add and strikes into it: never a strike alone
        raise _said(
            door, Invalid, f"Line #{n} cannot be merged into nothing: name the line it was merged into.",
            "a strike how \"merged\" names the line it was merged into ('into')",
        )  # fmt: skip
    current = _changed(state, row, editor, door, session)
    if row.get("how") == MOVED and not door.file and current.words is None:
        raise Invalid(f"Line #{n}'s words were redacted; there are no words to move.")
    if into is not None:
        if into == n:
            raise _said(
                door, Invalid, f"Line #{n} cannot be retired into itself.", f"line #{n} cannot be retired into itself"
            )
        target = state.line(into, session)
        if target is None or not target.live:
            if row.get("lands") is not None and not door.file:
                raise Conflict(
                    f"Line #{into}, which the session's strike of line #{n} names (seq {row['lands']}), was retired "
                    "by another writer since; the land would retire a line into a retired one."
                )
            filed = f"'into' names line #{into}, which is not a live line"
            if target is None:
                raise _said(door, NotFound, f"Notebook {state.title!r} has no line #{into}.", filed)
            raise _said(door, Invalid, f"Line #{into} is retired, so it cannot say what line #{n} said.", filed)


def _adopt(state: State, row: dict[str, Any], editor: bool, door: Door, session: int | None) -> None:
    n, by = row["n"], row["by"]
    current = state.line(n)
    if door.appended and current is None:  # only a file that starts a notebook brings numbers of its own
        raise _said(
            door, NotFound, f"Notebook {state.title!r} has no line #{n}.",
            f"adopt of line #{n}, which does not exist: an adopt row names an existing line",
        )  # fmt: skip
    if door.authors:  # recovered words enter the line's history: only a proven editor brings back Dad's
        if current is not None:
            fold.check_may_change(name=by, editor=editor, n=n, source=current.source, verb="recover words of")
        if row.get("source"):
            fold.check_may_write(name=by, editor=editor, source=row["source"], verb="recover")
        was_by = row.get("was_by")
        if not editor and was_by and alike_key(was_by) in {alike_key(name) for name in door.editors}:
            # "Dad" or a full-width copy would pass for him in the line's history as well as "dad" itself.
            raise Forbidden(f"{by} is an agent and may not recover words as written by {was_by}.")
    _refuse_redacted(state, row, door)


def _redact(state: State, row: dict[str, Any], editor: bool, door: Door, session: int | None) -> None:
    n, by = row["n"], row["by"]
    if not editor:
        raise _said(
            door, Forbidden, f"{by} may not redact: only the human editor may.",
            f"a redact row must be by the human editor, not {by!r}",
        )  # fmt: skip
    digest = row["redacts"]
    if door.file and "expect_hash" not in row:  # a file's row without a hash may name words by their plain digest
        digest = row["redacts"] = state.keyed.get(digest, digest)
    if n not in state.worded and n not in state.lines:
        raise missing_line(state, door, "redact", n)
    if digest not in state.worded.get(n, ()):
        raise _said(
            door, Invalid, f"No row of line #{n} carries words with digest {digest!r}.",
            f"'redacts' names words that no earlier row of line #{n} carried",
        )  # fmt: skip
    if digest in state.redacted:
        where = state.redacted[digest]
        raise _said(
            door, Conflict, f"Those words of line #{n} were already redacted (seq {where}).",
            f"those words were already redacted on line {where}",
        )  # fmt: skip


def _propose(state: State, row: dict[str, Any], editor: bool, door: Door, session: int | None) -> None:
    """A file's proposal: a proposed add holds its number; a proposed change names a line that has one."""
    n = row["n"]
    if row["proposes"] == "add":
        if n != state.top_n + 1:
            raise Invalid(f"a new line takes number {state.top_n + 1}, not {n} (numbers are never reused)")
    elif n > state.top_n:
        raise Invalid(f"a proposal to change line #{n}, which has no number yet")
    _refuse_redacted(state, row, door)


def _landed(state: State, row: dict[str, Any]) -> None:
    op, n, lands = row["op"], row["n"], row["lands"]
    if op not in PROPOSABLE or state.proposals.get(lands) != (op, n):
        raise Invalid(f"'lands' names seq {lands}, which is no unlanded proposal of {op} of line #{n}")


_DECIDE = {"add": _add, "edit": _edit, "strike": _strike, "adopt": _adopt, "redact": _redact, "propose": _propose}


def finish(state: State) -> None:
    """A file's last check: words marked redacted that no redact row names."""
    unnamed = {d: line for d, line in state.absent.items() if d not in state.redacted and d not in state.named}
    if unnamed:
        digest, line_no = min(unnamed.items(), key=lambda item: item[1])
        raise in_file(
            Invalid(f"the words are marked redacted (digest {digest[:12]}…) but no redact row names them"), line_no
        )


def decide_all(
    state: State, rows: Iterable[dict[str, Any]], *, editor: bool, door: Door = SERVICE
) -> list[dict[str, Any]]:
    """Several rows written together, all or nothing: each judged against the state the ones before it leave."""
    out = []
    for row in rows:
        out.append(decide(state, row, editor=editor, door=door))
        apply(state, row)
    return out
