"""The row table's other questions (what views read is view_reads.py's, a session's rows session_rows.py's), each
one statement: a notebook's head and numbers, a line's rows, a whole log or every log. Each returns the database's
tuples as they come."""

import functools
from collections.abc import Iterator
from typing import Any

from django.db import connection

from notebooks.log.rules import fold
from notebooks.log.store.locks import LOCK_BY_TITLE
from notebooks.log.store.view_reads import (
    EXPORT_COLUMNS,
    EXPORT_NAMES,
    WORDS_JOIN,
    Found,
    fetch_all,
    fetch_one,
    proposed_op_sql,
    redacted_why_sql,
    streamed,
    withdrawn_sql,
)


# ----- a notebook's head and numbers ----------------------------------------------------------------------------------
def top_number(notebook_id: int, upto: int | None = None) -> int | None:
    """The highest line number the notebook gave (at or before row `upto`); None before its first row."""
    if upto is None:
        return fetch_one("SELECT MAX(n) FROM notebooks_row WHERE notebook_id = %s", [notebook_id])[0]
    return fetch_one("SELECT MAX(n) FROM notebooks_row WHERE notebook_id = %s AND seq <= %s", [notebook_id, upto])[0]


def head_and_top_number(notebook_id: int) -> Found | None:
    """(seq, hash, at, highest number) of the notebook's last row, in one query; None before its first row."""
    return fetch_one(
        "SELECT seq, hash, at, (SELECT MAX(n) FROM notebooks_row WHERE notebook_id = %s) "
        "FROM notebooks_row WHERE notebook_id = %s ORDER BY seq DESC LIMIT 1",
        [notebook_id, notebook_id],
    )


# One statement, not one per question: each through Django's cursor costs more CPU than SQLite spends on it.
# locked_reads.state_of_add judges its answer, which tests/log/test_fast_path_agrees.py checks against the fast path.
@functools.cache
def add_state_sql(may_claim_sql: str, where: str) -> str:
    return (
        "SELECT nb.id, r.seq, r.hash, r.at, (SELECT MAX(x.n) FROM notebooks_row x WHERE x.notebook_id = nb.id), "
        "(SELECT x.seq FROM notebooks_row x WHERE x.notebook_id = nb.id AND x.op = 'redact' AND x.redacts IN (%s, %s) "
        f"LIMIT 1), {may_claim_sql} FROM notebooks_notebook nb LEFT JOIN notebooks_row r ON r.notebook_id = nb.id "
        f"AND r.seq = (SELECT MAX(x.seq) FROM notebooks_row x WHERE x.notebook_id = nb.id) WHERE {where}"
    )


def add_state(title: str, may_claim_sql: str, actor_name: str, digests: tuple[str, str]) -> Found | None:
    """(notebook id, head seq, hash, at, top number, redact seq, may claim) for an add, read under the lock; or None."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(LOCK_BY_TITLE, (title,))
            locked = cursor.fetchone()
            if locked is None:
                return None
            cursor.execute(add_state_sql(may_claim_sql, "nb.id = %s"), (*digests, actor_name, locked[0]))
        else:
            cursor.execute(add_state_sql(may_claim_sql, "nb.title = %s"), (*digests, actor_name, title))
        return cursor.fetchone()


# ----- a line's rows and the lines that name it -----------------------------------------------------------------------
def line_rows(notebook_id: int, n: int, session: int | None) -> list[Found]:
    """Line n's (seq, op, source, words) in log order, `session`'s proposals as the ops they propose."""
    return fetch_all(
        f"SELECT r.seq, {proposed_op_sql('r', of_session=True)}, r.source, w.body FROM notebooks_row r {WORDS_JOIN} "
        "WHERE r.notebook_id = %s AND r.n = %s ORDER BY r.seq",
        [session, notebook_id, n],
    )


def redact_rows_naming(notebook_id: int, digests: list[str]) -> dict[str, int]:
    """Which of these digests (at most 500) a redact row of the notebook names, with that row's seq."""
    found = fetch_all(
        "SELECT redacts, seq FROM notebooks_row WHERE notebook_id = %s AND op = 'redact' "
        f"AND redacts IN ({', '.join(['%s'] * len(digests))})",
        [notebook_id, *digests],
    )
    return dict(found)


