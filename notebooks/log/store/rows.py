"""The row table read: every question a reader asks of notebooks_row, each one SQL statement (or a fixed few).

Every module reads rows through here (the fast path, the triggers, the privileges and the system check keep their own
SQL), so a change of the table's shape or of an index is seen in one place. Each function returns the database's
tuples as they come; the callers give them their meaning. The statements are the ones bench/ measures: keep their
shape, and the number of them a read makes.
"""

import functools
from collections.abc import Iterator
from typing import Any

from django.db import connection

from notebooks.log.rules import fold
from notebooks.log.store.locks import LOCK_BY_TITLE

Found = tuple[Any, ...]


def _one(sql: str, params: Any) -> Found | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _all(sql: str, params: Any = None) -> list[Found]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


# ----- pieces of statements other readers join in ------------------------------------------------------------------


def redacted_why_sql(r: str, w: str) -> str:
    """The reason of the redaction that removed row `r`'s words `w` (NULL unless they were redacted).

    Looked up only when the words are missing, so a view of kept words pays nothing for it.
    """
    return (
        f"CASE WHEN {w}.body IS NULL AND {r}.digest <> '' THEN (SELECT x.why FROM notebooks_row x "
        f"WHERE x.notebook_id = {r}.notebook_id AND x.redacts = {r}.digest AND x.op = 'redact' "
        "ORDER BY x.seq LIMIT 1) END"
    )


def proposed_op_sql(r: str, *, of_session: bool = False) -> str:
    """The op row `r` counts as: a proposal (fold.PROPOSE) as the op it proposes. With `of_session`, only the
    proposals of the session whose id is the statement's next parameter (read your own writes)."""
    mine = f" AND {r}.session_id = %s" if of_session else ""
    return f"(CASE WHEN {r}.op = '{fold.PROPOSE}'{mine} THEN {r}.proposes ELSE {r}.op END)"


# A notebook's count of redact rows (a snapshot is good only while it is the same).
REDACTIONS = "(SELECT COUNT(*) FROM notebooks_row x WHERE x.notebook_id = %(nb)s AND x.redacts IS NOT NULL)"


# ----- the row a view stands at ----------------------------------------------------------------------------------


def row_at(notebook_id: int, seq: int) -> Found | None:
    """(seq, hash, at) of row `seq`."""
    return _one("SELECT seq, hash, at FROM notebooks_row WHERE notebook_id = %s AND seq = %s", [notebook_id, seq])


def row_before(notebook_id: int, seq: int) -> Found | None:
    """(seq, hash, at) of the last row at or before seq."""
    return _one(
        "SELECT seq, hash, at FROM notebooks_row WHERE notebook_id = %s AND seq <= %s ORDER BY seq DESC LIMIT 1",
        [notebook_id, seq],
    )


def row_by_time(notebook_id: int, until: float) -> Found | None:
    """(seq, hash, at) of the last row recorded at or before `until` (a seek on row_cut_idx)."""
    return _one(
        "SELECT seq, hash, at FROM notebooks_row WHERE notebook_id = %s AND at <= %s "
        "ORDER BY at DESC, seq DESC LIMIT 1",
        [notebook_id, until],
    )


def row_and_redactions(notebook_id: int, cut: int, until: float | None) -> Found | None:
    """(seq, hash, at, redactions): the last row at or before seq `cut` (or time `until`), and the count of redact
    rows, in one query."""
    where, bound = (
        ("seq <= %(bound)s ORDER BY seq DESC", cut)
        if until is None
        else ("at <= %(bound)s ORDER BY at DESC, seq DESC", until)
    )
    return _one(
        f"SELECT seq, hash, at, {REDACTIONS} FROM notebooks_row WHERE notebook_id = %(nb)s AND {where} LIMIT 1",
        {"nb": notebook_id, "bound": bound},
    )


def top_seq(notebook_id: int) -> int:
    """The notebook's last seq (0 for none)."""
    return _one("SELECT COALESCE(MAX(seq), 0) FROM notebooks_row WHERE notebook_id = %s", [notebook_id])[0]


