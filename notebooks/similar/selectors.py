"""Reads of similar lines: a notebook's groups (minus Dad's "Not alike" marks), made once per head with the live view,
and the lines nearest a new one, from an index kept per notebook in memory and followed by the lines that changed."""

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import accumulate

import numpy as np
from django.conf import settings
from scipy import sparse

from notebooks.log.rules.lines import Line
from notebooks.log.store import rows as stored
from notebooks.log.views import kept
from notebooks.log.views import selectors as log_selectors
from notebooks.log.views.lru import LRU, notebook_key
from notebooks.models import NotAlike, Notebook
from notebooks.similar import engine
from notebooks.similar.engine import Group

INDEXES_KEPT = 64  # notebooks whose nearest-line index this process keeps (least recently used dropped first)
REFIT_SHARE = 1.0  # lines changed since the index was fitted, as a share of it, before it is fitted again
FOLLOW_ROWS = 500  # rows since the index's head it follows one by one; past this, it compares every live line


@dataclass(frozen=True)
class Budget:
    """The most the engine compares in one go: the newest live lines, while both counts hold."""

    lines: int
    characters: int


UNBOUNDED = Budget(lines=2**62, characters=2**62)  # the CLI's --all: the operator's own time, not a web worker's


def budget() -> Budget:
    """The Similar view's budget: 1,500 lines of 3,900 characters or 150,000 short ones held a worker past timeout."""
    return Budget(lines=settings.NOTEBOOK_SIMILAR_LINES, characters=settings.NOTEBOOK_SIMILAR_CHARACTERS)


@dataclass(frozen=True)
class Compared:
    """What the engine compared: the newest `lines` of the `of` live lines with words, `characters` of their words."""

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
    newest = sorted(lines, key=lambda x: -x.n)[: max(0, limit.lines)]
    used = accumulate(len(x.text or "") for x in newest)  # never decreasing: the lines that fit are a prefix
    return [x for x, upto in zip(newest, used, strict=True) if upto <= limit.characters][::-1]


@dataclass(frozen=True)
class _Found:
    """The engine's answer for one head, with each line's alike pairs by line number."""

    compared: Compared
    groups: list[Group]
    by_line: dict[int, dict[tuple[int, int], float]]


def _worded(lines: Iterable[Line | None]) -> list[Line]:
    """The lines with words: a redacted line shows only its mark, which says nothing about the game."""
    return [x for x in lines if x is not None and x.text and not x.redacted]


def _found(notebook: Notebook, limit: Budget, drawn: int | None = None) -> _Found:
    """Made once per head and budget with the live view; with `drawn`, of the lines as they stood at that row (the
    head when Dad opened the view), kept with that past view: a decision since changes no other group."""

    def make(view: log_selectors.PinnedView) -> _Found:
        worded = _worded(view.lines)
        lines = [(x.n, x.text, x.source) for x in within(worded, limit)]
        sim = engine.tfidf_pairs([text for _, text, _ in lines])
        by_line: dict[int, dict[tuple[int, int], float]] = {}
        for (i, j), v in sim.items():
            pair = (lines[i][0], lines[j][0])
            for n in pair:
                by_line.setdefault(n, {})[pair] = v
        compared = Compared(len(lines), len(worded), sum(len(text) for _, text, _ in lines), limit)
        return _Found(compared, engine.group(lines, sim), by_line)

    name = f"similar.groups:{limit.lines}:{limit.characters}"
    if drawn is None or drawn >= log_selectors.head(notebook).seq:
        return log_selectors.made_from_live(notebook, name, make)
    past = kept.past(notebook, drawn)
    with past.lock:
        return log_selectors.made_from(past, name, make)


def compared_for(notebook: Notebook, limit: Budget | None = None, *, drawn: int | None = None) -> Compared:
    """How much of the live view the groups were made from, and whether the budget cut it short."""
    return _found(notebook, limit or budget(), drawn).compared


def also_close_for(
    notebook: Notebook, members: tuple[int, ...], *, drawn: int | None = None
) -> list[tuple[int, float]]:
    """Live lines outside a group close to one of its lines ([(n, score)], closest first), from its own lines' pairs."""
    by_line = _found(notebook, budget(), drawn).by_line
    return engine.also_close({p: s for n in set(members) for p, s in by_line.get(n, {}).items()}, members)


def live_marks(notebook: Notebook) -> list[NotAlike]:
    """The notebook's "Not alike" marks that no later row undoes, oldest first."""
    rows = list(NotAlike.objects.filter(notebook=notebook).order_by("id"))
    undone = {r.undoes_id for r in rows if r.undoes_id is not None}
    return [r for r in rows if r.undoes_id is None and r.pk not in undone]


def groups_for(notebook: Notebook, limit: Budget | None = None, *, drawn: int | None = None) -> list[Group]:
    """The groups of live lines now (or at row `drawn`: some may be gone), best first, but those a live "Not alike"
    mark covers all the lines of."""
    marks = [frozenset(mark.lines) for mark in live_marks(notebook)]
    return [g for g in _found(notebook, limit or budget(), drawn).groups if not any(set(g.lines) <= m for m in marks)]


