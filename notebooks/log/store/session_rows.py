"""The row table's questions about a session's rows, each one statement: its change and the drift beside it, its
proposals and their landed copies, and what its land's gates and counts read. The log's rows name a session only by
their session_id column; the session tables are joined where a row's meaning depends on them."""

from typing import Any

from django.db import connection

from notebooks.log.rules import fold
from notebooks.log.store.view_reads import (
    EXPORT_SELECT,
    WORDS_JOIN,
    Found,
    fetch_all,
    fetch_one,
    proposed_op_sql,
    redacted_why_sql,
    withdrawn_sql,
)

# ----- a session's rows -----------------------------------------------------------------------------------------------


def _counted_rows(where: str, params: list[Any], limit: int, after: int) -> tuple[list[Found], int]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM notebooks_row r WHERE {where}", params)
        (total,) = cursor.fetchone()
        cursor.execute(f"{EXPORT_SELECT} WHERE {where} AND r.seq > %s ORDER BY r.seq LIMIT %s", [*params, after, limit])
        return cursor.fetchall(), total


def change_rows(notebook_id: int, base: int, session_id: int, limit: int, after: int = 0) -> tuple[list[Found], int]:
    """A session's rows after seq `after` (at most `limit`), and how many it has; `base` makes it a seek on seq."""
    where = "r.notebook_id = %s AND r.seq > %s AND r.session_id = %s"
    return _counted_rows(where, [notebook_id, base, session_id], limit, after)


def rows_by_others(
    notebook_id: int, ranges: list[tuple[int, int]], limit: int, after: int = 0
) -> tuple[list[Found], int]:
    """The rows of no session in these (after, head] ranges, after seq `after` (at most `limit`), and their count."""
    spans = " OR ".join("(r.seq > %s AND r.seq <= %s)" for _ in ranges)
    params: list[Any] = [notebook_id, *[x for span in ranges for x in span]]
    return _counted_rows(f"r.notebook_id = %s AND r.session_id IS NULL AND ({spans})", params, limit, after)


# One row per (session, kind): kind is a new line's source, or "changed" (a restore's add changes its `into`); a
# merge's add is no new line. (base, land's head] makes it a seek on seq: session_id has no index of its own.
_OP = proposed_op_sql("r")
_LINE = f'CASE WHEN {_OP} = \'add\' AND r."into" IS NOT NULL THEN r."into" ELSE r.n END'
BROUGHT_SQL = f"""
SELECT k.sid, k.kind, COUNT(DISTINCT k.line) FROM (
  SELECT s.id AS sid, {_LINE} AS line,
    CASE
      WHEN {_OP} = 'add' AND r."into" IS NULL THEN
        CASE WHEN EXISTS (SELECT 1 FROM notebooks_row m WHERE m.notebook_id = r.notebook_id AND m.op = 'strike'
                          AND m."into" = r.n AND m.how = 'merged') THEN NULL ELSE r.source END
      WHEN {_OP} IN ('add', 'edit', 'strike') AND EXISTS (
          SELECT 1 FROM notebooks_row a WHERE a.notebook_id = r.notebook_id AND a.n = {_LINE} AND a.op = 'add'
          AND a.seq <= s.base) THEN 'changed'
    END AS kind
  FROM notebooks_session s
  JOIN notebooks_sessionevent e ON e.session_id = s.id AND e.kind = 'land' AND e.result = 'landed'
  JOIN notebooks_row r ON r.notebook_id = s.notebook_id AND r.seq > s.base AND r.seq <= e.head AND r.session_id = s.id
  WHERE s.id IN ({{ids}})
) k
WHERE k.kind IS NOT NULL
GROUP BY k.sid, k.kind
"""


def brought_counts(session_ids: list[int]) -> list[Found]:
    """(session, kind, lines) for each landed session of these: the lines it added by source, and those it changed."""
    return fetch_all(BROUGHT_SQL.format(ids=", ".join(["%s"] * len(session_ids))), list(session_ids))


PROPOSAL_COLUMNS = (
    "seq", "op", "proposes", "n", "digest", "source", "by", "why", "how", "into", "at", "moved_notebook", "moved_n",
)  # fmt: skip


