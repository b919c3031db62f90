"""Rows appended to a notebook's log in the caller's transaction: hashed into the chain, words stored once, and the
views' caches told of them (the follower the views register at start-up: the store never imports the views)."""

import functools
import itertools
import math
import time
from collections.abc import Container, Iterable, Iterator
from typing import Any, NamedTuple

from django.db import IntegrityError, connection

from notebooks.log.files import rowformat
from notebooks.log.identity import wordkeys
from notebooks.log.rules import checks, fold
from notebooks.log.rules.errors import Conflict, Invalid
from notebooks.log.rules.lines import Head
from notebooks.log.store.locked_reads import AnyNotebook, head, redacted_digests_of, refuse_redacted

ROW_COLUMNS = (
    "notebook_id", "seq", "op", "n", "digest", "source", "by", "why", "how", "into", "at", "was_at", "was_by",
    "prev_hash", "hash", "session_id", "redacts", "moved_notebook", "moved_n", "proposes", "lands", "claimed_at",
)  # fmt: skip
# The columns notebooks_add_row (migration 0013) takes: the one-trip add has no move, proposal nor claimed time.
ADD_ROW_COLUMNS = len(ROW_COLUMNS) - 5


class RowWritten(NamedTuple):
    """A row as append wrote it; a tuple, made fast for 100k-row imports."""

    seq: int
    op: str
    n: int
    by: str
    at: float
    prev_hash: str
    hash: str
    source: str
    body: str | None  # the words of an add or edit (None when redacted, and for other ops)


class Follower:
    """What keeps the views' caches up with the log (views/caches.py, registered in apps.py); this one keeps none."""

    def writes_after(self, before: int, after: int) -> bool:
        """Whether rows appended after seq `before` up to `after` make it write, in their transaction."""
        return False

    def appended(
        self, notebook: AnyNotebook, top: Head, written: list[RowWritten], *, fold: bool, words_missing: bool
    ) -> None:
        """Rows just inserted after `top`, in their transaction: `fold` unless words were withheld as redacted,
        `words_missing` when a row came without the words it names (a redact row, or redacted words)."""


_follower = Follower()


def register(follower: Follower) -> None:
    global _follower
    _follower = follower


def following() -> Follower:
    return _follower


WORDS_COLUMNS = ("notebook_id", "digest", "body", "salt")
COPY_FROM = 200  # rows; PostgreSQL's COPY beats a pipelined INSERT per row from about here


# The row columns' types, for a binary COPY: no text to format here nor to parse there.
ROW_TYPES = (
    "int8", "int8", "varchar", "int4", "varchar", "varchar", "varchar", "text", "varchar", "int4", "float8", "float8",
    "varchar", "varchar", "varchar", "int8", "varchar", "varchar", "int4", "varchar", "int8", "float8",
)  # fmt: skip


def _copy(
    cursor: Any, table: str, columns: tuple[str, ...], values: Iterable[tuple[Any, ...]], types: tuple[str, ...] = ()
) -> None:
    """PostgreSQL's COPY, about 10x a row-by-row INSERT; `values` may be a generator, filed as it is made."""
    sql = f"COPY {table} ({', '.join(map(connection.ops.quote_name, columns))}) FROM STDIN"
    with cursor.cursor.copy(f"{sql} (FORMAT BINARY)" if types else sql) as copy:  # psycopg's cursor, under Django's
        if types:
            copy.set_types(types)
        write = copy.write_row
        for row in values:
            write(row)


def _copy_words(cursor: Any, notebook: AnyNotebook, words: list[tuple[Any, ...]]) -> None:
    """COPY of words not kept already (COPY has no ON CONFLICT; the notebook is locked)."""
    # Filtered here: `digest = ANY(60k digests)` was planned as a scan (20 s for a 100k-row import).
    cursor.execute("SELECT digest FROM notebooks_words WHERE notebook_id = %s", [notebook.pk])
    kept = {digest for (digest,) in cursor.fetchall()}
    _copy(cursor, "notebooks_words", WORDS_COLUMNS, (row for row in words if row[1] not in kept))


@functools.cache
def _insert_sql(table: str, columns: tuple[str, ...], suffix: str = "") -> str:
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    return f"INSERT INTO {table} ({names}) VALUES ({', '.join(['%s'] * len(columns))}){suffix}"


def append(
    notebook: AnyNotebook,
    new_rows: Iterable[dict[str, Any]],
    top: Head | None = None,
    *,
    redacted: Container[str] = frozenset(),
    redactions_checked: bool = False,
) -> list[RowWritten]:
    """Chain and insert rows after the head, stamping those without `at`; words whose digest is in `redacted` are
    never stored. `new_rows` may be a generator, inserted as it comes (a refusal leaves the caller to roll back).
    No model instances: one per row made a 100k-row import take 20 s, most of it in the ORM."""
    top = top or head(notebook)
    vendor = connection.vendor
    words: dict[str, tuple[str, str | None]] = {}  # digest -> (words, salt)
    written: list[RowWritten] = []
    wordless: list[int] = []
    rows = _chained(notebook, new_rows, top, words, written, vendor, wordless)
    try:
        with connection.cursor() as cursor:
            first = list(itertools.islice(rows, COPY_FROM)) if vendor == "postgresql" else rows
            if vendor == "postgresql" and len(first) == COPY_FROM:
                _copy(cursor, "notebooks_row", ROW_COLUMNS, itertools.chain(first, rows), ROW_TYPES)
            elif first:
                cursor.executemany(_insert_sql("notebooks_row", ROW_COLUMNS), first)
            # Words sorted by digest: the (notebook, digest) index fills in order (PostgreSQL: half the server's time).
            new_words = sorted((notebook.pk, d, b, s) for d, (b, s) in words.items() if d not in redacted)
            if new_words and top.seq and not redactions_checked:
                # Redacted words never come back, under the writer's digest or the notebook's keyed one.
                other = [d2 for _, d, b, _ in new_words for d2 in wordkeys.lookups(notebook.title, b) if d2 != d]
                gone = redacted_digests_of(notebook, [*(d for _, d, _, _ in new_words), *other])
                if gone:
                    refuse_redacted(notebook, min(gone.values()))
            if new_words and vendor == "postgresql" and len(new_words) >= COPY_FROM:
                _copy_words(cursor, notebook, new_words)
            elif new_words:
                cursor.executemany(_insert_sql("notebooks_words", WORDS_COLUMNS, " ON CONFLICT DO NOTHING"), new_words)
    except IntegrityError as exc:
        raise Conflict(f"Another write reached notebook {notebook.title!r} first; try again. ({exc})") from exc
    _follower.appended(notebook, top, written, fold=not redacted, words_missing=bool(wordless))
    return written


