"""Reads of similar lines: the groups of a notebook's live lines (minus what Dad marked "Not alike") and the live
lines nearest a new one. The one cache of both: groups are made once per head and kept with the live view
(selectors.made_from_live, checked against the log on every read); the index `nearest_for` reads is kept per
notebook in process memory and brought up to the head by the lines that changed, so an add can afford it.
"""

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
from django.conf import settings
from scipy import sparse

from notebooks.log.store import rows as stored
from notebooks.log.views import kept
from notebooks.log.views import selectors as log_selectors
from notebooks.log.views.lines import Line
from notebooks.log.views.lru import LRU, notebook_key
from notebooks.models import NotAlike, Notebook
from notebooks.similar import engine
from notebooks.similar.engine import Group

T = TypeVar("T")

GROUPS = "similar.groups"  # the name the groups and their pairs are kept under in the live view's made answers
INDEXES_KEPT = 64  # notebooks whose nearest-line index this process keeps (least recently used dropped first)
REFIT_SHARE = 1.0  # lines changed since the index was fitted, as a share of it, before it is fitted again


@dataclass(frozen=True)
class Budget:
    """The most the engine compares in one go: the newest live lines, while both counts hold."""

    lines: int
    characters: int


UNBOUNDED = Budget(lines=2**62, characters=2**62)  # the CLI's --all: the operator's own time, not a web worker's


def budget() -> Budget:
    """The Similar view's budget (NOTEBOOK_SIMILAR_LINES, NOTEBOOK_SIMILAR_CHARACTERS): the engine's cost grows with
    both, and 1,500 lines of 3,900 characters or 150,000 short ones held a web worker far past its timeout."""
    return Budget(lines=settings.NOTEBOOK_SIMILAR_LINES, characters=settings.NOTEBOOK_SIMILAR_CHARACTERS)


@dataclass(frozen=True)
class Compared:
    """What the engine compared: `lines` of the `of` live lines with words (the newest), `characters` of their
    words; `cut` when it stopped short of the rest, and why."""

    lines: int
    of: int
    characters: int
    budget: Budget

    @property
    def cut(self) -> bool:
        return self.lines < self.of

    @property
    def said(self) -> str:
        """The page's and the CLI's plain words for a cut, "" when every line was compared."""
        if not self.cut:
            return ""
        return (
            f"Compared only the {self.lines:,} newest of {self.of:,} lines ({self.characters:,} characters): the "
            f"Similar view stops at {self.budget.lines:,} lines or {self.budget.characters:,} characters so that it "
            f"answers in a few seconds. Older lines were not compared; retire or merge lines to bring them in."
        )


def within(lines: list[Line], limit: Budget) -> list[Line]:
    """The newest of `lines` (highest numbers first) that fit the budget, in number order: the engine's input."""
    kept: list[Line] = []
    used = 0
    for x in sorted(lines, key=lambda x: -x.n):
        size = len(x.text or "")
        if len(kept) >= limit.lines or used + size > limit.characters:
            break
        kept.append(x)
        used += size
    return kept[::-1]


def _compared_lines(view: "log_selectors.PinnedView", limit: Budget) -> list[tuple[int, str, str]]:
    return [(x.n, x.text, x.source) for x in within(_worded(view.lines), limit)]


def _made(notebook: Notebook, name: str, limit: Budget, make: "Callable[[log_selectors.PinnedView], T]") -> T:
    """What `make` makes of the live view, kept per head under `name` and the budget it was made within."""
    return log_selectors.made_from_live(notebook, f"{name}:{limit.lines}:{limit.characters}", make)


@dataclass(frozen=True)
class _Found:
    """The engine's answer for one head: the groups, the alike pairs by line number, and each line's pairs."""

    groups: list[Group]
    pairs: dict[tuple[int, int], float]
    by_line: dict[int, list[tuple[int, int]]]


def _found(notebook: Notebook, limit: Budget) -> _Found:
    """engine.groups and engine.line_pairs of the compared lines, from one computation of their pairs (the most a
    cold Similar view costs; it was made twice)."""

    def make(view: "log_selectors.PinnedView") -> _Found:
        lines = sorted(_compared_lines(view, limit))
        sim = engine.tfidf_pairs([text or "" for _, text, _ in lines])
        pairs = {(lines[i][0], lines[j][0]): v for (i, j), v in sim.items()}
        by_line: dict[int, list[tuple[int, int]]] = {}
        for pair in pairs:
            by_line.setdefault(pair[0], []).append(pair)
            by_line.setdefault(pair[1], []).append(pair)
        return _Found(engine.group(lines, sim), pairs, by_line)

    return _made(notebook, GROUPS, limit, make)


def _worded(lines: list[Line]) -> list[Line]:
    """The lines with words: a redacted line shows only its mark, which says nothing about the game."""
    return [x for x in lines if x.text and not x.redacted]


