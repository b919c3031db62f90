"""Reads of the log: views (kept.py, checked against the log on every read), a line, its history, the turn, heads."""

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple, TypeVar

from django.db import connection

from notebooks.log.files import rowformat
from notebooks.log.rules import fold
from notebooks.log.rules.checks import is_number
from notebooks.log.rules.errors import NotFound
from notebooks.log.rules.lines import ALL, Head, Line, head_of
from notebooks.log.store import view_reads as viewed
from notebooks.log.store.locked_reads import (
    check_comparable,
    get_notebook,  # noqa: F401 - the notebook a reader names, read here
    head,
    not_found,
)
from notebooks.log.views import history as history_fold
from notebooks.log.views import kept
from notebooks.log.views.history import Entry
from notebooks.log.views.queries import cut_for, line_by_sql, row_by_time, words_or_mark
from notebooks.models import Notebook

TURN_ORDER = (fold.DAD_CORRECTION, fold.DAD, fold.SEEN, fold.GUESSED)
T = TypeVar("T")


def notebook_and_head(title: str, also: Sequence[tuple[str, list]] = ()) -> tuple[Notebook, Head, tuple]:
    """The notebook, its head and the `also` columns (view_reads.notebook_head), in one statement."""
    check_comparable(title)
    found = viewed.notebook_head(title, also)
    if found is None:
        raise not_found(title)
    nb_id, nb_title, seq, hash_, at, *extra = found
    notebook = Notebook.from_db(connection.alias, ["id", "title"], (nb_id, nb_title))
    return notebook, head_of((seq, hash_, at)), tuple(extra)


def head_at(notebook: Notebook, *, until: float | None = None) -> Head:
    """The head a reader pins: the last row (at or before `until`), its seq and hash."""
    return head(notebook) if until is None else row_by_time(notebook, until)


def view(notebook: Notebook, *, until: float | None = None) -> list[Line]:
    """The live lines in number order; with `until`, exactly as the log stood at that time."""
    return pinned_view(notebook, until=until).lines


def view_at_seq(notebook: Notebook, cut: int = ALL) -> list[Line]:
    """The live lines as the log stood at row `cut`; without a cut, the live view now."""
    if cut >= ALL:
        return kept.live(notebook)[0]
    return kept.past(notebook, cut).live.copy()


@dataclass(frozen=True)
class PinnedView:
    """The live lines as of one row, named by that row's seq and hash."""

    seq: int
    hash: str | None
    lines: list[Line]


def pinned_view(notebook: Notebook, *, until: float | None = None) -> PinnedView:
    """The live lines at `until` (or now) with the seq and hash of the row they stand at."""
    lines, top = kept.live(notebook) if until is None else kept.past(notebook, until=until).copy()
    return PinnedView(top.seq, top.hash if top.seq else None, lines)


def made_from(view: kept.KeptView, name: str, make: Callable[[PinnedView], T]) -> T:
    """What `make` makes of a kept view's lines, made once and kept with it under `name` (the caller holds its lock)."""
    if name not in view.made:
        view.made[name] = make(PinnedView(view.seq, view.hash if view.seq else None, view.lines))
    return view.made[name]


def made_from_live(notebook: Notebook, name: str, make: Callable[[PinnedView], T]) -> T:
    """made_from the live view: made once per head (every read still checks the head against the log)."""
    return kept.with_live(notebook, lambda view: made_from(view, name, make))


def live_line(notebook: Notebook, n: int, cut: int = ALL) -> Line | None:
    """Line n as the view shows it, or None when it is retired (or never was)."""
    if cut >= ALL:  # from the kept view: one query, then a binary search by number
        return kept.with_live(notebook, lambda live: live.live.get(n))
    return line_by_sql(notebook, n, cut)


def in_turn_order(lines: list[Line]) -> list[Line]:
    rank = {source: i for i, source in enumerate(TURN_ORDER)}
    return sorted(lines, key=lambda line: (rank.get(line.source, len(rank)), line.n))


def history(notebook: Notebook, n: int) -> list[Entry]:
    """Every row of line n (history.py), with other lines' adds restoring it and strikes into it."""
    if not is_number(n):
        raise NotFound(f"Notebook {notebook.title!r} has no line #{n}.")  # and SQLite could not even bind it
    found, others = viewed.line_history_rows(notebook.pk, n)
    if not found:
        raise NotFound(f"Notebook {notebook.title!r} has no line #{n}.")
    said = words_before(notebook, [(row[0], row[1]) for row in others if row[2] == "strike"])
    rows = []
    moved = {seq: (there, m) for row_n, seq, *_, there, m, _p, _s, _l, _c, _gone in found if there}  # rows moving it
    # A session's proposals and the landed copies of them (fold.py): the op proposed, the session, the proposal.
    proposed = {row[1]: (p, s, landed) for row in found for p, s, landed in [row[-5:-2]] if p or landed is not None}
    claimed = {row[1]: row[-2] for row in found if row[-2] is not None}  # an outside writer's own time (rowformat)
    for row_n, seq, op, body, source, by, at, why, how, into, *rest, _there, _m, _p, _s, _l, _c, gone in sorted(
        found + others, key=lambda row: row[1]
    ):
        words, redacted = words_or_mark(body, gone)
        if row_n != n and op == "add":  # another line's add that restored this one: the new line's number in `into`
            op, into = fold.RESTORED, row_n
        elif row_n != n:  # another line's strike into this one: that line's number in `into`, its words then
            op, into = fold.RETIRED_INTO, row_n
            words, source, redacted = said[row_n, seq]
        rows.append((seq, op, words, source, by, at, why, how, into, *rest, redacted))
    return history_fold.history(rows, n, moved, proposed, claimed)


