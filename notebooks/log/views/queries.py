"""The views as the log computes them: heads and cuts, the SQL forms of the fold (property-tested against fold.py),
and a view folded forward from the nearest snapshot. Each read is one SQL query or a fixed few."""

from itertools import islice

from django.db import connection

from notebooks.log.files import rowformat
from notebooks.log.rules import fold
from notebooks.log.views import snapshots
from notebooks.log.views.lines import Head, Line
from notebooks.models import Notebook

ALL = 2**62  # a seq past any head: "no cut"
NO_ROWS = Head(0, rowformat.GENESIS, 0.0)  # where an empty notebook's chain starts
FORWARD_MAX = 20_000  # rows folded forward from a snapshot; past this, one query over the log beats folding them


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


def words_or_mark(body: str | None, redacted_why: str | None) -> tuple[str | None, bool]:
    """A row's words, or "[redacted: why]" when a redaction removed them."""
    if redacted_why is not None:
        return rowformat.redacted_text(redacted_why), True
    return body, False


# ----- rows a view stands at ---------------------------------------------------------------------------


def _one_head(sql: str, params: list) -> Head:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchone()
    return Head(*found) if found else NO_ROWS


def head(notebook: Notebook) -> Head:
    """The notebook's last row: its seq, hash and time."""
    return row_before(notebook, ALL)


def row_at(notebook: Notebook, seq: int) -> Head:
    return _one_head("SELECT seq, hash, at FROM notebooks_row WHERE notebook_id = %s AND seq = %s", [notebook.pk, seq])


def row_before(notebook: Notebook, seq: int) -> Head:
    """The last row at or before seq (the head, for ALL)."""
    return _one_head(
        "SELECT seq, hash, at FROM notebooks_row WHERE notebook_id = %s AND seq <= %s ORDER BY seq DESC LIMIT 1",
        [notebook.pk, seq],
    )


def row_by_time(notebook: Notebook, until: float) -> Head:
    """The last row recorded at or before `until` (a seek on row_cut_idx: times never go backwards)."""
    return _one_head(
        "SELECT seq, hash, at FROM notebooks_row WHERE notebook_id = %s AND at <= %s "
        "ORDER BY at DESC, seq DESC LIMIT 1",
        [notebook.pk, until],
    )


def cut_for(notebook: Notebook, until: float | None) -> int:
    """The last seq recorded at or before `until` (rows' times never go backwards, so this is a prefix)."""
    return ALL if until is None else row_by_time(notebook, until).seq


def row_and_redactions(notebook: Notebook, cut: int, until: float | None) -> tuple[Head, int]:
    """The row a past view stands at (the last at or before seq `cut`, or time `until`) and the notebook's count
    of redact rows, in one query."""
    where, bound = (
        ("seq <= %(bound)s ORDER BY seq DESC", cut)
        if until is None
        else ("at <= %(bound)s ORDER BY at DESC, seq DESC", until)
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT seq, hash, at, {snapshots.REDACTIONS} FROM notebooks_row WHERE notebook_id = %(nb)s "
            f"AND {where} LIMIT 1",
            {"nb": notebook.pk, "bound": bound},
        )
        found = cursor.fetchone()
    return (Head(*found[:3]), found[3]) if found else (NO_ROWS, 0)


# ----- the view in SQL -----------------------------------------------------------------------------------

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


def _line(n: int, body: str | None, gone: str | None, source: str, by: str, at: float, seq: int) -> Line:
    text, redacted = words_or_mark(body, gone)
    return Line(n, text, source, by, at, seq, redacted)


def view_by_sql(notebook: Notebook, cut: int = ALL) -> tuple[list[Line], Head]:
    """The live lines as the log stood at row `cut`, and the row they stand at, by VIEW_SQL."""
    with connection.cursor() as cursor:
        cursor.execute(VIEW_SQL, {"nb": notebook.pk, "cut": cut})
        found = cursor.fetchall()
    if not found:  # no live lines, so no row named the cut: ask for it alone
        return [], row_before(notebook, cut)
    return [_line(*row[:7]) for row in found], Head(*found[0][7:])


def line_by_sql(notebook: Notebook, n: int, cut: int = ALL) -> Line | None:
    """Line n as the view at row `cut` shows it, by LINE_SQL; None when it is retired (or never was)."""
    with connection.cursor() as cursor:
        cursor.execute(LINE_SQL, {"nb": notebook.pk, "cut": cut, "n": n})
        found = cursor.fetchone()
    return _line(*found) if found else None


def computed_view(notebook: Notebook, cut: int = ALL) -> tuple[list[Line], Head]:
    """The view at row `cut` from the nearest snapshot and the rows after it, or else from the whole log."""
    with snapshots.quiet_gc():
        start = snapshots.nearest(notebook.pk, cut)
        if start is not None and (cut >= ALL or cut - start[0].seq <= FORWARD_MAX):
            top, lines = start
            folder = snapshots.Folder(lines, seq=top.seq, makes_snapshots=False)
            try:
                rows = list(islice(snapshots.rows_after(notebook.pk, top.seq, cut, top.hash), FORWARD_MAX + 1))
            except ValueError:
                rows = None  # the chain is broken after the snapshot: the log decides, through VIEW_SQL
            if rows is not None and len(rows) <= FORWARD_MAX:
                folder.feed(rows)
                if rows:
                    last = rows[-1]
                    top = Head(last[0], last[6], last[5])
                return folder.view(), top
        return view_by_sql(notebook, cut)
