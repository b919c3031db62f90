"""Reads of the log. Each is one SQL query or a fixed few, never one round trip per row."""

import difflib
import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import connection

from . import importing, log
from .errors import Invalid, NotFound
from .models import Notebook
from .roles import is_storable

TURN_ORDER = ("dad_correction", "dad", "seen", "guessed")
ALL = 2**62  # a seq past any head: "no cut"


REDACTION_FIELDS = ("redacted", "redacts")


@dataclass(frozen=True)
class Line:
    n: int
    text: str
    source: str
    by: str
    at: float
    seq: int
    redacted: bool = False  # the text is "[redacted: why]"; kept out of as_dict, whose shape the API documents

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k not in REDACTION_FIELDS}


@dataclass(frozen=True)
class Entry:
    seq: int
    op: str
    text: str | None
    source: str
    by: str
    at: float
    why: str
    how: str
    into: int | None
    adopted: bool
    was_at: float | None
    was_by: str
    redacts: str | None = None
    redacted: bool = False  # the text is "[redacted: why]"; kept out of as_dict, whose shape the API documents

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k not in REDACTION_FIELDS}


@dataclass(frozen=True)
class Head:
    seq: int
    hash: str
    at: float


def redacted_why_sql(r: str) -> str:
    """The reason of the redaction that removed row `r`'s words (NULL unless they were redacted)."""
    return (
        f"CASE WHEN {r}.digest <> '' THEN (SELECT x.why FROM notebooks_row x WHERE x.notebook_id = {r}.notebook_id "
        f"AND x.op = 'redact' AND x.redacts = {r}.digest ORDER BY x.seq LIMIT 1) END"
    )


def words_or_mark(body: str | None, redacted_why: str | None) -> tuple[str | None, bool]:
    """A row's words, or "[redacted: why]" when a redaction removed them."""
    if redacted_why is not None:
        return log.redacted_text(redacted_why), True
    return body, False


