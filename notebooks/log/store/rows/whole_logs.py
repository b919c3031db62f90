"""A whole log, or every log at once: a log's rows streamed to verify or to judge what is appended after them, its
adds counted per day, the audit's page of rows across every notebook, every writer, and the planner's statistics."""

from collections.abc import Iterator
from typing import Any

from django.db import connection

from notebooks.log.rules import fold
from notebooks.log.store.rows.sessions import SESSION_ROW_SQL
from notebooks.log.store.view_reads import (
    EXPORT_NAMES,
    WORDS_JOIN,
    Found,
    fetch_all,
    redacted_why_sql,
    streamed,
    withdrawn_sql,
)


def rows_to_verify(notebook_id: int) -> Iterator[dict[str, Any]]:
    """Every row of the notebook in log order with its words and salt, by column name, streamed from one query."""
    names = [*EXPORT_NAMES, "body"]
    for values in streamed(f"{SESSION_ROW_SQL}WHERE r.notebook_id = %s ORDER BY r.seq", [notebook_id]):
        yield dict(zip(names, values, strict=True))


def rows_to_judge(notebook_id: int) -> Iterator[Found]:
    """Every row of the notebook in log order, as an import judges rows after them: (seq, op, n, source, at, digest,
    redacts, into, moved_notebook, moved_n, proposes, lands, session_id, withdrawn), streamed from one query."""
    return streamed(
        'SELECT seq, op, n, source, at, digest, redacts, "into", moved_notebook, moved_n, proposes, lands, '
        f"session_id, CASE WHEN op = '{fold.PROPOSE}' AND {withdrawn_sql('r')} THEN 1 ELSE 0 END "
        "FROM notebooks_row r WHERE notebook_id = %s ORDER BY seq",
        [notebook_id],
    )


# The columns reads filter, join or group on: statistics of the hashes, reasons and words (long text, sorted
# by ANALYZE) took most of its time and steer no plan. Any ANALYZE updates the tables' sizes.
ANALYZED = (
    'notebooks_row (notebook_id, seq, n, op, at, "by", digest, redacts, session_id), '
    "notebooks_words (notebook_id, digest)"
)


def analyze() -> None:
    """Statistics for the planner (PostgreSQL), of the columns reads steer by."""
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {ANALYZED}")


# The lines a merge made keeping one merged line's words (the same words have one digest in a notebook): those
# words were counted already, on the day the merged line first had them.
MERGED_KEEPING_WORDS_SQL = """
SELECT DISTINCT m."into" FROM notebooks_row m
JOIN notebooks_row a ON a.notebook_id = m.notebook_id AND a.n = m."into" AND a.op = 'add'
JOIN notebooks_row x ON x.notebook_id = m.notebook_id AND x.n = m.n AND x.op IN ('add', 'edit') AND x.digest = a.digest
WHERE m.notebook_id = %s AND m.op = 'strike' AND m.how = 'merged' AND m.seq <= %s AND a.digest <> ''
"""


def added_per_day(notebook_id: int, cut: int) -> list[Found]:
    """(UTC day since 1970, source, count) of add rows up to seq `cut`, by day and source; a restore's add and a
    merge's add that keeps a merged line's words are not new lines and are not counted."""
    if connection.vendor == "postgresql":
        day = "CAST(FLOOR(at / 86400) AS BIGINT)"
    else:
        day = "CAST(at / 86400 AS INTEGER)"  # at is never negative, so truncation is floor
    return fetch_all(
        f"SELECT {day} AS day, source, COUNT(*) FROM notebooks_row "
        "WHERE notebook_id = %s AND op = 'add' AND seq <= %s AND \"into\" IS NULL "
        f"AND n NOT IN ({MERGED_KEEPING_WORDS_SQL}) GROUP BY day, source ORDER BY day, source",
        [notebook_id, cut, notebook_id, cut],
    )


def audit_page(
    *, notebook: str, by: str, op: str, since: float | None, until: float | None, page: int, per_page: int
) -> tuple[list[Found], int, int]:
    """A page of rows across every notebook, newest first, filtered; with the total and the page shown (a page past
    the last shows the last). Each row: id, title, seq, op, n, words, source, by, why, how, into, at, was_at,
    was_by, moved_notebook, moved_n, notebook id, redacted why."""
    filters = {"nb.title = %s": notebook or None, 'r."by" = %s': by or None, "r.op = %s": op or None}
    filters |= {"r.at >= %s": since, "r.at <= %s": until}
    given = {sql: value for sql, value in filters.items() if value is not None}
    condition = " AND ".join(["1 = 1", *given])
    params = list(given.values())
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
            f"r.was_at, r.was_by, r.moved_notebook, r.moved_n, nb.id, {redacted_why_sql('r', 'w')} "
            f"FROM notebooks_row r JOIN notebooks_notebook nb ON nb.id = r.notebook_id {WORDS_JOIN} "
            f"WHERE {condition} ORDER BY {order} LIMIT %s OFFSET %s",
            [*params, per_page, (page - 1) * per_page],
        )
        return cursor.fetchall(), total, page


def writers() -> list[str]:
    return [name for (name,) in fetch_all('SELECT DISTINCT "by" FROM notebooks_row ORDER BY "by"')]
