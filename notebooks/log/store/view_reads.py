"""The rows a view reads (its cut, the view in SQL, snapshots, a line's history, an export), as the database's tuples.
The statements are the ones bench/ measures: keep their shape, and the number of them a read makes."""

from collections.abc import Iterator, Sequence
from typing import Any

from django.db import connection

from notebooks.log.rules import fold

Found = tuple[Any, ...]


def fetch_one(sql: str, params: Any) -> Found | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def fetch_all(sql: str, params: Any = None) -> list[Found]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def streamed(sql: str, params: Any, batch: int = 5000) -> Iterator[Found]:
    """The statement's rows, fetched `batch` at a time: a whole log never sits in memory."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while found := cursor.fetchmany(batch):
            yield from found


# ----- pieces of statements other readers join in ------------------------------------------------------------------
# Row r's words, when it has any.
WORDS_JOIN = "LEFT JOIN notebooks_words w ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> ''"


def redacted_why_sql(r: str, w: str) -> str:
    """Why row `r`'s words `w` were redacted (else NULL), looked up only when they are missing."""
    return (
        f"CASE WHEN {w}.body IS NULL AND {r}.digest <> '' THEN (SELECT x.why FROM notebooks_row x "
        f"WHERE x.notebook_id = {r}.notebook_id AND x.redacts = {r}.digest AND x.op = 'redact' "
        "ORDER BY x.seq LIMIT 1) END"
    )


def withdrawn_sql(r: str) -> str:
    """Whether row `r`, a proposal, was withdrawn by its session's `withdraw` event: then it counts as nothing."""
    return (
        f"EXISTS (SELECT 1 FROM notebooks_sessionevent x WHERE x.session_id = {r}.session_id "
        f"AND x.kind = 'withdraw' AND x.proposal = {r}.seq)"
    )


def proposed_op_sql(r: str, *, of_session: bool = False) -> str:
    """The op row `r` counts as: a proposal not withdrawn as the op it proposes (`of_session`: only the session's
    whose id is the statement's next parameter)."""
    mine = f" AND {r}.session_id = %s" if of_session else ""
    return f"(CASE WHEN {r}.op = '{fold.PROPOSE}'{mine} AND NOT {withdrawn_sql(r)} THEN {r}.proposes ELSE {r}.op END)"


# A notebook's count of redact rows (a snapshot is good only while it is the same).
REDACTIONS = "(SELECT COUNT(*) FROM notebooks_row x WHERE x.notebook_id = %(nb)s AND x.redacts IS NOT NULL)"


# ----- the row a view stands at ----------------------------------------------------------------------------------
def row_at(notebook_id: int, seq: int) -> Found | None:
    return fetch_one("SELECT seq, hash, at FROM notebooks_row WHERE notebook_id = %s AND seq = %s", [notebook_id, seq])


def last_row(notebook_id: int, cut: int, until: float | None = None, *, redactions: bool = False) -> Found | None:
    """(seq, hash, at) of the last row at or before seq `cut`, or time `until` (a seek on row_cut_idx); `redactions`:
    and the count of redact rows, in the same query (what a past view stands at)."""
    columns = f"seq, hash, at, {REDACTIONS}" if redactions else "seq, hash, at"
    where = "seq <= %(bound)s ORDER BY seq DESC" if until is None else "at <= %(bound)s ORDER BY at DESC, seq DESC"
    return fetch_one(
        f"SELECT {columns} FROM notebooks_row WHERE notebook_id = %(nb)s AND {where} LIMIT 1",
        {"nb": notebook_id, "bound": cut if until is None else until},
    )


def top_seq(notebook_id: int) -> int:
    return fetch_one("SELECT COALESCE(MAX(seq), 0) FROM notebooks_row WHERE notebook_id = %s", [notebook_id])[0]


def seq_hashes(notebook_id: int) -> dict[int, str]:
    return dict(fetch_all("SELECT seq, hash FROM notebooks_row WHERE notebook_id = %s ORDER BY seq", [notebook_id]))


def count_redactions(notebook_id: int) -> int:
    return fetch_one("SELECT " + REDACTIONS.replace("%(nb)s", "%s"), [notebook_id])[0]


# Each notebook n and its last row r (NULLs before its first).
WITH_HEAD = (
    "FROM notebooks_notebook n LEFT JOIN notebooks_row r "
    "ON r.notebook_id = n.id AND r.seq = (SELECT MAX(x.seq) FROM notebooks_row x WHERE x.notebook_id = n.id)"
)


def notebook_heads() -> list[Found]:
    """(id, title, seq, hash, at) of every notebook and its last row, by title."""
    return fetch_all(f"SELECT n.id, n.title, r.seq, r.hash, r.at {WITH_HEAD} ORDER BY n.title")


def notebook_head(title: str, also: Sequence[tuple[str, list]] = ()) -> Found | None:
    """(id, title, seq, hash, at, *also) of notebook `title` and its last row, or None: a conditional read's one lookup.
    `also`: more scalar columns (SQL naming the notebook as n.id, and its parameters), read in the same statement."""
    columns = "".join(f", ({column})" for column, _ in also)
    return fetch_one(
        f"SELECT n.id, n.title, r.seq, r.hash, r.at{columns} {WITH_HEAD} WHERE n.title = %s",
        [*(param for _, params in also for param in params), title],
    )