def proposal_rows(notebook_id: int, session_id: int, after: int) -> list[Found]:
    """The session's proposals after seq `after` not withdrawn: PROPOSAL_COLUMNS, words, salt, the redacted why."""
    columns = ", ".join(f'r."{c}"' for c in PROPOSAL_COLUMNS)
    return fetch_all(
        f"SELECT {columns}, w.body, w.salt, {redacted_why_sql('r', 'w')} FROM notebooks_row r {WORDS_JOIN} "
        "WHERE r.notebook_id = %s AND r.seq > %s AND r.session_id = %s AND r.op = %s "
        f"AND NOT {withdrawn_sql('r')} ORDER BY r.seq",
        [notebook_id, after, session_id, fold.PROPOSE],
    )


def own_seqs(notebook_id: int, base: int, session_id: int) -> list[int]:
    """A session's own rows after `base`, in order: its proposals (withdrawn too) and their landed copies."""
    return [
        seq
        for (seq,) in fetch_all(
            "SELECT seq FROM notebooks_row WHERE notebook_id = %s AND seq > %s AND (session_id = %s OR lands IN "
            "(SELECT seq FROM notebooks_row WHERE notebook_id = %s AND seq > %s AND session_id = %s)) ORDER BY seq",
            [notebook_id, base, session_id, notebook_id, base, session_id],
        )
    ]


def session_proposals(notebook_id: int, base: int, session_id: int) -> list[dict[str, Any]]:
    """Every proposal of a session after `base` (withdrawn too), in order: seq, proposes, n, into, how."""
    found = fetch_all(
        'SELECT seq, proposes, n, "into", how FROM notebooks_row WHERE notebook_id = %s AND seq > %s '
        "AND session_id = %s AND op = %s ORDER BY seq",
        [notebook_id, base, session_id, fold.PROPOSE],
    )
    return [dict(zip(("seq", "proposes", "n", "into", "how"), row, strict=True)) for row in found]


def op_and_session(title: str, seq: int) -> Found | None:
    """Row `seq` of notebook `title`: its op and session."""
    return fetch_one(
        "SELECT r.op, r.session_id FROM notebooks_row r JOIN notebooks_notebook nb ON nb.id = r.notebook_id "
        "WHERE nb.title = %s AND r.seq = %s",
        [title, seq],
    )


# ----- a session's land gates and drift (sessions/) -------------------------------------------------------------------
def session_ops(notebook_id: int, base: int, session_id: int) -> list[Found]:
    """The session's rows (seq, op, n, how, into, why) not withdrawn, each proposal as the op it proposes."""
    return fetch_all(
        f'SELECT r.seq, {proposed_op_sql("r")}, r.n, r.how, r."into", r.why '
        "FROM notebooks_row r WHERE notebook_id = %s AND seq > %s AND session_id = %s "
        f"AND NOT {withdrawn_sql('r')} ORDER BY seq",
        [notebook_id, base, session_id],
    )


def worded_sources(notebook_id: int, upto: int) -> list[Found]:
    return fetch_all(
        "SELECT n, seq, source FROM notebooks_row WHERE notebook_id = %s AND seq <= %s "
        "AND op IN ('add', 'edit') ORDER BY seq",
        [notebook_id, upto],
    )


def changed_by_others(notebook_id: int, base: int, session_id: int) -> dict[int, int]:
    """Each line another writer than the session added, edited or struck after `base`, with the first such seq."""
    found = fetch_all(
        "SELECT n, MIN(seq) FROM notebooks_row WHERE notebook_id = %s AND seq > %s AND op IN ('add', 'edit', "
        "'strike') AND (session_id IS NULL OR session_id <> %s) GROUP BY n",
        [notebook_id, base, session_id],
    )
    return dict(found)


def count_outside_sessions(notebook_id: int, after: int, upto: int) -> int:
    return fetch_one(
        "SELECT COUNT(*) FROM notebooks_row WHERE notebook_id = %s AND seq > %s AND seq <= %s AND session_id IS NULL",
        [notebook_id, after, upto],
    )[0]
