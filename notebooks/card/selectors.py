"""Reads for Dad's pages: every notebook's counts, lines added per day, the audit of every row."""

from collections import Counter
from dataclasses import dataclass

from django.db import connection

from notebooks.card.review import last_marks
from notebooks.log import kept
from notebooks.log.errors import NotFound
from notebooks.log.queries import ALL, redacted_why_sql, words_or_mark
from notebooks.log.selectors import TURN_ORDER
from notebooks.log.write_state import line_state
from notebooks.models import Notebook


@dataclass(frozen=True)
class NotebookSummary:
    title: str
    counts: dict[str, int]
    rows: int
    last_at: float | None
    new: int = 0  # live lines added or changed since the reader's last review mark (all of them before his first)

    @property
    def live(self) -> int:
        return sum(self.counts.values())

    @property
    def by_source(self) -> list[tuple[str, int]]:
        """The counts in turn order, sources without live lines left out."""
        rank = {source: i for i, source in enumerate(TURN_ORDER)}
        return sorted(((s, c) for s, c in self.counts.items() if c), key=lambda sc: (rank.get(sc[0], 99), sc[0]))


HEADS_SQL = """
SELECT nb.id, nb.title, h.seq, h.at
FROM notebooks_notebook nb
LEFT JOIN notebooks_row h ON h.notebook_id = nb.id
  AND h.seq = (SELECT MAX(m.seq) FROM notebooks_row m WHERE m.notebook_id = nb.id)
ORDER BY nb.title
"""


def notebook_summaries(reviewer: str = "") -> list[NotebookSummary]:
    """Every notebook with its live lines counted by source, the time of its last row and how many lines are new
    since the reviewer's last mark: the counts come from each notebook's kept view (one query each when warm), not
    from grouping every row of every notebook."""
    with connection.cursor() as cursor:
        cursor.execute(HEADS_SQL)
        heads = cursor.fetchall()
    marks = last_marks(reviewer)
    summaries = []
    for nb_id, title, seq, at in heads:
        counts: dict[str, int] = {}
        new = 0
        if seq:
            notebook = Notebook.from_db(connection.alias, ["id", "title"], (nb_id, title))
            live = kept.live(notebook)[0]
            counts = dict(Counter(line.source for line in live))
            reviewed = marks.get(nb_id, 0)
            new = sum(1 for line in live if line.seq > reviewed)
        summaries.append(NotebookSummary(title=title, counts=counts, rows=seq or 0, last_at=at, new=new))
    return summaries


@dataclass(frozen=True)
class DayCount:
    day: int  # days since 1970-01-01, UTC
    source: str
    count: int


def added_per_day(notebook: Notebook, cut: int = ALL) -> list[DayCount]:
    """Lines added (add rows, retired ones included) per UTC day and source, up to seq `cut`."""
    if connection.vendor == "postgresql":
        day = "CAST(FLOOR(at / 86400) AS BIGINT)"
    else:
        day = "CAST(at / 86400 AS INTEGER)"  # at is never negative, so truncation is floor
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {day} AS day, source, COUNT(*) FROM notebooks_row "
            "WHERE notebook_id = %s AND op = 'add' AND seq <= %s GROUP BY day, source ORDER BY day, source",
            [notebook.pk, cut],
        )
        return [DayCount(int(d), s, c) for d, s, c in cursor.fetchall()]


@dataclass(frozen=True)
class AuditRow:
    id: int
    notebook: str
    seq: int
    op: str
    n: int
    text: str | None
    source: str
    by: str
    why: str
    how: str
    into: int | None
    at: float
    was_at: float | None
    was_by: str


@dataclass(frozen=True)
class AuditPage:
    rows: list[AuditRow]
    total: int
    page: int
    per_page: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))


def audit(
    *,
    notebook: str = "",
    by: str = "",
    op: str = "",
    since: float | None = None,
    until: float | None = None,
    page: int = 1,
    per_page: int = 50,
) -> AuditPage:
    """Rows across every notebook, newest first (by insertion id: seqs are per notebook), filtered and paged."""
    where, params = ["1 = 1"], []
    if notebook:
        where.append("nb.title = %s")
        params.append(notebook)
    if by:
        where.append('r."by" = %s')
        params.append(by)
    if op:
        where.append("r.op = %s")
        params.append(op)
    if since is not None:
        where.append("r.at >= %s")
        params.append(since)
    if until is not None:
        where.append("r.at <= %s")
        params.append(until)
    condition = " AND ".join(where)
    # One notebook's rows come in seq order: its (notebook, seq) index gives a page without sorting all of them.
    order = "r.seq DESC" if notebook else "r.id DESC"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COUNT(*) FROM notebooks_row r JOIN notebooks_notebook nb ON nb.id = r.notebook_id "
            f"WHERE {condition}",
            params,
        )
        (total,) = cursor.fetchone()
        # A page past the last shows the last: page 10**20 would overflow the database's OFFSET (a 500).
        page = min(max(1, page), max(1, -(-total // per_page)))
        cursor.execute(
            'SELECT r.id, nb.title, r.seq, r.op, r.n, w.body, r.source, r."by", r.why, r.how, r."into", r.at, '
            f"r.was_at, r.was_by, {redacted_why_sql('r', 'w')} "
            "FROM notebooks_row r JOIN notebooks_notebook nb ON nb.id = r.notebook_id "
            "LEFT JOIN notebooks_words w ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
            f"WHERE {condition} ORDER BY {order} LIMIT %s OFFSET %s",
            [*params, per_page, (page - 1) * per_page],
        )
        found = [
            AuditRow(*values[:5], words_or_mark(values[5], values[-1])[0], *values[6:-1])
            for values in cursor.fetchall()
        ]
    return AuditPage(rows=found, total=total, page=page, per_page=per_page)


def titles() -> list[str]:
    """Every notebook's title, for the audit's filter."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT title FROM notebooks_notebook ORDER BY title")
        return [title for (title,) in cursor.fetchall()]


def actors() -> list[str]:
    """Every name that wrote a row, for the audit's filter."""
    with connection.cursor() as cursor:
        cursor.execute('SELECT DISTINCT "by" FROM notebooks_row ORDER BY "by"')
        return [name for (name,) in cursor.fetchall()]


def last_words(notebook: Notebook, n: int) -> str | None:
    """Line n's last words as the fold has them, live or retired: what a restore brings back (services.restore reads
    the same fold). None when they were redacted or the line never was."""
    try:
        return line_state(notebook, n).words
    except NotFound:
        return None