def chain_one(notebook: AnyNotebook, fields: dict[str, Any], top: Head) -> tuple[tuple[Any, ...], RowWritten]:
    """One row's column values, hashed into the chain after `top`, and the row as written, for fast_add.py to insert."""
    written: list[RowWritten] = []
    (values,) = _chained(notebook, [fields], top, {}, written, connection.vendor, [])
    return values, written[0]


def _chained(
    notebook: AnyNotebook,
    new_rows: Iterable[dict[str, Any]],
    top: Head,
    words: dict[str, tuple[str, str | None]],
    written: list[RowWritten],
    vendor: str,
    wordless: list[int],
) -> Iterator[tuple[Any, ...]]:
    """Each row's column values, hashed into the chain after `top`; fills `words`, `written` and `wordless` (the
    seqs of rows without the words they name)."""
    now = time.time()
    latest = checks.latest_time(now)
    seq, prev, last_at = top.seq, top.hash, top.at
    pk = notebook.pk
    # SQLite stores a NaN as NULL, and binds it at once where a None costs an adapter lookup (~3k instructions).
    null = math.nan if vendor == "sqlite" else None
    hash_of, worded = rowformat.hash_of, fold.WORDED
    for fields in new_rows:
        seq += 1
        get = fields.get
        body = get("words")
        # A redacted row has a digest and no words; words without one get their keyed digest here (wordkeys.py).
        digest, salt = get("digest"), get("salt")
        if body is not None:
            if not digest:
                salt, digest = wordkeys.keyed(notebook.title, body)
            words[digest] = (body, salt)
        elif not digest:
            digest = ""
        at = get("at")
        at = max(now, last_at) if at is None else float(at)
        if at > latest:
            _refuse_future(notebook, at, latest, stamped=get("at") is None, last_at=last_at)
        op, n, by = fields["op"], fields["n"], fields["by"]
        proposes, lands = get("proposes"), get("lands")
        session_id = get("session_id")
        if session_id is not None and op in fold.PROPOSABLE:
            op, proposes = fold.PROPOSE, op  # a session's row is pending until its land copies it (fold.py)
        source, why, how, into = get("source") or "", get("why") or "", get("how") or "", get("into")
        was_at, was_by, redacts = get("was_at"), get("was_by") or "", get("redacts")
        moved_notebook, moved_n, claimed_at = get("moved_notebook"), get("moved_n"), get("claimed_at")
        digest_hash = hash_of(
            prev, at, by, digest, how, into, n, op, redacts, seq, source, was_at, was_by, why, moved_notebook, moved_n,
            proposes, lands, claimed_at,
        )  # fmt: skip
        expect_hash = get("expect_hash")
        if expect_hash is not None and expect_hash != digest_hash:
            line_no = get("line_no")
            raise Invalid(
                f"line {line_no}: 'hash' does not match the row's content: the file was altered after export",
                line=line_no,
            )
        written.append(RowWritten(seq, op, n, by, at, prev, digest_hash, source, body if op in worded else None))
        if op == "redact" or (digest and body is None):
            wordless.append(seq)
        yield (
            pk, seq, op, n, digest, source, by, why, how, null if into is None else into, at,
            null if was_at is None else was_at, was_by, prev, digest_hash,
            null if session_id is None else session_id, null if redacts is None else redacts,
            null if moved_notebook is None else moved_notebook, null if moved_n is None else moved_n,
            null if proposes is None else proposes, null if lands is None else lands,
            null if claimed_at is None else claimed_at,
        )  # fmt: skip
        prev, last_at = digest_hash, at


def _refuse_future(notebook: AnyNotebook, at: float, latest: float, *, stamped: bool, last_at: float) -> None:
    if not stamped:  # the doors refuse it first (importing.py); this is the write path's own guard
        raise Invalid(f"A row's time {checks.problem_of_future(at, latest)}.")
    # A row is never dated before the one it follows, so after a row from the future there is no honest time to give.
    raise Conflict(
        f"Notebook {notebook.title!r} cannot take a new row: its last row is dated {checks.shown_time(last_at)}, "
        f"later than this server's clock allows (now plus NOTEBOOK_CLOCK_ALLOWANCE is {checks.shown_time(latest)}), "
        "and a row is never dated before the one it follows. If this server's clock is behind, set it right; if "
        "the log carries a time from the future, export it, correct the times and import it as a new notebook."
    )