def compared_for(notebook: Notebook, limit: Budget | None = None) -> Compared:
    """How much of the live view the groups were made from, and whether the budget cut it short."""
    limit = limit or budget()

    def count(view: "log_selectors.PinnedView") -> Compared:
        worded = _worded(view.lines)
        compared = within(worded, limit)
        return Compared(len(compared), len(worded), sum(len(x.text or "") for x in compared), limit)

    return _made(notebook, "similar.compared", limit, count)


def also_close_for(
    notebook: Notebook, members: tuple[int, ...], k: int = 3, limit: Budget | None = None
) -> list[tuple[int, float]]:
    """Live lines outside a group that are close to one of its lines ([(n, score)], closest first), offered beside
    the group for Dad to add: the pairs are made once per head with the live view, and indexed by line, so each
    group reads only its own lines' pairs (engine.also_close read every pair once per group)."""
    found = _found(notebook, limit or budget())
    near = {pair: found.pairs[pair] for n in set(members) for pair in found.by_line.get(n, ())}
    return engine.also_close(near, members, k)


def live_marks(notebook: Notebook) -> list[NotAlike]:
    """The notebook's "Not alike" marks that no later row undoes, oldest first (each can be undone from the view)."""
    rows = list(NotAlike.objects.filter(notebook=notebook).order_by("id"))
    undone = {r.undoes_id for r in rows if r.undoes_id is not None}
    return [r for r in rows if r.undoes_id is None and r.pk not in undone]


def hidden_by(group: Group, marks: list[frozenset[int]]) -> bool:
    """A group is hidden while one live mark covers all its lines: a line joining it shows it again."""
    return any(set(group.lines) <= mark for mark in marks)


def groups_for(notebook: Notebook, limit: Budget | None = None) -> list[Group]:
    """The groups of live lines now, best first, minus those a live "Not alike" mark covers; made of the newest
    lines within the budget (compared_for says whether it cut them short)."""
    found = _found(notebook, limit or budget()).groups
    marks = [frozenset(mark.lines) for mark in live_marks(notebook)]
    return [g for g in found if not hidden_by(g, marks)] if marks else list(found)


# ----- the nearest lines to a new one ---------------------------------------------------------------------------


FOLLOW_ROWS = 500  # rows since the index's head it follows one by one; past this, it compares every live line


@dataclass
class _Index:
    """TF-IDF rows of a notebook's live lines: those of the last fit, minus lines gone since, plus lines new since
    (vectors made with the fit's vocabulary and weights, so a word new since then counts only from the next fit)."""

    seq: int
    hash: str
    weigher: engine.Weigher
    base: sparse.csr_matrix
    base_numbers: list[int]
    gone: np.ndarray  # bool per base row: retired or changed since the fit
    row_of: dict[int, tuple[int, int]]  # n -> (base row or -1 for an extra, the line's seq)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # The lines new since the fit as one matrix, and followed by the rows since, not by every line: the API's add
    # with nearest_for after it went from 1.27x to 1.13x the add alone at 1,000 lines (bench/NOTES.md).
    extra: dict[int, int] = field(default_factory=dict)  # n -> its extra row
    extra_numbers: list[int] = field(default_factory=list)
    extra_gone: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    extra_columns: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    extra_weights: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    extra_indptr: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int32))
    extra_matrix: sparse.csr_matrix | None = None  # made from the arrays above when first read after an add

    @classmethod
    def fitted(cls, lines: list[Line], seq: int, hash: str) -> "_Index":
        vec, matrix = engine.tfidf_matrix([x.text or "" for x in lines])
        row_of = {x.n: (i, x.seq) for i, x in enumerate(lines)}
        gone = np.zeros(len(lines), dtype=bool)
        return cls(seq, hash, engine.Weigher(vec), matrix, [x.n for x in lines], gone, row_of)

    def follow_view(self, view: kept.KeptView, notebook: Notebook) -> bool:
        """Brought to the live view's head (the caller holds the view's lock); False when it should be fitted again:
        too much changed, or the log is not the one it was fitted on."""
        if (self.seq, self.hash) == (view.seq, view.hash):
            return True
        if view.seq < self.seq or view.seq - self.seq > FOLLOW_ROWS:
            return self._follow_all(within(_worded(view.live.lines), budget()), view.seq, view.hash)
        found = stored.row_lines(notebook.pk, self.seq, view.seq)  # lines the rows since touched, its own row
        if self.seq and not any(seq == self.seq and h == self.hash for seq, _, h in found):
            return False
        for n in {n for seq, n, _ in found if seq > self.seq}:
            line = view.live.get(n)
            worded = line is not None and bool(line.text) and not line.redacted
            had = self.row_of.get(n)
            if had is not None and worded and had[1] == line.seq:
                continue
            if had is not None:
                self._drop(n)
            if worded:
                self._add(line)
        self.seq, self.hash = view.seq, view.hash
        return self._small()

    def _follow_all(self, lines: list[Line], seq: int, hash: str) -> bool:
        now = {x.n: x.seq for x in lines}
        for n in [n for n, (_, at) in self.row_of.items() if now.get(n) != at]:
            self._drop(n)
        for x in lines:
            if x.n not in self.row_of:
                self._add(x)
        self.seq, self.hash = seq, hash
        return self._small()

    def _drop(self, n: int) -> None:
        row, _ = self.row_of.pop(n)
        if row >= 0:
            self.gone[row] = True
        extra = self.extra.pop(n, None)
        if extra is not None:
            self.extra_gone[extra] = True

    def _add(self, line: Line) -> None:
        columns, weights = self.weigher.sparse(line.text or "")
        self.extra[line.n] = len(self.extra_numbers)
        self.extra_numbers.append(line.n)
        self.extra_gone = np.append(self.extra_gone, False)
        self.extra_columns = np.concatenate([self.extra_columns, columns.astype(np.int32)])
        self.extra_weights = np.concatenate([self.extra_weights, weights.astype(np.float32)])
        self.extra_indptr = np.append(self.extra_indptr, np.int32(len(self.extra_columns)))
        self.extra_matrix = None
        self.row_of[line.n] = (-1, line.seq)

    def _small(self) -> bool:
        changed = len(self.extra_numbers) + int(self.gone.sum())
        return changed <= max(256, REFIT_SHARE * len(self.base_numbers))

    def nearest(self, text: str, k: int, exclude: int | None) -> list[tuple[int, float]]:
        query = self.weigher.dense(text)
        scores = self.base @ query
        scores[self.gone] = 0.0
        found = [(float(scores[i]), self.base_numbers[i]) for i in np.nonzero(scores >= engine.NEAREST_AT)[0]]
        if self.extra:
            if self.extra_matrix is None:
                entries = (self.extra_weights, self.extra_columns, self.extra_indptr)
                self.extra_matrix = sparse.csr_matrix(entries, shape=(len(self.extra_numbers), query.shape[0]))
            extra = self.extra_matrix @ query
            extra[self.extra_gone] = 0.0
            found += [(float(extra[i]), self.extra_numbers[i]) for i in np.nonzero(extra >= engine.NEAREST_AT)[0]]
        ranked = sorted((-s, n) for s, n in found if n != exclude)[:k]
        return [(n, round(-s, 4)) for s, n in ranked]