def get_notebook(title: str) -> Notebook:
    if not isinstance(title, str) or "\x00" in title or not is_storable(title):
        # Such a title was never created, and the databases cannot even compare it.
        raise NotFound(f"No notebook is titled {title!r}.")
    try:
        return Notebook.objects.get(title=title)
    except Notebook.DoesNotExist:
        titles = list(Notebook.objects.values_list("title", flat=True))
        close = difflib.get_close_matches(title, titles, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise NotFound(f"No notebook is titled {title!r}.{hint}") from None


def parse_when(value: "str | float | int | datetime") -> float:
    """ISO 8601 (naive means UTC) or epoch seconds, as epoch seconds."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise Invalid(f"{value!r} is not a time")
        return float(value)
    else:
        text = str(value).strip()
        try:
            seconds = float(text)
        except ValueError:
            pass
        else:
            if math.isfinite(seconds):
                return seconds
            raise Invalid(f"{value!r} is not a time")
        try:
            dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise Invalid(f"{value!r} is not a time: give ISO 8601 (2026-11-12T09:30) or epoch seconds") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def head(notebook: Notebook) -> Head:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT seq, hash, at FROM notebooks_row WHERE notebook_id = %s ORDER BY seq DESC LIMIT 1",
            [notebook.pk],
        )
        found = cursor.fetchone()
    return Head(*found) if found else Head(0, log.GENESIS, 0.0)


def head_at(notebook: Notebook, *, until: float | None = None) -> Head:
    """The head a reader pins: the last row (at or before `until`), its seq and hash."""
    return head(notebook) if until is None else _row_at(notebook, cut_for(notebook, until))


def cut_for(notebook: Notebook, until: float | None) -> int:
    """The last seq recorded at or before `until` (rows' times never go backwards, so this is a prefix)."""
    if until is None:
        return ALL
    with connection.cursor() as cursor:
        cursor.execute("SELECT MAX(seq) FROM notebooks_row WHERE notebook_id = %s AND at <= %s", [notebook.pk, until])
        (seq,) = cursor.fetchone()
    return seq or 0


VIEW_SQL = f"""
SELECT a.n, w.body, {redacted_why_sql("cur")}, cur.source, cur."by", cur.at, cur.seq
FROM notebooks_row a
JOIN notebooks_row cur ON cur.notebook_id = a.notebook_id AND cur.n = a.n AND cur.seq = (
    SELECT MAX(r.seq) FROM notebooks_row r
    WHERE r.notebook_id = a.notebook_id AND r.n = a.n AND r.op IN ('add', 'edit') AND r.seq <= %(cut)s)
LEFT JOIN notebooks_words w ON w.notebook_id = cur.notebook_id AND w.digest = cur.digest
WHERE a.notebook_id = %(nb)s AND a.op = 'add' AND a.seq <= %(cut)s
  AND NOT EXISTS (
    SELECT 1 FROM notebooks_row s
    WHERE s.notebook_id = a.notebook_id AND s.n = a.n AND s.op = 'strike' AND s.seq <= %(cut)s)
ORDER BY a.n
"""


def _view_line(n: int, body: str | None, gone: str | None, source: str, by: str, at: float, seq: int) -> Line:
    text, redacted = words_or_mark(body, gone)
    return Line(n, text, source, by, at, seq, redacted)


def view_at_seq(notebook: Notebook, cut: int = ALL) -> list[Line]:
    with connection.cursor() as cursor:
        cursor.execute(VIEW_SQL, {"nb": notebook.pk, "cut": cut})
        return [_view_line(*found) for found in cursor.fetchall()]


def view(notebook: Notebook, *, until: float | None = None) -> list[Line]:
    """The live lines in number order; with `until`, exactly as the log stood at that time."""
    return view_at_seq(notebook, cut_for(notebook, until))


def in_turn_order(lines: list[Line]) -> list[Line]:
    rank = {source: i for i, source in enumerate(TURN_ORDER)}
    return sorted(lines, key=lambda line: (rank.get(line.source, len(rank)), line.n))


def history(notebook: Notebook, n: int) -> list[Entry]:
    """Every row of line n: adopted rows first by their own time, then the line's rows in log order.

    Redacted words read "[redacted: why]"; the redact row itself is an entry of the line too.
    """
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n < 2**31:
        raise NotFound(f"Notebook {notebook.title!r} has no line #{n}.")  # and SQLite could not even bind it
    with connection.cursor() as cursor:
        cursor.execute(
            'SELECT r.seq, r.op, w.body, r.source, r."by", r.at, r.why, r.how, r."into", r.was_at, r.was_by, '
            f"r.redacts, {redacted_why_sql('r')} "
            "FROM notebooks_row r LEFT JOIN notebooks_words w "
            "ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
            "WHERE r.notebook_id = %s AND r.n = %s ORDER BY r.seq",
            [notebook.pk, n],
        )
        rows = cursor.fetchall()
    if not rows:
        raise NotFound(f"Notebook {notebook.title!r} has no line #{n}.")
    adopted = sorted((r for r in rows if r[1] == "adopt"), key=lambda r: (r[9] or 0.0, r[0]))
    entries = []
    for seq, op, body, src, by, at, why, how, into, was_at, was_by, _redacts, gone in adopted:
        words, redacted = words_or_mark(body, gone)
        entries.append(Entry(seq, op, words, src, by, at, why, how, into, True, was_at, was_by, None, redacted))
    words_now: str | None = None
    source_now, redacted_now = "", False
    for seq, op, body, src, by, at, why, how, into, was_at, was_by, redacts, gone in rows:
        if op == "adopt":
            continue
        if op in ("add", "edit"):
            (words_now, redacted_now), source_now = words_or_mark(body, gone), src
        if op == "redact":
            entries.append(
                Entry(
                    seq, op, log.redacted_text(why), source_now, by, at, why, how, into, False, None, "", redacts, True
                )
            )
            continue
        entries.append(
            Entry(seq, op, words_now, source_now, by, at, why, how, into, False, was_at, was_by, None, redacted_now)
        )
    return entries


def turn(notebook: Notebook, *, until: float | None = None) -> str:
    """The text a play turn carries: Dad's corrections, his other lines, then hers, each tagged."""
    cut = cut_for(notebook, until)
    lines = in_turn_order(view_at_seq(notebook, cut))
    top = head(notebook) if cut == ALL else _row_at(notebook, cut)
    stands = datetime.fromtimestamp(top.at, tz=UTC).isoformat(timespec="seconds") if top.seq else "its start"
    parts = [f"# Notebook {notebook.title!r} as it stood at {stands} (seq {top.seq}, head {top.hash[:16]})"]
    parts += [f"[#{line.n} {line.source}] {line.text}" for line in lines]
    parts.append(log.GAME_ONLY)
    return "\n".join(parts)


def _row_at(notebook: Notebook, seq: int) -> Head:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT seq, hash, at FROM notebooks_row WHERE notebook_id = %s AND seq = %s", [notebook.pk, seq]
        )
        found = cursor.fetchone()
    return Head(*found) if found else Head(0, log.GENESIS, 0.0)


EXPORT_COLUMNS = (
    'r.seq, r.op, r.n, r.digest, r.source, r."by", r.why, r.how, r."into", r.at, r.was_at, r.was_by, '
    "r.prev_hash, r.hash, r.redacts"
)


def rows(notebook: Notebook, *, after: int = 0, upto: int = ALL, limit: int | None = None) -> Iterator[dict[str, Any]]:
    """Raw rows in log order as export objects (words included), streamed from one query."""
    sql = (
        f"SELECT {EXPORT_COLUMNS}, {redacted_why_sql('r')}, w.body FROM notebooks_row r LEFT JOIN notebooks_words w "
        "ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
        "WHERE r.notebook_id = %s AND r.seq > %s AND r.seq <= %s ORDER BY r.seq"
    )
    params: list[Any] = [notebook.pk, after, upto]
    if limit is not None:
        sql += " LIMIT %s"
        params.append(limit)
    names = [c.strip().removeprefix("r.").strip('"') for c in EXPORT_COLUMNS.split(",")]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while batch := cursor.fetchmany(2000):
            for values in batch:
                row = dict(zip(names, values[:-2], strict=True))
                yield log.export_row(row, values[-1], redacted_why=values[-2])


def export(notebook: Notebook, *, until: float | None = None) -> Iterator[str]:
    """The notebook as JSON Lines, one row a line, in log order."""
    for row in rows(notebook, upto=cut_for(notebook, until)):
        yield log.dumps(row)


# ----- the vault ----------------------------------------------------------------------------------


def heads() -> dict[str, Head]:
    """Every notebook's head, by title, in one query."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT n.title, r.seq, r.hash, r.at FROM notebooks_notebook n LEFT JOIN notebooks_row r "
            "ON r.notebook_id = n.id AND r.seq = (SELECT MAX(x.seq) FROM notebooks_row x WHERE x.notebook_id = n.id)"
        )
        return {
            title: Head(seq, hash, at) if seq is not None else Head(0, log.GENESIS, 0.0)
            for title, seq, hash, at in cursor.fetchall()
        }


def row_hash(notebook: Notebook, seq: int) -> str | None:
    """The hash of row `seq`, or None when the notebook has no such row."""
    found = _row_at(notebook, seq)
    return found.hash if found.seq else None


def fold_state(notebook: Notebook) -> importing.Fold:
    """The notebook as the importer's fold: enough to judge rows appended after its head."""
    fold = importing.Fold()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT seq, op, n, source, at, digest, redacts FROM notebooks_row WHERE notebook_id = %s ORDER BY seq",
            [notebook.pk],
        )
        while batch := cursor.fetchmany(5000):
            for seq, op, n, source, at, digest, redacts in batch:
                if digest:  # what a redact row appended later may name
                    fold.worded.setdefault(n, set()).add(digest)
                if op == "redact":
                    fold.redacted[redacts] = seq
                line = fold.lines.get(n)
                if op in ("add", "edit"):
                    if line is None:
                        fold.lines[n] = importing.FoldedLine(source=source, words="")
                    else:
                        line.source = source
                elif op == "strike" and line is not None:
                    line.live = False
                fold.top_n = max(fold.top_n, n)
                fold.seq, fold.at = seq, at
    return fold


