"""What the log's rows mean, in one place (docs/file-format.md says it for a reader). Pure: no Django, no I/O.

add makes line n (a number is given once, for good); edit replaces a live line's words; strike (retired, merged or
moved) takes a line out of view; adopt and redact change no view. A restore is an add naming the line in `into`, a
merge an add and a strike of each merged line into it, a move a strike here and an add there (move_rows). A session's
row is a proposal (op "propose") that counts only as its landed copy (landed_copies), so a reader that knows only add,
edit and strike reads every view right. Only the human editor writes Dad's sources or changes his lines, redacts, moves.
"""

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from operator import attrgetter
from typing import Any

from notebooks.log.rules.errors import Conflict, Forbidden, Invalid, NotFound
from notebooks.log.views.lines import Line

WORDED = frozenset({"add", "edit"})  # the ops whose words a view shows
PROPOSE = "propose"  # a session's pending row: the op it proposes counts only in its landed copy
PROPOSABLE = frozenset({"add", "edit", "strike"})
RESTORED = "restored"  # not a row's op: in a line's history, the add of another line that restored it
RETIRED_INTO = "retired_into"  # not a row's op: in a line's history, another line's strike into it (merged or not)
SEEN, GUESSED, DAD, DAD_CORRECTION = "seen", "guessed", "dad", "dad_correction"
SOURCES = (SEEN, GUESSED, DAD, DAD_CORRECTION)  # every source a line may have (models.Source), her own first
MAX_NUMBER = 2**31 - 1  # a line number: the n column holds no more on any database
AGENT_SOURCES = frozenset({SEEN, GUESSED})
DAD_SOURCES = frozenset({DAD, DAD_CORRECTION})

# A row as a view folds it: (seq, op, n, source, by, at, hash, text, redacted).
ViewRow = tuple[int, str, int, str, str, float, str, "str | None", bool]

# tuple.__new__ straight from C: the named tuple's own __new__ is Python and doubles the cost of 15k lines.
make_line = partial(tuple.__new__, Line)
_number = attrgetter("n")


class LiveLines:
    """The live lines in number order, kept sorted as rows are applied."""

    __slots__ = ("lines",)

    def __init__(self, lines: Iterable[Line] = ()) -> None:
        self.lines: list[Line] = list(lines)

    def apply(
        self, seq: int, op: str, n: int, source: str, by: str, at: float, text: str | None, redacted: bool = False
    ) -> None:
        if op not in WORDED and op != "strike":
            return  # adopt and redact change no view
        lines = self.lines
        if op == "add" and (not lines or lines[-1].n < n):
            lines.append(make_line((n, text, source, by, at, seq, redacted)))
            return
        i = bisect_left(lines, n, key=_number)
        found = i < len(lines) and lines[i].n == n
        if op == "strike":
            if found:
                del lines[i]
        elif found:
            lines[i] = make_line((n, text, source, by, at, seq, redacted))
        elif op == "add":
            lines.insert(i, make_line((n, text, source, by, at, seq, redacted)))

    def get(self, n: int) -> Line | None:
        lines = self.lines
        i = bisect_left(lines, n, key=_number)
        return lines[i] if i < len(lines) and lines[i].n == n else None

    def copy(self) -> list[Line]:
        return list(self.lines)

    def __len__(self) -> int:
        return len(self.lines)


def fold_view(rows: Iterable[ViewRow], lines: Iterable[Line] = ()) -> list[Line]:
    """The live lines the rows leave after `lines`, in number order (a holder's proposals after the landed lines)."""
    view = LiveLines(lines)
    for seq, op, n, source, by, at, _hash, text, redacted in rows:
        view.apply(seq, op, n, source, by, at, text, redacted)
    return view.lines


@dataclass(slots=True)
class LineState:
    n: int
    source: str
    words: str | None  # None once redacted (or unknown)
    live: bool = True
    last_seq: int = 0

    def apply(self, seq: int, op: str, source: str, words: str | None) -> None:
        if op == "adopt" or op == PROPOSE:
            return  # recovered words are history, not the line; a proposal counts only once landed
        if op == "edit" and self.live:
            self.source, self.words = source, words
        elif op == "strike":
            self.live = False
        self.last_seq = seq


def line_state(n: int, rows: Iterable[tuple[int, str, str, str | None]]) -> LineState | None:
    """Line n from its rows (seq, op, source, words) in log order; None when it was never added."""
    state: LineState | None = None
    for seq, op, source, words in rows:
        if state is None:
            if op == "add":
                state = LineState(n=n, source=source, words=words, last_seq=seq)
            continue
        state.apply(seq, op, source, words)
    return state


