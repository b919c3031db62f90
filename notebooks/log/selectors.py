"""Reads of the log. Each is one SQL query or a fixed few, never one round trip per row."""

import difflib
import math
import threading
from bisect import bisect_left
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from itertools import islice
from operator import attrgetter
from typing import Any, TypeVar

from django.db import connection

from notebooks.log import importing, rowformat, snapshots
from notebooks.log.errors import Invalid, NotFound
from notebooks.log.lines import Head, Line
from notebooks.log.roles import is_storable
from notebooks.models import Notebook

TURN_ORDER = ("dad_correction", "dad", "seen", "guessed")
ALL = 2**62  # a seq past any head: "no cut"
T = TypeVar("T")
REDACTION_FIELDS = ("redacted", "redacts")


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


def redacted_why_sql(r: str, w: str) -> str:
    """The reason of the redaction that removed row `r`'s words `w` (NULL unless they were redacted).

    Looked up only when the words are missing, so a view of kept words pays nothing for it.
    """
    return (
        f"CASE WHEN {w}.body IS NULL AND {r}.digest <> '' THEN (SELECT x.why FROM notebooks_row x "
        f"WHERE x.notebook_id = {r}.notebook_id AND x.redacts = {r}.digest AND x.op = 'redact' "
        "ORDER BY x.seq LIMIT 1) END"
    )


def words_or_mark(body: str | None, redacted_why: str | None) -> tuple[str | None, bool]:
    """A row's words, or "[redacted: why]" when a redaction removed them."""
    if redacted_why is not None:
        return rowformat.redacted_text(redacted_why), True
    return body, False


