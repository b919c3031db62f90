"""Reads for Dad's review: his last review mark, the lines new or changed since it, the retired lines, and what
changed between a past view and now. Each is one query or comes from the kept views, never a query per line."""

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection

from notebooks.log.store import rows as stored
from notebooks.log.views import selectors
from notebooks.log.views.lines import Line
from notebooks.log.views.queries import ALL, words_or_mark
from notebooks.models import Notebook


@dataclass(frozen=True)
class Mark:
    """His last review of a notebook: up to row `seq`, at time `at`; `top_n` is the highest number used then."""

    seq: int
    at: float | None
    top_n: int

    @property
    def never(self) -> bool:
        return self.at is None


NEVER = Mark(seq=0, at=None, top_n=0)


def last_mark(notebook: Notebook, reviewer: str) -> Mark:
    """The reviewer's latest mark on the notebook (NEVER before his first: everything is new), in one query."""
    with connection.cursor() as cursor:
        cursor.execute(
            'SELECT seq, at, top_n FROM notebooks_reviewmark WHERE notebook_id = %s AND "by" = %s '
            "ORDER BY seq DESC, id DESC LIMIT 1",
            [notebook.pk, reviewer],
        )
        found = cursor.fetchone()
    return Mark(seq=found[0], at=found[1], top_n=found[2]) if found else NEVER


def last_marks(reviewer: str) -> dict[int, int]:
    """The reviewer's latest reviewed seq per notebook id, in one query (the index page)."""
    with connection.cursor() as cursor:
        cursor.execute(
            'SELECT notebook_id, MAX(seq) FROM notebooks_reviewmark WHERE "by" = %s GROUP BY notebook_id', [reviewer]
        )
        return dict(cursor.fetchall())


def new_since(lines: Iterable[Line], mark: Mark) -> dict[int, str]:
    """The lines added or changed after the mark, by number: "new" when added since, else "changed".

    A line's `seq` is its last add or edit, so this reads the view already in hand; a line whose number is above
    every number used at the mark was added since (numbers are given in order, never reused)."""
    seq, top_n = mark.seq, mark.top_n
    return {line.n: ("new" if line.n > top_n else "changed") for line in lines if line.seq > seq}


@dataclass(frozen=True)
class Retired:
    """A retired or merged line: its last words, who took it out, when and why, and what says it now."""

    n: int
    text: str | None
    source: str
    seq: int
    by: str
    at: float
    why: str
    how: str
    into: int | None  # the line that now says it (merged into, or named when retired)
    restored_as: int | None  # the line that brought its words back
    moved_notebook: str | None = None  # moved to another notebook (fold.py): its title and the line it became
    moved_n: int | None = None


def retired_lines(notebook: Notebook, cut: int = ALL) -> list[Retired]:
    """Every retired or merged line at row `cut`, most recently retired first, in one query."""
    found = stored.retired_rows(notebook.pk, cut)
    out = []
    for n, body, gone, source, seq, by, at, why, how, into, restored, moved_notebook, moved_n in found:
        text, _redacted = words_or_mark(body, gone)
        out.append(Retired(n, text, source, seq, by, at, why, how, into, restored, moved_notebook, moved_n))
    return out


@dataclass(frozen=True)
class Changes:
    """What changed between a past view and now: lines added, changed (then and now) and retired since."""

    added: list[Line]
    changed: list[tuple[Line, Line]]
    retired: list[Line]

    @property
    def count(self) -> int:
        return len(self.added) + len(self.changed) + len(self.retired)


def changes_since(notebook: Notebook, cut: int) -> Changes:
    """Compare the view at row `cut` with the view now (both from the kept views)."""
    then = {line.n: line for line in selectors.view_at_seq(notebook, cut)}
    now = {line.n: line for line in selectors.view_at_seq(notebook)}
    return Changes(
        added=[line for n, line in now.items() if n not in then],
        changed=[(then[n], line) for n, line in now.items() if n in then and then[n].seq != line.seq],
        retired=[line for n, line in then.items() if n not in now],
    )