class Said(NamedTuple):
    text: str | None
    source: str
    redacted: bool


def words_before(notebook: Notebook, wanted: Iterable[tuple[int, int]]) -> dict[tuple[int, int], Said]:
    """What each (line, seq) said just before row seq (fold.line_state), in one query; text None when nothing yet."""
    wanted = list(wanted)
    if not wanted:
        return {}
    numbers = sorted({m for m, _seq in wanted})
    found = viewed.words_rows_before(notebook.pk, numbers, max(seq for _m, seq in wanted))
    words = {digest: words_or_mark(body, gone) for _n, _s, _op, _src, digest, body, gone in found if digest}
    by_line: dict[int, list[tuple[int, str, str, str]]] = {}
    for m, seq, op, src, digest, *_ in found:
        by_line.setdefault(m, []).append((seq, op, src, digest))  # the digest stands in for the words
    said = {}
    for m, at_seq in wanted:
        state = fold.line_state(m, [row for row in by_line.get(m, ()) if row[0] < at_seq])
        text, redacted = words.get(state.words, (None, False)) if state and state.words else (None, False)
        said[m, at_seq] = Said(text, state.source if state else "", redacted)
    return said


def merge_source(notebook: Notebook, numbers: list[int], text: str, *, editor: bool = True) -> fold.MergeSource:
    """The source a merge of these lines into these words would give (fold.merge_source); lines not live left out."""
    lines = [live_line(notebook, x) for x in numbers if is_number(x)]
    said = [(x.n, x.source, None if x.redacted else x.text) for x in lines if x is not None]
    return fold.merge_source(editor=editor, lines=said, text=text)


def turn(notebook: Notebook, *, until: float | None = None) -> str:
    """The text a play turn carries: Dad's corrections, his other lines, then hers, each tagged (kept with its view)."""

    def kept_turn(view: kept.KeptView) -> str:
        if view.turn is None:
            view.turn = turn_text(notebook, view.lines, view.head)
        return view.turn

    return kept.with_live(notebook, kept_turn) if until is None else kept_turn(kept.past(notebook, until=until))


def turn_text(notebook: Notebook, live: list[Line], top: Head) -> str:
    """The turn of these lines (also a holder's own view: answers.turn), standing at `top`."""
    lines = in_turn_order(live)
    stands = datetime.fromtimestamp(top.at, tz=UTC).isoformat(timespec="seconds") if top.seq else "its start"
    parts = [f"# Notebook {notebook.title!r} as it stood at {stands} (seq {top.seq}, head {top.hash[:16]})"]
    parts += [f"[#{line.n} {line.source}] {turn_words(line.text)}" for line in lines]
    parts.append(rowformat.GAME_ONLY)
    return "\n".join(parts)


# Escaped, not refused: a lesson may need two lines, and rows already in a log cannot be refused now.
CONTINUED = "\n    | "  # a line's next line of words: indented and marked, so it never starts a line of the turn
_TAG = re.compile(r"\[(?=\s*#)")  # "[#2 dad]" in words reads "\[#2 dad]": no tag but the turn's own
LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")  # what str.splitlines (and a reader) ends a line at
_KEPT = frozenset("\t\u200c\u200d")  # tab and the zero-width joiners of scripts and emoji


def escaped(text: str, line_break: str = "") -> str:
    """`text` with each control or format character escaped, but a line break as `line_break` when one is given."""
    out = []
    for ch in text:
        if ch.isprintable() or ch in _KEPT or unicodedata.category(ch) == "Zs":  # Zs: a no-break space, not a control
            out.append(ch)
        else:
            out.append(line_break if line_break and ch in LINE_BREAKS else ascii(ch)[1:-1])
    return "".join(out)


def turn_words(text: str) -> str:
    """A line's words as the turn shows them, so nothing in them reads as another line, the header or the footer."""
    if text.isprintable() and "[" not in text:
        return text  # the usual line, at once
    return escaped(_TAG.sub(r"\\[", text.replace("\r\n", "\n")), CONTINUED)


def rows(notebook: Notebook, *, after: int = 0, upto: int = ALL, limit: int | None = None) -> Iterator[dict[str, Any]]:
    """Raw rows in log order as export objects (words included), streamed from one query."""
    for values in viewed.export_rows(notebook.pk, after, upto, limit):
        row = dict(zip(viewed.EXPORT_NAMES, values[:-2], strict=True))
        yield rowformat.export_row(row, values[-1], redacted_why=values[-2])


def export(notebook: Notebook, *, until: float | None = None) -> Iterator[str]:
    for row in rows(notebook, upto=cut_for(notebook, until)):
        yield rowformat.dumps(row)


class NotebookHead(NamedTuple):
    id: int
    title: str
    head: Head  # NO_ROWS before its first row


def notebook_heads() -> list[NotebookHead]:
    """By title, in one query."""
    return [NotebookHead(nb_id, title, head_of(found)) for nb_id, title, *found in viewed.notebook_heads()]


def heads() -> dict[str, Head]:
    return {found.title: found.head for found in notebook_heads()}


def row_hash(notebook: Notebook, seq: int) -> str | None:
    found = viewed.row_at(notebook.pk, seq)  # (seq, hash, at)
    return found[1] if found else None