def get_notebook(title: str) -> Notebook:
    if not isinstance(title, str) or "\x00" in title or not is_storable(title):
        # Such a title was never created, and the databases cannot even compare it.
        raise NotFound(f"No notebook is titled {title!r}.")
    # Plain SQL: compiling the ORM query cost more than the rest of a warm turn. Other fields load when read.
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, title FROM notebooks_notebook WHERE title = %s", [title])
        found = cursor.fetchone()
    if found is not None:
        return Notebook.from_db(connection.alias, ["id", "title"], found)
    titles = list(Notebook.objects.values_list("title", flat=True))
    close = difflib.get_close_matches(title, titles, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise NotFound(f"No notebook is titled {title!r}.{hint}")


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
    return Head(*found) if found else Head(0, rowformat.GENESIS, 0.0)


def head_at(notebook: Notebook, *, until: float | None = None) -> Head:
    """The head a reader pins: the last row (at or before `until`), its seq and hash."""
    return head(notebook) if until is None else _row_by_time(notebook, until)


def cut_for(notebook: Notebook, until: float | None) -> int:
    """The last seq recorded at or before `until` (rows' times never go backwards, so this is a prefix)."""
    if until is None:
        return ALL
    with connection.cursor() as cursor:
        cursor.execute(CUT_BY_TIME.replace("%(nb)s", "%s").replace("%(until)s", "%s"), [notebook.pk, until])
        found = cursor.fetchone()
    return found[0] if found else 0


# The row a view stands at. Times never go backwards, so the last row by (at, seq) at or before a time is
# the last by seq: a seek on row_cut_idx, not a scan of every row before it.
CUT_BY_SEQ = "SELECT seq FROM notebooks_row WHERE notebook_id = %(nb)s AND seq <= %(cut)s ORDER BY seq DESC LIMIT 1"
CUT_BY_TIME = (
    "SELECT seq FROM notebooks_row WHERE notebook_id = %(nb)s AND at <= %(until)s ORDER BY at DESC, seq DESC LIMIT 1"
)

# The live lines at a cut, and the row they stand at, in one query (one round trip): group each line's rows
# (an index-only scan of row_fold_idx) to find its current add/edit and whether a strike took it out, then
# fetch that row and its words. CROSS JOIN keeps SQLite from scanning the rows first and searching the groups
# (its planner has no statistics to go by).
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
"""
VIEW_BY_SEQ = VIEW_SQL.format(cut=CUT_BY_SEQ, why=redacted_why_sql("r", "w"))


def _view_line(n: int, body: str | None, gone: str | None, source: str, by: str, at: float, seq: int) -> Line:
    text, redacted = words_or_mark(body, gone)
    return Line(n, text, source, by, at, seq, redacted)


def _view_sql(notebook: Notebook, cut: int = ALL) -> tuple[list[Line], Head]:
    """The live lines as the log stood at row `cut`, and the row they stand at."""
    with connection.cursor() as cursor:
        cursor.execute(VIEW_BY_SEQ, {"nb": notebook.pk, "cut": cut})
        found = cursor.fetchall()
    if not found:  # no live lines, so no row named the cut: ask for it alone
        return [], _row_before(notebook, cut)
    return [_view_line(*row[:7]) for row in found], Head(*found[0][7:])


def _computed(notebook: Notebook, cut: int = ALL) -> tuple[list[Line], Head]:
    """The view at row `cut` from the nearest snapshot and the rows after it, or else from the whole log."""
    with snapshots.quiet_gc():
        return _computed_now(notebook, cut)


def _computed_now(notebook: Notebook, cut: int) -> tuple[list[Line], Head]:
    start = snapshots.nearest(notebook.pk, cut)
    if start is not None and (cut >= ALL or cut - start[0].seq <= FORWARD_MAX):
        top, lines = start
        folder = snapshots.Folder(lines, seq=top.seq, makes_snapshots=False)
        try:
            # Past this many rows one query over the log beats folding them in Python.
            rows = list(islice(snapshots.rows_after(notebook.pk, top.seq, cut, top.hash), FORWARD_MAX + 1))
        except ValueError:
            rows = None  # the chain is broken after the snapshot: the log decides, through VIEW_SQL
        if rows is not None and len(rows) <= FORWARD_MAX:
            folder.feed(rows)
            if rows:
                last = rows[-1]
                top = Head(last[0], last[6], last[5])
            return folder.view(), top
    return _view_sql(notebook, cut)


# ----- the live view, kept folded in memory ------------------------------------------------------------
# Every read of the live view checks the log: one indexed query returns the row the fold last saw and
# any rows after it. The fold is used only if that row's hash is the one it saw (the hash chains every
# row before it, so the log up to there is exactly what was folded), and the new rows are folded in
# after checking that each links to the one before. Otherwise it is rebuilt from the log. Nothing
# in the database holds a copy of the view.

WORDED = ("add", "edit")  # the ops whose words a view shows
FOLD_STEP = 2000  # rows read past the fold in one go; more than that and the fold is rebuilt by VIEW_SQL
FORWARD_MAX = 20_000  # rows folded forward from a snapshot; more than that and VIEW_SQL reads the view
FOLDS_KEPT = 256  # folds kept, live and past (least recently read dropped first)…
FOLD_LINES_KEPT = 200_000  # …and no more lines than this in all of them (about 100 MB)


@dataclass
class _Fold:
    """The live view as the log stood at row `seq` (whose hash is `hash`): lines in number order."""

    seq: int
    hash: str
    at: float
    lines: list[Line]
    lock: threading.Lock = field(default_factory=threading.Lock)
    turn: str | None = None  # the turn text at this head, made on the first turn read
    redactions: int = 0  # redact rows in the notebook when folded: a past view holds words a later one removed


_folds: OrderedDict[tuple, _Fold] = OrderedDict()  # (alias, name, notebook[, cut seq]) -> fold
_folds_lock = threading.Lock()


def _fold_key(notebook: Notebook) -> tuple[str, str, int]:
    return (connection.alias, str(connection.settings_dict.get("NAME")), notebook.pk)


def forget_folds() -> None:
    """Drop every kept fold (the next read of each live view rebuilds it from the log)."""
    with _folds_lock:
        _folds.clear()


def _fold_forward(fold: _Fold, rows: list[tuple]) -> bool:
    """Fold rows after fold.seq into it; False (and the fold unchanged) if they do not continue its chain."""
    prev_seq, prev_hash = fold.seq, fold.hash
    for seq, op, _n, _source, _by, _at, row_prev, row_hash, _digest, body in rows:
        if seq != prev_seq + 1 or row_prev != prev_hash or op == "redact":  # a redaction: rebuild, words go
            return False
        if body is None and op in WORDED:  # words redacted before this row came: the rebuild shows the mark
            return False
        prev_seq, prev_hash = seq, row_hash
    lines = fold.lines
    by_n = attrgetter("n")
    for seq, op, n, source, by, at, _prev, _hash, _digest, body in rows:
        if op == "adopt":
            continue
        i = bisect_left(lines, n, key=by_n)
        found = i < len(lines) and lines[i].n == n
        if op == "strike":
            if found:
                del lines[i]
        elif op == "add" or found:  # an edit of a retired line stays retired, as in VIEW_SQL
            line = Line(n, body, source, by, at, seq)
            if found:
                lines[i] = line
            else:
                lines.insert(i, line)
    last = rows[-1]
    fold.seq, fold.at, fold.hash, fold.turn = last[0], last[5], last[7], None
    return True


def fold_in(notebook: Notebook, top: Head, written: Sequence[Any]) -> None:
    """Rows just written after `top` (services.RowWritten) folded into the notebook's kept live view, if it
    stands at `top`: the writer's next read then finds the view at the log's head. That read still checks the
    row the fold stands at against the log, so a write rolled back later only costs a rebuild."""
    with _folds_lock:
        fold = _folds.get(_fold_key(notebook))
    if fold is None or not written:
        return
    with fold.lock:
        if fold.seq == top.seq and fold.hash == top.hash:
            _fold_forward(
                fold, [(w.seq, w.op, w.n, w.source, w.by, w.at, w.prev_hash, w.hash, "", w.body) for w in written]
            )


def _with_fold(notebook: Notebook, use: Callable[[_Fold], T]) -> T:
    """`use` applied to the notebook's fold, brought up to the log's head (or rebuilt from the log), under its lock."""
    key = _fold_key(notebook)
    with _folds_lock:
        fold = _folds.get(key)
        if fold is not None:
            _folds.move_to_end(key)
    if fold is not None:
        with fold.lock:
            # The row the fold stands at and up to FOLD_STEP rows after it, in one bounded range (seqs are dense).
            with connection.cursor() as cursor:
                cursor.execute(snapshots.ROWS_SQL, [notebook.pk, max(fold.seq, 1) - 1, fold.seq + FOLD_STEP])
                found = cursor.fetchall()
            if fold.seq == 0:
                found.insert(0, (0, "", 0, "", "", 0.0, "", rowformat.GENESIS, "", None))
            # Used only if the row it stands at still has its hash, and the rows after it (fewer than a full range,
            # or there may be more) continue the chain.
            if found and found[0][0] == fold.seq and found[0][7] == fold.hash and len(found) <= FOLD_STEP:
                if len(found) == 1 or _fold_forward(fold, found[1:]):
                    return use(fold)
    lines, top = _computed(notebook)
    fold = _Fold(top.seq, top.hash, top.at, lines, redactions=snapshots.count_redactions(notebook.pk))
    _keep(key, fold)
    with fold.lock:
        return use(fold)


def _keep(key: tuple, fold: _Fold) -> None:
    with _folds_lock:
        _folds[key] = fold
        _folds.move_to_end(key)
        lines = sum(len(kept.lines) for kept in _folds.values())
        while len(_folds) > 1 and (len(_folds) > FOLDS_KEPT or lines > FOLD_LINES_KEPT):
            _, dropped = _folds.popitem(last=False)
            lines -= len(dropped.lines)


def _live(notebook: Notebook) -> tuple[list[Line], Head]:
    """The live lines and the head they stand at, from the kept fold when the log still backs it."""
    return _with_fold(notebook, lambda fold: (list(fold.lines), Head(fold.seq, fold.hash, fold.at)))


def _frozen(notebook: Notebook, cut: int = ALL, *, until: float | None = None) -> _Fold:
    """The view as the log stood at row `cut` (or at time `until`). A past view never changes, so it is kept
    too, under the seq of the row it stands at, and used while that row still carries the hash it had and no
    redaction came since (a redaction removes words from past views too)."""
    top, redactions = _frozen_top(notebook, cut, until)
    key = (*_fold_key(notebook), top.seq)
    with _folds_lock:
        fold = _folds.get(key)
        if fold is not None:
            _folds.move_to_end(key)
    if fold is not None and fold.hash == top.hash and fold.redactions == redactions:
        return fold
    lines, found = _computed(notebook, top.seq)
    fold = _Fold(found.seq, found.hash, found.at, lines, redactions=redactions)
    _keep(key, fold)
    return fold


def _frozen_top(notebook: Notebook, cut: int, until: float | None) -> tuple[Head, int]:
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
    return (Head(*found[:3]), found[3]) if found else (Head(0, rowformat.GENESIS, 0.0), 0)


def view_at_seq(notebook: Notebook, cut: int = ALL) -> list[Line]:
    """The live lines as the log stood at row `cut`; without a cut, the live view now (kept folded)."""
    if cut >= ALL:
        return _live(notebook)[0]
    return list(_frozen(notebook, cut).lines)


def view(notebook: Notebook, *, until: float | None = None) -> list[Line]:
    """The live lines in number order; with `until`, exactly as the log stood at that time."""
    if until is None:
        return _live(notebook)[0]
    return list(_frozen(notebook, until=until).lines)


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
            f"r.redacts, {redacted_why_sql('r', 'w')} "
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
                    seq,
                    op,
                    rowformat.redacted_text(why),
                    source_now,
                    by,
                    at,
                    why,
                    how,
                    into,
                    False,
                    None,
                    "",
                    redacts,
                    True,
                )
            )
            continue
        entries.append(
            Entry(seq, op, words_now, source_now, by, at, why, how, into, False, was_at, was_by, None, redacted_now)
        )
    return entries


def turn(notebook: Notebook, *, until: float | None = None) -> str:
    """The text a play turn carries: Dad's corrections, his other lines, then hers, each tagged."""
    if until is None:
        return _with_fold(notebook, lambda fold: _kept_turn(notebook, fold))
    return _kept_turn(notebook, _frozen(notebook, until=until))


def _kept_turn(notebook: Notebook, fold: _Fold) -> str:
    if fold.turn is None:
        fold.turn = _turn_text(notebook, fold.lines, Head(fold.seq, fold.hash, fold.at))
    return fold.turn


def _turn_text(notebook: Notebook, live: list[Line], top: Head) -> str:
    lines = in_turn_order(live)
    stands = datetime.fromtimestamp(top.at, tz=UTC).isoformat(timespec="seconds") if top.seq else "its start"
    parts = [f"# Notebook {notebook.title!r} as it stood at {stands} (seq {top.seq}, head {top.hash[:16]})"]
    parts += [f"[#{line.n} {line.source}] {line.text}" for line in lines]
    parts.append(rowformat.GAME_ONLY)
    return "\n".join(parts)


def _row_at(notebook: Notebook, seq: int) -> Head:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT seq, hash, at FROM notebooks_row WHERE notebook_id = %s AND seq = %s", [notebook.pk, seq]
        )
        found = cursor.fetchone()
    return Head(*found) if found else Head(0, rowformat.GENESIS, 0.0)