def seq_hashes(notebook_id: int) -> dict[int, str]:
    """Every row's hash, by seq."""
    return dict(_all("SELECT seq, hash FROM notebooks_row WHERE notebook_id = %s ORDER BY seq", [notebook_id]))


def count_redactions(notebook_id: int) -> int:
    """How many redact rows the notebook has (an index-only count on row_redacts_idx)."""
    return _one("SELECT " + REDACTIONS.replace("%(nb)s", "%s"), [notebook_id])[0]


def notebook_heads() -> list[Found]:
    """(id, title, seq, hash, at) of every notebook and its last row (None's before its first), by title."""
    return _all(
        "SELECT n.id, n.title, r.seq, r.hash, r.at FROM notebooks_notebook n LEFT JOIN notebooks_row r "
        "ON r.notebook_id = n.id AND r.seq = (SELECT MAX(x.seq) FROM notebooks_row x WHERE x.notebook_id = n.id) "
        "ORDER BY n.title"
    )


def redacted_digests(notebook_id: int) -> frozenset[str]:
    """The digests of every word the notebook's redact rows removed."""
    found = _all("SELECT redacts FROM notebooks_row WHERE notebook_id = %s AND redacts IS NOT NULL", [notebook_id])
    return frozenset(digest for (digest,) in found)


# ----- the view in SQL -------------------------------------------------------------------------------------------

CUT_BY_SEQ = "SELECT seq FROM notebooks_row WHERE notebook_id = %(nb)s AND seq <= %(cut)s ORDER BY seq DESC LIMIT 1"

# The live lines at a cut, and the row they stand at, in one query: group each line's rows (an index-only scan of
# row_fold_idx) to find its current add/edit and whether a strike took it out, then fetch that row and its words.
# CROSS JOIN keeps SQLite from scanning the rows first and searching the groups (it has no statistics to go by).
VIEW_SQL = """
SELECT r.n, w.body, {why}, r.source, r."by", r.at, r.seq, h.seq, h.hash, h.at
FROM (SELECT seq, hash, at FROM notebooks_row WHERE notebook_id = %(nb)s AND seq = ({cut})) h
CROSS JOIN (
    SELECT n, MAX(CASE WHEN op IN ('add', 'edit') THEN seq END) AS cur
    FROM notebooks_row
    WHERE notebook_id = %(nb)s AND seq <= ({cut}) AND op <> 'adopt'
    GROUP BY n
    HAVING MAX(CASE WHEN op = 'strike' THEN 1 ELSE 0 END) = 0
) g
CROSS JOIN notebooks_row r
LEFT JOIN notebooks_words w ON w.notebook_id = r.notebook_id AND w.digest = r.digest
WHERE r.notebook_id = %(nb)s AND r.seq = g.cur
ORDER BY g.n
""".format(cut=CUT_BY_SEQ, why=redacted_why_sql("r", "w"))

# One line as the view shows it at a cut: its last add/edit, if it was added and never struck.
LINE_SQL = """
SELECT r.n, w.body, {why}, r.source, r."by", r.at, r.seq
FROM notebooks_row r
LEFT JOIN notebooks_words w ON w.notebook_id = r.notebook_id AND w.digest = r.digest
WHERE r.notebook_id = %(nb)s AND r.n = %(n)s AND r.seq = (
    SELECT MAX(x.seq) FROM notebooks_row x
    WHERE x.notebook_id = %(nb)s AND x.n = %(n)s AND x.op IN ('add', 'edit') AND x.seq <= %(cut)s)
  AND EXISTS (
    SELECT 1 FROM notebooks_row a WHERE a.notebook_id = %(nb)s AND a.n = %(n)s AND a.op = 'add' AND a.seq <= %(cut)s)
  AND NOT EXISTS (
    SELECT 1 FROM notebooks_row s WHERE s.notebook_id = %(nb)s AND s.n = %(n)s AND s.op = 'strike' AND s.seq <= %(cut)s)
""".replace("{why}", redacted_why_sql("r", "w"))