_indexes: LRU[_Index] = LRU(most=lambda: INDEXES_KEPT)


def _index(notebook: Notebook) -> _Index:
    key = notebook_key(notebook)
    index = _indexes.get(key)
    if index is not None:
        with index.lock:
            if kept.with_live(notebook, lambda view: index.follow_view(view, notebook)):
                return index
    # Fitted on the newest lines within the Similar view's budget: 150,000 lines took an add 31 s to fit.
    lines, top = kept.with_live(notebook, lambda view: (within(_worded(view.live.lines), budget()), view.head))
    index = _Index.fitted(lines, top.seq, top.hash)
    return _indexes.keep(key, lambda _old: index)


def nearest_for(
    notebook: Notebook,
    text: str,
    *,
    exclude: int | None = None,
    k: int = 3,
    pending: "list[Line] | None" = None,
    hidden: "set[int] | None" = None,
) -> list[dict]:
    """The live lines most like `text` ([{"n", "score"}], at most k, most alike first; empty when none is close),
    `exclude` left out (the line just added). For the answer to an add: it names, it never refuses. A session's
    holder reads her own writes: `pending` are lines her proposals wrote (new or new words), `hidden` the numbers
    they took out of her view or gave other words. Only the newest lines within budget() are looked among, and
    those written since."""
    if pending and not _worded(kept.live(notebook)[0]):  # only her pending lines so far: nothing to fit an index on
        mine = [(x.n, x.text, x.source) for x in _worded(pending) if x.n != exclude]
        return [{"n": n, "score": s} for n, s in engine.nearest(mine, text, k)]
    index = _index(notebook)
    hidden = (hidden or set()) | {x.n for x in pending or ()}
    with index.lock:
        found = [(n, s) for n, s in index.nearest(text, k + len(hidden), exclude) if n not in hidden]
        if pending:
            found += _nearest_pending(index, text, _worded(pending), k, exclude)
    return [{"n": n, "score": s} for n, s in sorted(found, key=lambda f: (-f[1], f[0]))[:k]]


def _nearest_pending(
    index: _Index, text: str, pending: list[Line], k: int, exclude: int | None
) -> list[tuple[int, float]]:
    """Pending lines like `text`, weighed with the index's fit."""
    query = index.weigher.dense(text)
    found = []
    for x in pending:
        columns, weights = index.weigher.sparse(x.text or "")
        score = float(weights @ query[columns])
        if x.n != exclude and score >= engine.NEAREST_AT:
            found.append((x.n, round(score, 4)))
    return found


def forget() -> None:
    """Drop every nearest-line index (tests; the groups live with the kept views, kept.forget drops them)."""
    _indexes.clear()