def _row_by_time(notebook: Notebook, until: float) -> Head:
    """The last row recorded at or before `until` (a seek on row_cut_idx)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT seq, hash, at FROM notebooks_row WHERE notebook_id = %s AND at <= %s "
            "ORDER BY at DESC, seq DESC LIMIT 1",
            [notebook.pk, until],
        )
        found = cursor.fetchone()
    return Head(*found) if found else Head(0, rowformat.GENESIS, 0.0)


def _row_before(notebook: Notebook, seq: int) -> Head:
    """The last row at or before seq (the head, for ALL)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT seq, hash, at FROM notebooks_row WHERE notebook_id = %s AND seq <= %s ORDER BY seq DESC LIMIT 1",
            [notebook.pk, seq],
        )
        found = cursor.fetchone()
    return Head(*found) if found else Head(0, rowformat.GENESIS, 0.0)


EXPORT_COLUMNS = (
    'r.seq, r.op, r.n, r.digest, r.source, r."by", r.why, r.how, r."into", r.at, r.was_at, r.was_by, '
    "r.prev_hash, r.hash, r.redacts"
)


def rows(notebook: Notebook, *, after: int = 0, upto: int = ALL, limit: int | None = None) -> Iterator[dict[str, Any]]:
    """Raw rows in log order as export objects (words included), streamed from one query."""
    sql = (
        f"SELECT {EXPORT_COLUMNS}, {redacted_why_sql('r', 'w')}, w.body "
        "FROM notebooks_row r LEFT JOIN notebooks_words w "
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
                yield rowformat.export_row(row, values[-1], redacted_why=values[-2])


def export(notebook: Notebook, *, until: float | None = None) -> Iterator[str]:
    """The notebook as JSON Lines, one row a line, in log order."""
    for row in rows(notebook, upto=cut_for(notebook, until)):
        yield rowformat.dumps(row)


# ----- the vault ----------------------------------------------------------------------------------


def heads() -> dict[str, Head]:
    """Every notebook's head, by title, in one query."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT n.title, r.seq, r.hash, r.at FROM notebooks_notebook n LEFT JOIN notebooks_row r "
            "ON r.notebook_id = n.id AND r.seq = (SELECT MAX(x.seq) FROM notebooks_row x WHERE x.notebook_id = n.id)"
        )
        return {
            title: Head(seq, hash, at) if seq is not None else Head(0, rowformat.GENESIS, 0.0)
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
    if until is None:
        lines, top = _live(notebook)
    else:
        fold = _frozen(notebook, until=until)
        lines, top = list(fold.lines), Head(fold.seq, fold.hash, fold.at)
    return Stand(seq=top.seq, hash=top.hash if top.seq else None, lines=lines)


# ----- reads for Dad's card (web) ----------------------------------------------------------------

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


def live_line(notebook: Notebook, n: int, cut: int = ALL) -> Line | None:
    """Line n as the view shows it, or None when it is retired (or never was)."""
    if cut >= ALL:  # from the kept fold: one query, then a binary search by number
        return _with_fold(notebook, lambda fold: _find(fold.lines, n))
    with connection.cursor() as cursor:
        cursor.execute(LINE_SQL, {"nb": notebook.pk, "cut": cut, "n": n})
        found = cursor.fetchone()
    return _view_line(*found) if found else None


def _find(lines: list[Line], n: int) -> Line | None:
    i = bisect_left(lines, n, key=attrgetter("n"))
    return lines[i] if i < len(lines) and lines[i].n == n else None


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


HEADS_SQL = """
SELECT nb.id, nb.title, h.seq, h.at
FROM notebooks_notebook nb
LEFT JOIN notebooks_row h ON h.notebook_id = nb.id
  AND h.seq = (SELECT MAX(m.seq) FROM notebooks_row m WHERE m.notebook_id = nb.id)
ORDER BY nb.title
"""


def notebook_summaries() -> list[NotebookSummary]:
    """Every notebook with its live lines counted by source and the time of its last row: the counts come from
    each notebook's kept view (one query each when warm), not from grouping every row of every notebook."""
    with connection.cursor() as cursor:
        cursor.execute(HEADS_SQL)
        heads = cursor.fetchall()
    summaries = []
    for nb_id, title, seq, at in heads:
        counts: dict[str, int] = {}
        if seq:
            notebook = Notebook.from_db(connection.alias, ["id", "title"], (nb_id, title))
            counts = dict(Counter(line.source for line in _live(notebook)[0]))
        summaries.append(NotebookSummary(title=title, counts=counts, rows=seq or 0, last_at=at))
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


def redacted_digests(notebook: Notebook) -> frozenset[str]:
    """The digests of every word the notebook's redact rows removed."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT redacts FROM notebooks_row WHERE notebook_id = %s AND redacts IS NOT NULL", [notebook.pk]
        )
        return frozenset(digest for (digest,) in cursor.fetchall())


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