def view_rows(notebook_id: int, cut: int) -> list[Found]:
    """The live lines at row `cut` by VIEW_SQL: (n, body, redacted why, source, by, at, seq, head seq, hash, at)."""
    return _all(VIEW_SQL, {"nb": notebook_id, "cut": cut})


def line_row(notebook_id: int, n: int, cut: int) -> Found | None:
    """Line n at row `cut` by LINE_SQL: (n, body, redacted why, source, by, at, seq); None when not live."""
    return _one(LINE_SQL, {"nb": notebook_id, "cut": cut, "n": n})


# ----- snapshots and the rows after them ---------------------------------------------------------------------------

NEAREST_SQL = f"""
SELECT s.seq, s.hash, s.at, s.redactions, s.lines, s.mac
FROM notebooks_snapshot s
JOIN notebooks_row r ON r.notebook_id = s.notebook_id AND r.seq = s.seq AND r.hash = s.hash
WHERE s.notebook_id = %(nb)s AND s.seq <= %(cut)s AND s.redactions = {REDACTIONS}
ORDER BY s.seq DESC
LIMIT 1
"""


def nearest_snapshot(notebook_id: int, cut: int) -> Found | None:
    """(seq, hash, at, redactions, lines, mac) of the last snapshot at or before `cut` the log still backs."""
    return _one(NEAREST_SQL, {"nb": notebook_id, "cut": cut})


# The rows after a snapshot, with their words: a subquery per row, so the planner probes the words' index for
# each row instead of hashing every word of the notebook (PostgreSQL's figure: bench/NOTES.md).
ROWS_SQL = """
SELECT r.seq, r.op, r.n, r.source, r."by", r.at, r.prev_hash, r.hash, r.digest,
       CASE WHEN r.op IN ('add', 'edit') THEN
           (SELECT w.body FROM notebooks_words w WHERE w.notebook_id = r.notebook_id AND w.digest = r.digest)
       END
FROM notebooks_row r
WHERE r.notebook_id = %s AND r.seq > %s AND r.seq <= %s
ORDER BY r.seq
"""
WHY_SQL = "SELECT redacts, why FROM notebooks_row WHERE notebook_id = %s AND op = 'redact' ORDER BY seq DESC"


def fold_rows(notebook_id: int, after: int, upto: int) -> list[Found]:
    """The rows in (after, upto] to fold: (seq, op, n, source, by, at, prev_hash, hash, digest, body)."""
    return _all(ROWS_SQL, [notebook_id, after, upto])


def redaction_whys(notebook_id: int) -> dict[str, str]:
    """Each redacted digest's reason (the first redaction's, as the last one read wins)."""
    return dict(_all(WHY_SQL, [notebook_id]))


# ----- a line's rows -----------------------------------------------------------------------------------------------

HISTORY_COLUMNS = (
    'SELECT r.n, r.seq, r.op, w.body, r.source, r."by", r.at, r.why, r.how, r."into", r.was_at, r.was_by, '
    f"r.redacts, r.moved_notebook, r.moved_n, r.proposes, r.session_id, r.lands, r.claimed_at, "
    f"{redacted_why_sql('r', 'w')} "
    "FROM notebooks_row r LEFT JOIN notebooks_words w "
    "ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
)


def line_history_rows(notebook_id: int, n: int) -> tuple[list[Found], list[Found]]:
    """Line n's rows in log order, and (only if it has any) the other lines' rows naming it in `into`: the add that
    restored it and the strikes into it, each by its own partial index (row_restores_idx, row_struck_into_idx; an
    OR would scan the notebook). Columns: HISTORY_COLUMNS."""
    columns = HISTORY_COLUMNS
    with connection.cursor() as cursor:
        cursor.execute(columns + "WHERE r.notebook_id = %s AND r.n = %s ORDER BY r.seq", [notebook_id, n])
        found = cursor.fetchall()
        others = []
        if found:
            cursor.execute(
                f"{columns}WHERE r.notebook_id = %s AND r.op = 'add' AND r.\"into\" = %s UNION ALL "
                f"{columns}WHERE r.notebook_id = %s AND r.op = 'strike' AND r.\"into\" = %s",
                [notebook_id, n, notebook_id, n],
            )
            others = cursor.fetchall()
    return found, others