@dataclass(frozen=True)
class Alarm:
    id: int
    at: float
    title: str
    problem: str
    message: str
    evidence_ref: str
    evidence_sha: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def when(self) -> datetime:
        return datetime.fromtimestamp(self.at, tz=UTC)


def vault_alarms(*, include_acknowledged: bool = False, limit: int = 50) -> list[Alarm]:
    """The vault's alarms, newest first: files it refused, kept as evidence and restored."""
    where = "" if include_acknowledged else "WHERE k.id IS NULL"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT a.id, a.at, a.title, a.problem, a.message, a.evidence_ref, a.evidence_sha "
            "FROM notebooks_vaultalarm a LEFT JOIN notebooks_vaultalarmack k ON k.alarm_id = a.id "
            f"{where} ORDER BY a.id DESC LIMIT %s",
            [limit],
        )
        return [Alarm(*values) for values in cursor.fetchall()]


@dataclass(frozen=True)
class Stand:
    """What a frozen reader read: the live lines as of one row, named by that row's seq and hash."""

    seq: int
    hash: str | None
    lines: list[Line]


def stand(notebook: Notebook, *, until: float | None = None) -> Stand:
    """The live lines at `until` (or now) with the seq and hash of the last row they include."""
    top = head(notebook) if until is None else _row_at(notebook, cut_for(notebook, until))
    return Stand(seq=top.seq, hash=top.hash if top.seq else None, lines=view_at_seq(notebook, top.seq))


