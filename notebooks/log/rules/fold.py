"""What the log's rows mean, in one place (docs/file-format.md says it for a reader). Pure: no Django, no I/O.

- add makes line n with its words and source; a number is given once, for good;
- edit replaces a live line's words (and source); an edit of a retired line changes nothing in a view;
- strike (retired, merged or moved) takes the line out of view; adopt keeps recovered words in its history only;
  redact removes words, which then read "[redacted: why]";
- an add that `restores` m (kept in `into`) is a new line that undoes m's retirement without reusing its number:
  m must have been added, be retired and never restored before; both lines' histories show the restore;
- a merge is an add of the new line and a strike of each merged line, how="merged", into it (its history shows
  each line merged or retired into it, RETIRED_INTO, with the words that line had then);
- a move (move_rows) is a strike here, how="moved", and an add of the same words and source there, by whoever moved
  it, each naming the other end in `moved_notebook` and `moved_n` (`into` names lines of its own notebook only);
  the add keeps the words' author and time in `was_by` and `was_at`;
- a session's row is a proposal, op "propose", naming the op it proposes (a merge and a restore propose those) with
  that op's fields: it changes no view, line state or count, but a proposed add holds its number; only its
  session's own reads and checks see it, as the op it proposes (fold_view). A land appends a landed copy of each
  (landed_copies), naming it in `lands`, at the land's own place in the log, so a frozen view never changes; an
  abandoned or discarded session's proposals never count.
So a reader that knows only add, edit and strike reads every view right. Who may do what: the human editor may write
any source and change any line; an agent writes and changes only seen or guessed lines; only the editor redacts and
moves lines between notebooks.
"""

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from operator import attrgetter
from typing import Any

from notebooks.log.rules.errors import Conflict, Forbidden, Invalid, NotFound
from notebooks.log.rules.lines import Line

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