def words_rows_before(notebook_id: int, numbers: list[int], before: int) -> list[Found]:
    """The add, edit and strike rows of these lines before row `before`, with their words:
    (n, seq, op, source, digest, body, redacted why)."""
    return _all(
        f"SELECT r.n, r.seq, r.op, r.source, r.digest, w.body, {redacted_why_sql('r', 'w')} "
        "FROM notebooks_row r LEFT JOIN notebooks_words w "
        "ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
        f"WHERE r.notebook_id = %s AND r.n IN ({', '.join(['%s'] * len(numbers))}) "
        "AND r.op IN ('add', 'edit', 'strike') AND r.seq < %s ORDER BY r.seq",
        [notebook_id, *numbers, before],
    )


# ----- rows in log order, as an export ---------------------------------------------------------------------------

EXPORT_COLUMNS = (
    'r.seq, r.op, r.n, r.digest, r.source, r."by", r.why, r.how, r."into", r.at, r.was_at, r.was_by, '
    "r.prev_hash, r.hash, r.redacts, r.moved_notebook, r.moved_n, r.proposes, r.lands, r.claimed_at, w.salt"
)  # w: the row's words, joined (w.salt: a reader binds the words to their keyed digest with it)
EXPORT_NAMES = [c.strip().split(".", 1)[1].strip('"') for c in EXPORT_COLUMNS.split(",")]


def export_rows(notebook_id: int, after: int, upto: int, limit: int | None = None) -> Iterator[Found]:
    """The rows in (after, upto], streamed from one query: EXPORT_COLUMNS, the redacted why, the words."""
    sql = (
        f"SELECT {EXPORT_COLUMNS}, {redacted_why_sql('r', 'w')}, w.body "
        "FROM notebooks_row r LEFT JOIN notebooks_words w "
        "ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
        "WHERE r.notebook_id = %s AND r.seq > %s AND r.seq <= %s ORDER BY r.seq"
    )
    params: list[Any] = [notebook_id, after, upto]
    if limit is not None:
        sql += " LIMIT %s"
        params.append(limit)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while batch := cursor.fetchmany(2000):
            yield from batch


# ----- a session's rows --------------------------------------------------------------------------------------------

SESSION_ROW_SQL = (
    f"SELECT {EXPORT_COLUMNS}, w.body FROM notebooks_row r LEFT JOIN notebooks_words w "
    "ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
)


def _counted_rows(where: str, params: list[Any], limit: int, after: int) -> tuple[list[Found], int]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM notebooks_row r WHERE {where}", params)
        (total,) = cursor.fetchone()
        cursor.execute(
            f"{SESSION_ROW_SQL} WHERE {where} AND r.seq > %s ORDER BY r.seq LIMIT %s", [*params, after, limit]
        )
        return cursor.fetchall(), total


def session_rows(notebook_id: int, base: int, session_id: int, limit: int, after: int = 0) -> tuple[list[Found], int]:
    """A session's own rows after seq `after` (at most `limit`: EXPORT_COLUMNS and the words), and how many it has.

    Its rows all come after its base: a seek on (notebook, seq), where session_id has no index of its own."""
    where = "r.notebook_id = %s AND r.seq > %s AND r.session_id = %s"
    return _counted_rows(where, [notebook_id, base, session_id], limit, after)


def rows_by_others(
    notebook_id: int, ranges: list[tuple[int, int]], limit: int, after: int = 0
) -> tuple[list[Found], int]:
    """The rows of no session in these (after, head] ranges, after seq `after` (at most `limit`), and their count."""
    spans = " OR ".join("(r.seq > %s AND r.seq <= %s)" for _ in ranges)
    params: list[Any] = [notebook_id, *[x for span in ranges for x in span]]
    return _counted_rows(f"r.notebook_id = %s AND r.session_id IS NULL AND ({spans})", params, limit, after)


