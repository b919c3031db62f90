"""Views kept folded in this process's memory, so a read costs one indexed query: a kept view is used while the row it
stands at keeps its hash (which chains every row before it), the rows after it folded in; else it is computed again."""

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from notebooks.log.rules.fold import WORDED, LiveLines
from notebooks.log.rules.lines import Head, Line
from notebooks.log.store import view_reads as viewed
from notebooks.log.views import queries
from notebooks.log.views.lru import LRU, notebook_key
from notebooks.models import Notebook

T = TypeVar("T")
FOLD_STEP = 2000  # rows read past a kept view in one go; more than that and it is computed again
VIEWS_KEPT = 256  # views kept, live and past (least recently read dropped first)…
LINES_KEPT = 200_000  # …and no more lines than this in all of them (about 100 MB)


@dataclass
class KeptView:
    """The live view as the log stood at row `seq` (whose hash is `hash`)."""

    seq: int
    hash: str
    at: float
    live: LiveLines
    lock: threading.Lock = field(default_factory=threading.Lock)
    turn: str | None = None  # the turn text at this head, made on the first turn read
    made: dict[str, Any] = field(default_factory=dict)  # other answers made from this head (selectors.made_from_live)
    redactions: int = 0  # redact rows in the notebook when folded: a past view holds words a later one removed

    @property
    def head(self) -> Head:
        return Head(self.seq, self.hash, self.at)

    @property
    def lines(self) -> list[Line]:
        return self.live.lines

    def copy(self) -> tuple[list[Line], Head]:
        return self.live.copy(), self.head

    def fold_forward(self, rows: Sequence[tuple]) -> bool:
        """Fold rows (view_reads.fold_rows's) in; False, the view unchanged, if they break its chain or redact words."""
        prev_seq, prev_hash = self.seq, self.hash
        for seq, op, _n, _source, _by, _at, row_prev, row_hash, _digest, body in rows:
            if seq != prev_seq + 1 or row_prev != prev_hash or op == "redact":
                return False
            if body is None and op in WORDED:  # words redacted before this row came: a new view shows the mark
                return False
            prev_seq, prev_hash = seq, row_hash
        apply = self.live.apply
        for seq, op, n, source, by, at, _prev, _hash, _digest, body in rows:
            apply(seq, op, n, source, by, at, body)
        last = rows[-1]
        self.seq, self.at, self.hash, self.turn, self.made = last[0], last[5], last[7], None, {}
        return True


# (alias, database name, notebook[, cut seq]) -> view
_views: LRU[KeptView] = LRU(most=lambda: VIEWS_KEPT, weigh=lambda view: len(view.live), heaviest=lambda: LINES_KEPT)


def forget() -> None:
    _views.clear()


def forget_notebook(notebook: Notebook) -> None:
    """Drop the notebook's kept views, live and past, and their turn texts (a redaction's words may be in them)."""
    key = notebook_key(notebook)
    _views.drop(lambda found: found[:3] == key)


def fold_in(notebook: Notebook, top: Head, written: Sequence[Any]) -> None:
    """Rows just committed after `top` folded into the kept live view, if it stands at `top` (reads still check it)."""
    view = _views.get(notebook_key(notebook))
    if view is None or not written:
        return
    with view.lock:
        if view.seq == top.seq and view.hash == top.hash:
            rows = [(w.seq, w.op, w.n, w.source, w.by, w.at, w.prev_hash, w.hash, "", w.body) for w in written]
            view.fold_forward(rows)


def with_live(notebook: Notebook, use: Callable[[KeptView], T]) -> T:
    """`use` applied to the notebook's live view, brought up to the log's head (or computed again), under its lock."""
    key = notebook_key(notebook)
    view = _views.get(key)
    if view is not None:
        with view.lock:
            # The row the view stands at and up to FOLD_STEP rows after it, in one bounded range (seqs are dense).
            found = viewed.fold_rows(notebook.pk, max(view.seq, 1) - 1, view.seq + FOLD_STEP)
            if view.seq == 0:
                found.insert(0, (0, "", 0, "", "", 0.0, "", queries.NO_ROWS.hash, "", None))
            if found and found[0][0] == view.seq and found[0][7] == view.hash and len(found) <= FOLD_STEP:
                if len(found) == 1 or view.fold_forward(found[1:]):
                    return use(view)
    lines, top = queries.computed_view(notebook)
    view = KeptView(top.seq, top.hash, top.at, LiveLines(lines), redactions=viewed.count_redactions(notebook.pk))
    _views.keep(key, lambda _old: view)
    with view.lock:
        return use(view)


def live(notebook: Notebook) -> tuple[list[Line], Head]:
    return with_live(notebook, KeptView.copy)


def past(notebook: Notebook, cut: int = queries.ALL, *, until: float | None = None) -> KeptView:
    """The view as the log stood at row `cut` (or at time `until`), kept under the seq of the row it stands at."""
    top, redactions = queries.row_and_redactions(notebook, cut, until)
    key = (*notebook_key(notebook), top.seq)
    view = _views.get(key)
    if view is not None and view.hash == top.hash and view.redactions == redactions:
        return view
    lines, found = queries.computed_view(notebook, top.seq)
    view = KeptView(found.seq, found.hash, found.at, LiveLines(lines), redactions=redactions)
    _views.keep(key, lambda _old: view)
    return view


def kept_seq(notebook: Notebook) -> int | None:
    """The seq the notebook's kept live view stands at, unchecked; None when none is kept."""
    view = _views.get(notebook_key(notebook))
    return None if view is None else view.seq


def kept_sizes() -> list[int]:
    """How many lines each kept view holds, least recently read first."""
    return [len(view.live) for view in _views.values()]