@dataclass
class _Index:
    """TF-IDF rows of a notebook's live lines: the last fit's, minus lines gone since, plus lines new since (weighed
    with the fit's vocabulary: a new word counts only from the next fit)."""

    seq: int
    hash: str
    weigher: engine.Weigher
    base: sparse.csr_matrix
    numbers: list[int]  # each row's line: the fit's rows, then the extra rows of lines new since
    gone: np.ndarray  # bool per row: retired or changed since it was made
    row_of: dict[int, tuple[int, int]]  # n -> (its row, the line's seq)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # The lines new since the fit scored as one matrix, and followed by the rows since, not by every line: the API's
    # add with nearest_for after it went from 1.27x to 1.13x the add alone at 1,000 lines (bench/NOTES.md).
    extra_rows: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)  # (columns, weights) each
    extra_matrix: sparse.csr_matrix | None = None  # made from extra_rows when first read after an add

    def follow_view(self, view: kept.KeptView, notebook: Notebook) -> bool:
        """Brought to the live view's head (under the view's lock); False: too much changed, or another log."""
        if (self.seq, self.hash) == (view.seq, view.hash):
            return True
        if view.seq < self.seq or view.seq - self.seq > FOLLOW_ROWS:
            now = {x.n: x for x in within(_worded(view.live.lines), budget())}
            touched = set(self.row_of) | set(now)
        else:
            found = stored.row_lines(notebook.pk, self.seq, view.seq)  # lines the rows since touched, its own row
            if self.seq and not any(seq == self.seq and h == self.hash for seq, _, h in found):
                return False
            touched = {n for seq, n, _ in found if seq > self.seq}
            now = {x.n: x for x in _worded(view.live.get(n) for n in touched)}
        for n in touched:
            line, had = now.get(n), self.row_of.get(n)
            if had is not None and line is not None and had[1] == line.seq:
                continue
            if had is not None:
                self.gone[self.row_of.pop(n)[0]] = True
            if line is not None:
                self._add(line)
        self.seq, self.hash = view.seq, view.hash
        fitted = self.base.shape[0]
        changed = len(self.numbers) - fitted + int(self.gone[:fitted].sum())
        return changed <= max(256, REFIT_SHARE * fitted)

    def _add(self, line: Line) -> None:
        self.extra_rows.append(self.weigher.sparse(line.text or ""))
        self.extra_matrix = None
        self.row_of[line.n] = (len(self.numbers), line.seq)
        self.numbers.append(line.n)
        self.gone = np.append(self.gone, False)

    def nearest(self, text: str, k: int, exclude: int | None) -> list[tuple[int, float]]:
        query = self.weigher.dense(text)
        scores = self.base @ query
        if self.extra_rows:
            if self.extra_matrix is None:
                columns, weights = zip(*self.extra_rows, strict=True)
                entries = (np.concatenate(weights), np.concatenate(columns), np.cumsum([0, *map(len, columns)]))
                self.extra_matrix = sparse.csr_matrix(entries, shape=(len(columns), query.shape[0]))
            scores = np.concatenate([scores, self.extra_matrix @ query])
        scores[self.gone] = 0.0
        found = [(float(scores[i]), self.numbers[i]) for i in np.nonzero(scores >= engine.NEAREST_AT)[0]]
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
    vec, matrix = engine.tfidf_matrix([x.text or "" for x in lines])
    row_of = {x.n: (i, x.seq) for i, x in enumerate(lines)}
    gone = np.zeros(len(lines), dtype=bool)
    index = _Index(top.seq, top.hash, engine.Weigher(vec), matrix, [x.n for x in lines], gone, row_of)
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
    """The live lines most like `text` ([{"n", "score"}], at most k, most alike first), `exclude` left out. A holder
    reads her own writes: `pending` are lines her proposals wrote, `hidden` the numbers they hid or reworded."""
    if not _worded(kept.live(notebook)[0]):  # no live words to fit an index on: her pending lines alone, if any
        mine = [(x.n, x.text, x.source) for x in _worded(pending or []) if x.n != exclude]
        return [{"n": n, "score": s} for n, s in engine.nearest(mine, text, k)]
    index = _index(notebook)
    hidden = (hidden or set()) | {x.n for x in pending or ()}
    with index.lock:
        found = [(n, s) for n, s in index.nearest(text, k + len(hidden), exclude) if n not in hidden]
        if pending:
            query = index.weigher.dense(text)
            for x in _worded(pending):  # her pending lines, weighed with the index's fit
                columns, weights = index.weigher.sparse(x.text or "")
                score = float(weights @ query[columns])
                if x.n != exclude and score >= engine.NEAREST_AT:
                    found.append((x.n, round(score, 4)))
    return [{"n": n, "score": s} for n, s in sorted(found, key=lambda f: (-f[1], f[0]))[:k]]


def forget() -> None:
    """Drop every nearest-line index (tests; kept.forget drops the groups)."""
    _indexes.clear()