def redacted_digests(notebook_id: int) -> frozenset[str]:
    found = fetch_all("SELECT redacts FROM notebooks_row WHERE notebook_id = %s AND redacts IS NOT NULL", [notebook_id])
    return frozenset(digest for (digest,) in found)


# ----- the view in SQL -------------------------------------------------------------------------------------------
CUT_BY_SEQ = "SELECT seq FROM notebooks_row WHERE notebook_id = %(nb)s AND seq <= %(cut)s ORDER BY seq DESC LIMIT 1"

# The live lines at a cut and the row they stand at: each line's rows grouped (index-only on row_fold_idx), then its
# current row fetched. CROSS JOIN keeps SQLite from scanning the rows first (it has no statistics to go by).
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
    return fetch_all(VIEW_SQL, {"nb": notebook_id, "cut": cut})


def line_row(notebook_id: int, n: int, cut: int) -> Found | None:
    """Line n at row `cut` by LINE_SQL: (n, body, redacted why, source, by, at, seq); None when not live."""
    return fetch_one(LINE_SQL, {"nb": notebook_id, "cut": cut, "n": n})


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
    return fetch_one(NEAREST_SQL, {"nb": notebook_id, "cut": cut})


# The rows after a snapshot: a subquery per row probes the words' index, not a hash of every word (bench/NOTES.md).
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
    return fetch_all(ROWS_SQL, [notebook_id, after, upto])


def redaction_whys(notebook_id: int) -> dict[str, str]:
    """Each redacted digest's reason (the first redaction's, as the last one read wins)."""
    return dict(fetch_all(WHY_SQL, [notebook_id]))


# ----- a line's rows -----------------------------------------------------------------------------------------------
HISTORY_COLUMNS = (
    'SELECT r.n, r.seq, r.op, w.body, r.source, r."by", r.at, r.why, r.how, r."into", r.was_at, r.was_by, '
    "r.redacts, r.moved_notebook, r.moved_n, r.proposes, r.session_id, r.lands, r.claimed_at, "
    f"{redacted_why_sql('r', 'w')} FROM notebooks_row r {WORDS_JOIN} "
)


def line_history_rows(notebook_id: int, n: int) -> tuple[list[Found], list[Found]]:
    """Line n's rows in log order, and (if any) the other lines' naming it in `into`, by two partial indexes (an OR
    would scan the notebook)."""
    columns = HISTORY_COLUMNS
    found = fetch_all(f"{columns}WHERE r.notebook_id = %s AND r.n = %s ORDER BY r.seq", [notebook_id, n])
    if not found:
        return found, []
    others = fetch_all(
        f"{columns}WHERE r.notebook_id = %s AND r.op = 'add' AND r.\"into\" = %s UNION ALL "
        f"{columns}WHERE r.notebook_id = %s AND r.op = 'strike' AND r.\"into\" = %s",
        [notebook_id, n, notebook_id, n],
    )
    return found, others


def words_rows_before(notebook_id: int, numbers: list[int], before: int) -> list[Found]:
    """The add, edit and strike rows of these lines before row `before`, with their words."""
    return fetch_all(
        f"SELECT r.n, r.seq, r.op, r.source, r.digest, w.body, {redacted_why_sql('r', 'w')} FROM notebooks_row r "
        f"{WORDS_JOIN} WHERE r.notebook_id = %s AND r.n IN ({', '.join(['%s'] * len(numbers))}) "
        "AND r.op IN ('add', 'edit', 'strike') AND r.seq < %s ORDER BY r.seq",
        [notebook_id, *numbers, before],
    )


# ----- rows in log order, as an export ---------------------------------------------------------------------------
EXPORT_COLUMNS = (
    'r.seq, r.op, r.n, r.digest, r.source, r."by", r.why, r.how, r."into", r.at, r.was_at, r.was_by, '
    "r.prev_hash, r.hash, r.redacts, r.moved_notebook, r.moved_n, r.proposes, r.lands, r.claimed_at, w.salt"
)  # w: the row's words, joined (w.salt: a reader binds the words to their keyed digest with it)
EXPORT_NAMES = [c.strip().split(".", 1)[1].strip('"') for c in EXPORT_COLUMNS.split(",")]
# A row as an export reads it: EXPORT_COLUMNS, the redacted why (redacted words read as such), the words.
EXPORT_SELECT = f"SELECT {EXPORT_COLUMNS}, {redacted_why_sql('r', 'w')}, w.body FROM notebooks_row r {WORDS_JOIN} "


def export_rows(notebook_id: int, after: int, upto: int, limit: int | None = None) -> Iterator[Found]:
    """The rows in (after, upto], streamed from one query: EXPORT_COLUMNS, the redacted why, the words."""
    sql = f"{EXPORT_SELECT}WHERE r.notebook_id = %s AND r.seq > %s AND r.seq <= %s ORDER BY r.seq"
    params: list[Any] = [notebook_id, after, upto]
    if limit is not None:
        sql += " LIMIT %s"
        params.append(limit)
    return streamed(sql, params, 2000)