# The fields of a proposal a land copies (the words by digest, as the proposal had them).
LANDED_FIELDS = ("n", "words", "digest", "salt", "source", "by", "why", "how", "into", "moved_notebook", "moved_n")


def landed_copies(proposals: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rows a land appends: a plain row of each proposal's op, in their order, naming it in `lands`."""
    copies = []
    for p in proposals:
        if p["op"] != PROPOSE or p["proposes"] not in PROPOSABLE:
            raise Invalid(f"Seq {p.get('seq')} is not a proposal; only a proposal lands.")
        row = {key: p.get(key) for key in LANDED_FIELDS}
        copies.append({**row, "op": p["proposes"], "lands": p["seq"]})
    return copies


def check_may_write(*, name: str, editor: bool, source: str, verb: str = "write") -> None:
    if not editor and source not in AGENT_SOURCES:
        raise Forbidden(f"{name} is an agent and may {verb} only seen or guessed lines, not {source}.")


def check_may_change(*, name: str, editor: bool, n: int, source: str, verb: str) -> None:
    if not editor and source not in AGENT_SOURCES:
        raise Forbidden(f"{name} may not {verb} line #{n}: it is Dad's ({source}); only the human editor may.")


def check_may_restore(
    *, n: int, added: bool, live: bool, restored_as: int | None, moved_to: "tuple[str, int] | None" = None
) -> None:
    """A retired line is restored once, as a new line; a moved one lives on in the other notebook, never here too."""
    if not added:
        raise NotFound(f"There is no line #{n} to restore.")
    if live:
        raise Invalid(f"Line #{n} is not retired; there is nothing to restore.")
    if restored_as is not None:
        raise Conflict(f"Line #{n} was already restored, as line #{restored_as}.")
    if moved_to is not None:
        there, m = moved_to
        raise Conflict(
            f"Line #{n} was moved to {there!r}, where it is line #{m}: it is not restored here. "
            f"To bring it back, move line #{m} of {there!r} to this notebook."
        )


def check_may_redact(*, name: str, editor: bool) -> None:
    if not editor:
        raise Forbidden(f"{name} may not redact: only the human editor may.")


def redacted_seq(worded: Sequence[tuple[int, str]], seq: int | None) -> int | None:
    """The row of `worded` [(seq, op)] a redaction takes: row `seq`, else the line's last add or edit; or None."""
    if seq is not None:
        return seq if any(s == seq for s, _op in worded) else None
    return next((s for s, op in reversed(worded) if op in WORDED), None)


def check_may_move(*, name: str, editor: bool) -> None:
    if not editor:
        raise Forbidden(f"{name} may not move lines between notebooks: only the human editor may.")


@dataclass(frozen=True)
class Authored:
    by: str
    at: float


def author_of(*, by: str, at: float, was_by: str, was_at: float | None, moved: bool) -> Authored:
    """The row's own author, unless it moved the words in: then the one it kept (a line moved twice names the first)."""
    if moved and was_by:
        return Authored(was_by, at if was_at is None else was_at)
    return Authored(by, at)


def move_rows(
    *, n: int, m: int, words: str, source: str, author: Authored, by: str, why: str, here: str, there: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The strike here and the add there of a move of line n of notebook `here` to line m of notebook `there`."""
    strike = {"op": "strike", "n": n, "how": "moved", "by": by, "why": why, "moved_notebook": there, "moved_n": m}
    add = {
        "op": "add", "n": m, "words": words, "source": source, "by": by, "why": why,
        "moved_notebook": here, "moved_n": n, "was_by": author.by, "was_at": author.at,
    }  # fmt: skip
    return strike, add


def source_after_edit(*, editor: bool, current: str, filed_by: str | None = None) -> str:
    """An unnamed edit source: the editor's (or a file's row by "dad", a field read, not a grant) is his correction."""
    return DAD_CORRECTION if editor or filed_by == DAD else current


@dataclass(frozen=True)
class MergeSource:
    source: str
    kept: int | None = None


def merge_source(*, editor: bool, lines: Sequence[tuple[int, str, str | None]], text: str) -> MergeSource:
    """The source of a merge that names none, from the merged lines' (number, source, words now).

    The editor's words equal to a merged line's (stripped; redacted words match nothing) keep that line's source (the
    lowest number's), else they are his correction (dad when every line was his). An agent's: seen if any was seen."""
    if not editor:
        return MergeSource(SEEN if any(s == SEEN for _n, s, _w in lines) else GUESSED)
    said = text.strip()
    same = sorted((n, s) for n, s, w in lines if w is not None and w.strip() == said)
    if same:
        return MergeSource(same[0][1], kept=same[0][0])
    return MergeSource(DAD if all(s == DAD for _n, s, _w in lines) else DAD_CORRECTION)
