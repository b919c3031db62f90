"""A line's rows and the lines that name it: its rows as a write judges them, its words and digests, the lines that
restore it or were merged into it, where it moved, the retired lines with the words they had, and the lines a span
of rows touched."""

from notebooks.log.store.view_reads import (
    WORDS_JOIN,
    Found,
    fetch_all,
    fetch_one,
    proposed_op_sql,
    redacted_why_sql,
    withdrawn_sql,
)


def line_rows(notebook_id: int, n: int, session: int | None) -> list[Found]:
    """Line n's rows in log order as a write judges them: (seq, op, source, words), `session`'s proposals as the ops
    they propose (read your own writes)."""
    return fetch_all(
        f"SELECT r.seq, {proposed_op_sql('r', of_session=True)}, r.source, w.body FROM notebooks_row r {WORDS_JOIN} "
        "WHERE r.notebook_id = %s AND r.n = %s ORDER BY r.seq",
        [session, notebook_id, n],
    )


def redact_rows_naming(notebook_id: int, digests: list[str]) -> dict[str, int]:
    """Which of these digests (at most 500) a redact row of the notebook names, with that row's seq."""
    return dict(
        fetch_all(
            "SELECT redacts, seq FROM notebooks_row WHERE notebook_id = %s AND op = 'redact' "
            f"AND redacts IN ({', '.join(['%s'] * len(digests))})",
            [notebook_id, *digests],
        )
    )


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
    return [
        x
        for (x,) in fetch_all(
            "SELECT n FROM notebooks_row WHERE notebook_id = %s AND op = 'strike' AND how = 'merged' AND \"into\" = %s "
            "ORDER BY n",
            [notebook_id, n],
        )
    ]


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
    """Every strike at or before row `cut`, most recent first, with the words the line had before it: (n, words,
    redacted why, source, seq, by, at, why, how, into, restored as, moved_notebook, moved_n)."""
    return fetch_all(RETIRED_SQL, {"nb": notebook_id, "cut": cut})


def row_lines(notebook_id: int, first: int, last: int) -> list[Found]:
    return fetch_all(
        "SELECT seq, n, hash FROM notebooks_row WHERE notebook_id = %s AND seq >= %s AND seq <= %s",
        [notebook_id, first, last],
    )