def restoring_line(notebook_id: int, n: int, session: int | None) -> int | None:
    """The line whose add restored line n (or, for `session`'s holder, whose proposed add does)."""
    # Not MIN(n): SQLite would then walk every add of the notebook by number, not row_restores_idx.
    sql = "SELECT n FROM notebooks_row WHERE notebook_id = %s AND op = 'add' AND \"into\" = %s"
    found = fetch_one(sql, [notebook_id, n])
    if found is None and session is not None:
        found = fetch_one(
            "SELECT n FROM notebooks_row r WHERE notebook_id = %s AND op = 'propose' AND proposes = 'add' "
            f'AND "into" = %s AND session_id = %s AND NOT {withdrawn_sql("r")}',
            [notebook_id, n, session],
        )
    return found[0] if found else None


def merged_into(notebook_id: int, n: int) -> list[int]:
    """The lines merged into line n (their strikes how="merged" naming it), by number."""
    found = fetch_all(
        "SELECT n FROM notebooks_row WHERE notebook_id = %s AND op = 'strike' AND how = 'merged' AND \"into\" = %s "
        "ORDER BY n",
        [notebook_id, n],
    )
    return [x for (x,) in found]


def last_strike_moved(notebook_id: int, n: int) -> Found | None:
    return fetch_one(
        "SELECT moved_notebook, moved_n FROM notebooks_row WHERE notebook_id = %s AND n = %s AND op = 'strike' "
        "ORDER BY seq DESC LIMIT 1",
        [notebook_id, n],
    )


def version_words(title: str, n: int, seq: int) -> Found | None:
    """(words,) of row `seq` if it is an add, edit or adopt of line n in notebook `title` (None words: redacted)."""
    return fetch_one(
        "SELECT w.body FROM notebooks_row r LEFT JOIN notebooks_words w ON w.notebook_id = r.notebook_id "
        "AND w.digest = r.digest JOIN notebooks_notebook nb ON nb.id = r.notebook_id "
        "WHERE nb.title = %s AND r.n = %s AND r.seq = %s AND r.op IN ('add', 'edit', 'adopt')",
        [title, n, seq],
    )


def last_worded(notebook_id: int, n: int) -> Found | None:
    return fetch_one(
        'SELECT "by", at, was_by, was_at, moved_notebook FROM notebooks_row WHERE notebook_id = %s AND n = %s '
        "AND op IN ('add', 'edit') ORDER BY seq DESC LIMIT 1",
        [notebook_id, n],
    )


def line_digests(notebook_id: int, n: int) -> list[Found]:
    return fetch_all(
        "SELECT seq, op, digest FROM notebooks_row WHERE notebook_id = %s AND n = %s ORDER BY seq", [notebook_id, n]
    )


def first_line_keeping(notebook_id: int, digest: str) -> int | None:
    """The first line whose row carries these words (kept: not redacted), or None."""
    found = fetch_one(
        "SELECT r.n FROM notebooks_row r JOIN notebooks_words w ON w.notebook_id = r.notebook_id "
        "AND w.digest = r.digest WHERE r.notebook_id = %s AND r.digest = %s ORDER BY r.seq LIMIT 1",
        [notebook_id, digest],
    )
    return found[0] if found is not None else None


