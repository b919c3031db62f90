"""A notebook's head and its numbers: the highest number given, the last row with it, and everything an add reads
in one statement."""

import functools

from django.db import connection

from notebooks.log.store.locks import LOCK_BY_TITLE
from notebooks.log.store.view_reads import Found, fetch_one


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


# What an add reads, in one statement: the notebook, its head, its next number, the seq of a redact row naming the
# words (redacted words never come back) and whether the write guard may claim the write (guards.py).
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
    """(notebook id, head seq, hash, at, highest number, redact seq, may claim) for an add to `title`, the notebook
    locked (PostgreSQL: before the read, so the head is after any writer's); None when no notebook has that title."""
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