# ----- reads for Dad's card (web) ----------------------------------------------------------------

LINE_SQL = VIEW_SQL.replace("ORDER BY a.n", "AND a.n = %(n)s")  # the view's query, for one line


def live_line(notebook: Notebook, n: int, cut: int = ALL) -> Line | None:
    """Line n as the view shows it, or None when it is retired (or never was)."""
    with connection.cursor() as cursor:
        cursor.execute(LINE_SQL, {"nb": notebook.pk, "cut": cut, "n": n})
        found = cursor.fetchone()
    return _view_line(*found) if found else None


def filter_lines(lines: list[Line], *, source: str = "", q: str = "") -> list[Line]:
    """The lines of one source and/or holding every word of the search (case-insensitive)."""
    words = q.casefold().split()
    return [
        line
        for line in lines
        if (not source or line.source == source) and all(w in line.text.casefold() for w in words)
    ]


@dataclass(frozen=True)
class NotebookSummary:
    title: str
    counts: dict[str, int]
    rows: int
    last_at: float | None

    @property
    def live(self) -> int:
        return sum(self.counts.values())

    @property
    def by_source(self) -> list[tuple[str, int]]:
        """The counts in turn order, sources without live lines left out."""
        rank = {source: i for i, source in enumerate(TURN_ORDER)}
        return sorted(((s, c) for s, c in self.counts.items() if c), key=lambda sc: (rank.get(sc[0], 99), sc[0]))


LIVE_BY_SOURCE_SQL = """
SELECT cur.notebook_id, cur.source, COUNT(*)
FROM notebooks_row cur
WHERE cur.op IN ('add', 'edit')
  AND cur.seq = (
    SELECT MAX(r.seq) FROM notebooks_row r
    WHERE r.notebook_id = cur.notebook_id AND r.n = cur.n AND r.op IN ('add', 'edit'))
  AND NOT EXISTS (
    SELECT 1 FROM notebooks_row s WHERE s.notebook_id = cur.notebook_id AND s.n = cur.n AND s.op = 'strike')
GROUP BY cur.notebook_id, cur.source
"""

HEADS_SQL = """
SELECT nb.id, nb.title, h.seq, h.at
FROM notebooks_notebook nb
LEFT JOIN notebooks_row h ON h.notebook_id = nb.id
  AND h.seq = (SELECT MAX(m.seq) FROM notebooks_row m WHERE m.notebook_id = nb.id)
ORDER BY nb.title
"""


def notebook_summaries() -> list[NotebookSummary]:
    """Every notebook with its live lines counted by source and the time of its last row (two queries)."""
    with connection.cursor() as cursor:
        cursor.execute(LIVE_BY_SOURCE_SQL)
        counts: dict[int, dict[str, int]] = {}
        for nb_id, source, count in cursor.fetchall():
            counts.setdefault(nb_id, {})[source] = count
        cursor.execute(HEADS_SQL)
        heads = cursor.fetchall()
    return [
        NotebookSummary(title=title, counts=counts.get(nb_id, {}), rows=seq or 0, last_at=at)
        for nb_id, title, seq, at in heads
    ]


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
    page = max(1, page)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COUNT(*) FROM notebooks_row r JOIN notebooks_notebook nb ON nb.id = r.notebook_id "
            f"WHERE {condition}",
            params,
        )
        (total,) = cursor.fetchone()
        cursor.execute(
            'SELECT r.id, nb.title, r.seq, r.op, r.n, w.body, r.source, r."by", r.why, r.how, r."into", r.at, '
            "r.was_at, r.was_by FROM notebooks_row r JOIN notebooks_notebook nb ON nb.id = r.notebook_id "
            "LEFT JOIN notebooks_words w ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
            f"WHERE {condition} ORDER BY r.id DESC LIMIT %s OFFSET %s",
            [*params, per_page, (page - 1) * per_page],
        )
        found = [AuditRow(*values) for values in cursor.fetchall()]
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