# One row per (session, kind): kind is the source of a new line, or "changed". A merge's add is no new line (the
# strikes into it name it; fold.py) and a restore's add changes the line it restores (its `into`). A session's rows
# lie in (base, land's head]: a seek on (notebook, seq), as session_rows does; session_id has no index of its own.
# A session's rows are proposals (fold.py), counted as the ops they propose.
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
    return _all(BROUGHT_SQL.format(ids=", ".join(["%s"] * len(session_ids))), list(session_ids))


# ----- what a write reads under the notebook's lock (locked_reads.py) ----------------------------------------------


def line_rows(notebook_id: int, n: int, session: int | None) -> list[Found]:
    """Line n's rows in log order as a write judges them: (seq, op, source, words), `session`'s proposals as the ops
    they propose (read your own writes)."""
    return _all(
        f"SELECT r.seq, {proposed_op_sql('r', of_session=True)}, r.source, w.body "
        "FROM notebooks_row r LEFT JOIN notebooks_words w "
        "ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
        "WHERE r.notebook_id = %s AND r.n = %s ORDER BY r.seq",
        [session, notebook_id, n],
    )


def top_number(notebook_id: int) -> int | None:
    """The highest line number the notebook gave (None before its first row)."""
    return _one("SELECT MAX(n) FROM notebooks_row WHERE notebook_id = %s", [notebook_id])[0]