RETIRED_SQL = """
SELECT s.n, w.body, {why}, r.source, s.seq, s."by", s.at, s.why, s.how, s."into",
       (SELECT a.n FROM notebooks_row a
        WHERE a.notebook_id = s.notebook_id AND a.op = 'add' AND a."into" = s.n AND a.seq <= %(cut)s LIMIT 1),
       s.moved_notebook, s.moved_n
FROM notebooks_row s
JOIN notebooks_row r ON r.notebook_id = s.notebook_id AND r.n = s.n AND r.seq = (
    SELECT MAX(x.seq) FROM notebooks_row x
    WHERE x.notebook_id = s.notebook_id AND x.n = s.n AND x.op IN ('add', 'edit') AND x.seq < s.seq)
LEFT JOIN notebooks_words w ON w.notebook_id = r.notebook_id AND w.digest = r.digest
WHERE s.notebook_id = %(nb)s AND s.op = 'strike' AND s.seq <= %(cut)s
ORDER BY s.seq DESC
""".replace("{why}", redacted_why_sql("r", "w"))


def retired_rows(notebook_id: int, cut: int) -> list[Found]:
    """Every strike up to row `cut`, latest first, with the words the line had before it (RETIRED_SQL's columns)."""
    return fetch_all(RETIRED_SQL, {"nb": notebook_id, "cut": cut})


def row_lines(notebook_id: int, first: int, last: int) -> list[Found]:
    return fetch_all(
        "SELECT seq, n, hash FROM notebooks_row WHERE notebook_id = %s AND seq >= %s AND seq <= %s",
        [notebook_id, first, last],
    )


# ----- a whole log, or every log --------------------------------------------------------------------------------------
def rows_to_verify(notebook_id: int) -> Iterator[dict[str, Any]]:
    """Every row of the notebook in log order with its words and salt, by column name, streamed from one query."""
    names = [*EXPORT_NAMES, "body"]
    sql = f"SELECT {EXPORT_COLUMNS}, w.body FROM notebooks_row r {WORDS_JOIN} WHERE r.notebook_id = %s ORDER BY r.seq"
    for values in streamed(sql, [notebook_id]):
        yield dict(zip(names, values, strict=True))


def rows_to_judge(notebook_id: int) -> Iterator[Found]:
    """Every row of the notebook in log order with its words (None once redacted), as an import judges rows after
    them, streamed from one query."""
    return streamed(
        'SELECT seq, op, n, source, at, r.digest, redacts, "into", moved_notebook, moved_n, proposes, lands, '
        f"session_id, CASE WHEN op = '{fold.PROPOSE}' AND {withdrawn_sql('r')} THEN 1 ELSE 0 END, w.body "
        f"FROM notebooks_row r {WORDS_JOIN} WHERE r.notebook_id = %s ORDER BY seq",
        [notebook_id],
    )


# The columns reads steer by: statistics of the hashes, reasons and words took most of ANALYZE's time and steer none.
ANALYZED = (
    'notebooks_row (notebook_id, seq, n, op, at, "by", digest, redacts, session_id), '
    "notebooks_words (notebook_id, digest)"
)


def analyze() -> None:
    """Statistics for the planner (PostgreSQL), of the columns reads steer by."""
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {ANALYZED}")


# The lines a merge made keeping a merged line's words (one digest): counted already, on the day that line had them.
MERGED_KEEPING_WORDS_SQL = """
SELECT DISTINCT m."into" FROM notebooks_row m
JOIN notebooks_row a ON a.notebook_id = m.notebook_id AND a.n = m."into" AND a.op = 'add'
JOIN notebooks_row x ON x.notebook_id = m.notebook_id AND x.n = m.n AND x.op IN ('add', 'edit') AND x.digest = a.digest
WHERE m.notebook_id = %s AND m.op = 'strike' AND m.how = 'merged' AND m.seq <= %s AND a.digest <> ''
"""


def added_per_day(notebook_id: int, cut: int) -> list[Found]:
    """(UTC day, source, count) of new lines up to seq `cut`: not a restore's add, nor a merge's keeping old words."""
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
    """A filtered page of rows across every notebook, newest first, with the total and the page shown."""
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