def head_and_top_number(notebook_id: int) -> Found | None:
    """(seq, hash, at, highest number) of the notebook's last row, in one query; None before its first row."""
    return _one(
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
    locked; None when no notebook has that title.

    SQLite reads it all in one statement (BEGIN IMMEDIATE already holds the write lock); PostgreSQL takes the
    notebook's lock first (locks.LOCK_BY_TITLE), then reads, so the head is read after any writer before it.
    """
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


def redact_rows_naming(notebook_id: int, digests: list[str]) -> dict[str, int]:
    """Which of these digests (at most 500) a redact row of the notebook names, with that row's seq."""
    return dict(
        _all(
            "SELECT redacts, seq FROM notebooks_row WHERE notebook_id = %s AND op = 'redact' "
            f"AND redacts IN ({', '.join(['%s'] * len(digests))})",
            [notebook_id, *digests],
        )
    )


# ----- the writes' own questions (services, moves, redaction) ------------------------------------------------------


def restoring_line(notebook_id: int, n: int, session: int | None) -> int | None:
    """The line whose add restored line n (or, for `session`'s holder, whose proposed add does)."""
    with connection.cursor() as cursor:
        cursor.execute(
            # Not MIN(n): SQLite would then walk every add of the notebook by number, not row_restores_idx.
            "SELECT n FROM notebooks_row WHERE notebook_id = %s AND op = 'add' AND \"into\" = %s",
            [notebook_id, n],
        )
        found = cursor.fetchone()
        if found is None and session is not None:
            cursor.execute(
                "SELECT n FROM notebooks_row WHERE notebook_id = %s AND op = 'propose' AND proposes = 'add' "
                'AND "into" = %s AND session_id = %s',
                [notebook_id, n, session],
            )
            found = cursor.fetchone()
    return found[0] if found else None


def last_strike_moved(notebook_id: int, n: int) -> Found | None:
    """(moved_notebook, moved_n) of line n's last strike."""
    return _one(
        "SELECT moved_notebook, moved_n FROM notebooks_row WHERE notebook_id = %s AND n = %s AND op = 'strike' "
        "ORDER BY seq DESC LIMIT 1",
        [notebook_id, n],
    )


def version_words(title: str, n: int, seq: int) -> Found | None:
    """(words,) of row `seq` if it is an add, edit or adopt of line n in notebook `title` (None words: redacted)."""
    return _one(
        "SELECT w.body FROM notebooks_row r LEFT JOIN notebooks_words w ON w.notebook_id = r.notebook_id "
        "AND w.digest = r.digest JOIN notebooks_notebook nb ON nb.id = r.notebook_id "
        "WHERE nb.title = %s AND r.n = %s AND r.seq = %s AND r.op IN ('add', 'edit', 'adopt')",
        [title, n, seq],
    )


def last_worded(notebook_id: int, n: int) -> Found | None:
    """(by, at, was_by, was_at, moved_notebook) of line n's last add or edit."""
    return _one(
        'SELECT "by", at, was_by, was_at, moved_notebook FROM notebooks_row WHERE notebook_id = %s AND n = %s '
        "AND op IN ('add', 'edit') ORDER BY seq DESC LIMIT 1",
        [notebook_id, n],
    )


def line_digests(notebook_id: int, n: int) -> list[Found]:
    """(seq, op, digest) of line n's rows in log order."""
    return _all(
        "SELECT seq, op, digest FROM notebooks_row WHERE notebook_id = %s AND n = %s ORDER BY seq", [notebook_id, n]
    )


def first_line_keeping(notebook_id: int, digest: str) -> int | None:
    """The first line whose row carries these words (kept: not redacted), or None."""
    found = _one(
        "SELECT r.n FROM notebooks_row r JOIN notebooks_words w ON w.notebook_id = r.notebook_id "
        "AND w.digest = r.digest WHERE r.notebook_id = %s AND r.digest = %s ORDER BY r.seq LIMIT 1",
        [notebook_id, digest],
    )
    return found[0] if found is not None else None


# ----- a session's proposals, a whole log checked or judged --------------------------------------------------------

PROPOSAL_COLUMNS = (
    "seq", "op", "proposes", "n", "digest", "source", "by", "why", "how", "into", "at", "moved_notebook", "moved_n",
)  # fmt: skip


def proposal_rows(notebook_id: int, session_id: int, after: int) -> list[Found]:
    """The session's proposals after seq `after` in log order: PROPOSAL_COLUMNS, words, salt, the redacted why."""
    columns = ", ".join(f'r."{c}"' for c in PROPOSAL_COLUMNS)
    return _all(
        f"SELECT {columns}, w.body, w.salt, {redacted_why_sql('r', 'w')} FROM notebooks_row r "
        "LEFT JOIN notebooks_words w ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
        "WHERE r.notebook_id = %s AND r.seq > %s AND r.session_id = %s AND r.op = %s ORDER BY r.seq",
        [notebook_id, after, session_id, fold.PROPOSE],
    )


VERIFY_COLUMNS = (
    'r.seq, r.op, r.n, r.digest, r.source, r."by", r.why, r.how, r."into", r.at, r.was_at, r.was_by, '
    "r.prev_hash, r.hash, r.redacts, r.moved_notebook, r.moved_n, r.proposes, r.lands, r.claimed_at, w.body, w.salt"
)


def rows_to_verify(notebook_id: int) -> Iterator[dict[str, Any]]:
    """Every row of the notebook in log order with its words and salt, by column name, streamed from one query."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {VERIFY_COLUMNS} FROM notebooks_row r LEFT JOIN notebooks_words w "
            "ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
            "WHERE r.notebook_id = %s ORDER BY r.seq",
            [notebook_id],
        )
        names = [c[0] for c in cursor.description]
        while batch := cursor.fetchmany(5000):
            for values in batch:
                yield dict(zip(names, values, strict=True))


def rows_to_judge(notebook_id: int) -> Iterator[Found]:
    """Every row of the notebook in log order, as an import judges rows after them: (seq, op, n, source, at, digest,
    redacts, into, moved_notebook, moved_n, proposes, lands, session_id), streamed from one query."""
    with connection.cursor() as cursor:
        cursor.execute(
            'SELECT seq, op, n, source, at, digest, redacts, "into", moved_notebook, moved_n, proposes, lands, '
            "session_id FROM notebooks_row "
            "WHERE notebook_id = %s ORDER BY seq",
            [notebook_id],
        )
        while batch := cursor.fetchmany(5000):
            yield from batch


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


# ----- a session's land gates and drift (sessions/) ----------------------------------------------------------------


def session_ops(notebook_id: int, base: int, session_id: int) -> list[Found]:
    """The session's rows (seq, op, n, how, into, why), each proposal as the op it proposes (fold.py)."""
    # A session's rows all come after its base: a seek on (notebook, seq), where session_id has no index.
    return _all(
        f'SELECT r.seq, {proposed_op_sql("r")}, r.n, r.how, r."into", r.why '
        "FROM notebooks_row r WHERE notebook_id = %s AND seq > %s AND session_id = %s ORDER BY seq",
        [notebook_id, base, session_id],
    )


def worded_sources(notebook_id: int, upto: int) -> list[Found]:
    """(n, seq, source) of every add and edit up to row `upto`, in log order."""
    return _all(
        "SELECT n, seq, source FROM notebooks_row WHERE notebook_id = %s AND seq <= %s "
        "AND op IN ('add', 'edit') ORDER BY seq",
        [notebook_id, upto],
    )


def changed_by_others(notebook_id: int, base: int, session_id: int) -> dict[int, int]:
    """Each line another writer than the session added, edited or struck after `base`, with the first such seq."""
    return dict(
        _all(
            "SELECT n, MIN(seq) FROM notebooks_row WHERE notebook_id = %s AND seq > %s AND op IN ('add', 'edit', "
            "'strike') AND (session_id IS NULL OR session_id <> %s) GROUP BY n",
            [notebook_id, base, session_id],
        )
    )


def count_outside_sessions(notebook_id: int, after: int, upto: int) -> int:
    """How many rows in (after, upto] no session wrote."""
    return _one(
        "SELECT COUNT(*) FROM notebooks_row WHERE notebook_id = %s AND seq > %s AND seq <= %s AND session_id IS NULL",
        [notebook_id, after, upto],
    )[0]


# ----- the card's reads (card/) ------------------------------------------------------------------------------------


def top_number_at(notebook_id: int, seq: int) -> int | None:
    """The highest line number given at or before row `seq`."""
    return _one("SELECT MAX(n) FROM notebooks_row WHERE notebook_id = %s AND seq <= %s", [notebook_id, seq])[0]


def added_per_day(notebook_id: int, cut: int) -> list[Found]:
    """(UTC day since 1970, source, count) of add rows up to seq `cut`, by day and source."""
    if connection.vendor == "postgresql":
        day = "CAST(FLOOR(at / 86400) AS BIGINT)"
    else:
        day = "CAST(at / 86400 AS INTEGER)"  # at is never negative, so truncation is floor
    return _all(
        f"SELECT {day} AS day, source, COUNT(*) FROM notebooks_row "
        "WHERE notebook_id = %s AND op = 'add' AND seq <= %s GROUP BY day, source ORDER BY day, source",
        [notebook_id, cut],
    )


def audit_page(
    *, notebook: str, by: str, op: str, since: float | None, until: float | None, page: int, per_page: int
) -> tuple[list[Found], int, int]:
    """A page of rows across every notebook, newest first, filtered; with the total and the page shown (a page past
    the last shows the last). Each row: id, title, seq, op, n, words, source, by, why, how, into, at, was_at,
    was_by, moved_notebook, moved_n, notebook id, redacted why."""
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
            f"r.was_at, r.was_by, r.moved_notebook, r.moved_n, nb.id, {redacted_why_sql('r', 'w')} "
            "FROM notebooks_row r JOIN notebooks_notebook nb ON nb.id = r.notebook_id "
            "LEFT JOIN notebooks_words w ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
            f"WHERE {condition} ORDER BY {order} LIMIT %s OFFSET %s",
            [*params, per_page, (page - 1) * per_page],
        )
        return cursor.fetchall(), total, page


def writers() -> list[str]:
    """Every name that wrote a row."""
    return [name for (name,) in _all('SELECT DISTINCT "by" FROM notebooks_row ORDER BY "by"')]


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
    """Every strike at or before row `cut`, most recent first, with the words the line had before it: (n, words,
    redacted why, source, seq, by, at, why, how, into, restored as, moved_notebook, moved_n)."""
    return _all(RETIRED_SQL, {"nb": notebook_id, "cut": cut})


# ----- Similar lines (similar/) ------------------------------------------------------------------------------------


def row_lines(notebook_id: int, first: int, last: int) -> list[Found]:
    """(seq, n, hash) of the rows in [first, last]."""
    return _all(
        "SELECT seq, n, hash FROM notebooks_row WHERE notebook_id = %s AND seq >= %s AND seq <= %s",
        [notebook_id, first, last],
    )
