"""Every write to a notebook. Each public function is one transaction; nothing else writes rows.

All functions are keyword-only. A refusal raises a NotebookError subclass with nothing written.
"""

import functools
import itertools
import logging
import math
import threading
import time
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, transaction

from notebooks.log import fold, guards, importing, kept, rowformat, snapshots
from notebooks.log.errors import Conflict, Forbidden, Invalid, NotFound
from notebooks.log.locks import LOCK_BY_TITLE, lock_notebook
from notebooks.log.roles import AGENT_SOURCES, Actor, as_actor, check_name, is_storable
from notebooks.log.selectors import Head, get_notebook, head
from notebooks.models import Notebook, Source, title_validator

SOURCES = frozenset(Source.values)
MAX_NUMBER = 2**31 - 1  # the largest line number the n column holds on every database


@dataclass(frozen=True)
class LineState:
    n: int
    source: str
    words: str | None
    last_seq: int
    live: bool


@dataclass(frozen=True)
class Written:
    """What a write appended: the line it concerns and the rows' seqs."""

    n: int
    seqs: tuple[int, ...]

    @property
    def seq(self) -> int:
        return self.seqs[-1]


class NotebookRef(NamedTuple):
    """What a write needs of its notebook: an add builds this, not a model instance (which cost more to make)."""

    pk: int
    title: str


AnyNotebook = Notebook | NotebookRef


# ----- checks shared by every write ---------------------------------------------------------------


def check_words(words: Any, what: str = "words") -> str:
    if not isinstance(words, str) or not words.strip():
        raise Invalid(f"The {what} are empty: a line needs words.")
    if len(words) > settings.NOTEBOOK_MAX_WORDS:
        raise Invalid(f"The {what} are {len(words)} characters long; the limit is {settings.NOTEBOOK_MAX_WORDS}.")
    if "\x00" in words:
        raise Invalid(f"The {what} contain a NUL character.")
    if not is_storable(words):
        raise Invalid(f"The {what} are not valid Unicode text.")
    return words


def check_reason(why: Any) -> str:
    if not isinstance(why, str) or not why.strip():
        raise Invalid("A reason is required: say why, in a few words.")
    if len(why) > settings.NOTEBOOK_MAX_REASON:
        raise Invalid(f"The reason is {len(why)} characters long; the limit is {settings.NOTEBOOK_MAX_REASON}.")
    if "\x00" in why:
        raise Invalid("The reason contains a NUL character.")
    if not is_storable(why):
        raise Invalid("The reason is not valid Unicode text.")
    return why


def check_source(source: Any) -> str:
    if not isinstance(source, str) or source not in SOURCES:
        raise Invalid(f"Unknown source {source!r}: use one of {', '.join(sorted(SOURCES))}.")
    return source


def check_number(n: Any, what: str = "line number") -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise Invalid(f"The {what} {n!r} is not a positive whole number.")
    if n > MAX_NUMBER:
        raise Invalid(f"The {what} {n} is beyond any line a notebook can have.")
    return n


def _may_change(actor: Actor, line: LineState, verb: str) -> None:
    if not actor.editor and line.source not in AGENT_SOURCES:
        raise Forbidden(
            f"{actor.name} may not {verb} line #{line.n}: it is Dad's ({line.source}); only the human editor may."
        )


def _session_fields(title: str, actor: Actor) -> dict[str, Any]:
    """The session the write's rows belong to (guards.py); refuses a write an open session forbids."""
    return {"session_id": guards.current().claim(title=title, actor=actor)}


# ----- state read inside the write's transaction --------------------------------------------------


def _lock(title: str) -> Notebook:
    """The notebook, locked for this transaction (locks.py: an advisory lock, not FOR UPDATE, which would need
    UPDATE privilege). Plain SQL: compiling the ORM query cost more CPU than the rest of an add."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, title FROM notebooks_notebook WHERE title = %s", [title])
        found = cursor.fetchone()
    if found is None:
        return get_notebook(title)  # raises NotFound, with a hint
    return lock_notebook(Notebook.from_db(connection.alias, ["id", "title"], found))  # the rest loads when read


def _line(notebook: Notebook, n: int) -> LineState:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT r.seq, r.op, r.source, w.body FROM notebooks_row r LEFT JOIN notebooks_words w "
            "ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
            "WHERE r.notebook_id = %s AND r.n = %s AND r.op <> 'adopt' ORDER BY r.seq",
            [notebook.pk, n],
        )
        found = cursor.fetchall()
    if not found:
        raise NotFound(f"Notebook {notebook.title!r} has no line #{n}.")
    source, words, live = "", None, True
    for _seq, op, src, body in found:
        if op in ("add", "edit"):
            source, words = src, body
        elif op == "strike":
            live = False
    return LineState(n=n, source=source, words=words, last_seq=found[-1][0], live=live)


def _live_line(notebook: Notebook, n: int) -> LineState:
    line = _line(notebook, check_number(n))
    if not line.live:
        raise Conflict(f"Line #{n} is already retired; its history keeps its words.", current_seq=line.last_seq)
    return line


def _next_number(notebook: Notebook) -> int:
    # Numbers are given once, for good: adopted rows of a dropped line hold their number too.
    with connection.cursor() as cursor:
        cursor.execute("SELECT MAX(n) FROM notebooks_row WHERE notebook_id = %s", [notebook.pk])
        (top,) = cursor.fetchone()
    return (top or 0) + 1


def _tip(notebook: Notebook) -> tuple[Head, int]:
    """The head and the next line number, in one query (an add needs both)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT seq, hash, at, (SELECT MAX(n) FROM notebooks_row WHERE notebook_id = %s) "
            "FROM notebooks_row WHERE notebook_id = %s ORDER BY seq DESC LIMIT 1",
            [notebook.pk, notebook.pk],
        )
        found = cursor.fetchone()
    if found is None:
        return Head(0, rowformat.GENESIS, 0.0), 1
    return Head(*found[:3]), found[3] + 1


# What an add reads, in one statement: the notebook, its head, its next number, the seq of a redact row naming the
# words (redacted words never come back) and whether the write guard may claim the write (guards.py).
# Each statement through Django's cursor costs more CPU than SQLite spends on it; an add ran five.
@functools.cache
def _add_state_sql(may_claim_sql: str, where: str) -> str:
    return (
        "SELECT nb.id, r.seq, r.hash, r.at, (SELECT MAX(x.n) FROM notebooks_row x WHERE x.notebook_id = nb.id), "
        "(SELECT x.seq FROM notebooks_row x WHERE x.notebook_id = nb.id AND x.op = 'redact' AND x.redacts = %s "
        f"LIMIT 1), {may_claim_sql} FROM notebooks_notebook nb LEFT JOIN notebooks_row r ON r.notebook_id = nb.id "
        f"AND r.seq = (SELECT MAX(x.seq) FROM notebooks_row x WHERE x.notebook_id = nb.id) WHERE {where}"
    )


@functools.cache
def _vendor() -> str:
    """The database's vendor, read once: each read through `connection` is a lookup in a context-local."""
    return connection.vendor


@functools.cache
def _native(sql: str, vendor: str) -> str:
    """The statement in the driver's own placeholders (what Django's cursor rewrites with a regex every time)."""
    return sql.replace("%s", "?") if vendor == "sqlite" else sql


class _driver_cursor:  # noqa: N801 - used as a function: `with _driver_cursor() as cursor`
    """The driver's cursor under Django's, errors still turned into Django's: an add runs three statements, and
    Django's wrapper cost about 20 us each (placeholders rewritten, logging checks), more than SQLite's work.
    These statements are not in connection.queries under DEBUG."""

    __slots__ = ("cursor", "errors")

    def __enter__(self) -> Any:
        db = connections[DEFAULT_DB_ALIAS]  # the wrapper itself: each read through `connection` is a lookup
        db.ensure_connection()
        self.errors = db.wrap_database_errors
        with self.errors:
            self.cursor = db.connection.cursor()
        return self.cursor

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        self.cursor.close()
        self.errors.__exit__(kind, exc, tb)  # raises Django's error for the driver's (IntegrityError -> Conflict)


def _write_transaction() -> Any:
    """transaction.atomic() for one write, leaner on SQLite where the write is the outermost block.

    Django's atomic costs about 120k instructions a transaction on SQLite (its BEGIN through the cursor wrapper,
    the state it keeps for nesting): more than an add's own SQL. Outermost, there is nothing to nest: BEGIN and
    COMMIT on the driver do it in a tenth. Inside an atomic block (a test's, a caller's), in Django's
    non-autocommit mode, or on PostgreSQL, this is transaction.atomic() itself.
    """
    db = connections[DEFAULT_DB_ALIAS]
    if _vendor() != "sqlite" or db.in_atomic_block or not db.get_autocommit():
        return transaction.atomic()
    return _SQLiteTransaction(db)


logger = logging.getLogger(__name__)
_driver_transaction = threading.local()  # .after: what runs once the open _SQLiteTransaction commits


def _on_commit(run: Callable[[], None]) -> None:
    """`run` once the write's transaction commits: Django's on_commit, or after the driver's COMMIT."""
    after = getattr(_driver_transaction, "after", None)
    if after is not None:
        after.append(run)
    else:
        transaction.on_commit(run, robust=True)  # an error is logged: the write itself is committed


class _SQLiteTransaction:
    """One SQLite transaction on the driver, in the transaction mode the settings give (IMMEDIATE: the write lock
    is taken at BEGIN, so concurrent writers wait instead of failing to upgrade). Used by _write_transaction."""

    __slots__ = ("db",)

    def __init__(self, db: Any) -> None:
        self.db = db

    def __enter__(self) -> None:
        db = self.db
        db.ensure_connection()  # a fresh process may not have connected yet
        with db.wrap_database_errors:
            db.connection.execute(f"BEGIN {db.transaction_mode or ''}")
        _driver_transaction.after = []

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        db = self.db
        after, _driver_transaction.after = _driver_transaction.after, None
        with db.wrap_database_errors:
            if kind is None:
                try:
                    db.connection.execute("COMMIT")  # a deferred foreign key still unmet fails here
                except Exception:
                    db.connection.execute("ROLLBACK")
                    raise
            elif db.connection.in_transaction:
                db.connection.execute("ROLLBACK")
        if kind is None:
            for run in after:
                try:
                    run()
                except Exception:  # the write is committed: its caller must not see it as failed (and retry it)
                    logger.exception("after the commit of a write")


def _add_state(title: str, actor: Actor, digest: str) -> tuple[AnyNotebook, Head, int, int | None]:
    """The notebook, locked, its head and next number and the write's session, for an add of words with `digest`.

    SQLite reads it all in one statement (BEGIN IMMEDIATE already holds the write lock); PostgreSQL takes the
    notebook's lock first (locks.LOCK_BY_TITLE), then reads, so the head is read after any writer before it.
    """
    vendor = _vendor()
    guard = guards.current()
    with _driver_cursor() as cursor:
        if vendor == "postgresql":
            cursor.execute(LOCK_BY_TITLE, (title,))
            locked = cursor.fetchone()
            found = None
            if locked is not None:
                cursor.execute(_add_state_sql(guard.may_claim_sql, "nb.id = %s"), (digest, actor.name, locked[0]))
                found = cursor.fetchone()
        else:
            sql = _add_state_sql(guard.may_claim_sql, "nb.title = %s")
            cursor.execute(_native(sql, vendor), (digest, actor.name, title))
            found = cursor.fetchone()
    if found is None:
        # No notebook of that title: every write's refusals, in their order (a session held elsewhere, NotFound).
        claim = guards.current().claim(title=title, actor=actor)
        nb = _lock(title)  # raises NotFound, unless it was created meanwhile (then the general path goes on)
        top, n = _tip(nb)
        gone = _redacted_digests(nb, [digest])
        if gone:
            _refuse_redacted(nb, gone[digest])
        return nb, top, n, claim
    pk, seq, hash_, at, top_n, redact_seq, may_claim = found
    nb = NotebookRef(pk, title)
    claim = guards.current().claim(title=title, actor=actor) if may_claim else None
    if redact_seq is not None:
        _refuse_redacted(nb, redact_seq)
    top = Head(seq, hash_, at) if seq is not None else Head(0, rowformat.GENESIS, 0.0)
    return nb, top, (top_n or 0) + 1, claim


def _refuse_redacted(notebook: AnyNotebook, redact_seq: int) -> None:
    raise Invalid(
        f"Those words were redacted from notebook {notebook.title!r} (redact row seq {redact_seq}); "
        "they cannot be written into it again."
    )


ROW_COLUMNS = (
    "notebook_id", "seq", "op", "n", "digest", "source", "by", "why", "how", "into", "at", "was_at", "was_by",
    "prev_hash", "hash", "session_id", "redacts",
)  # fmt: skip


class RowWritten(NamedTuple):
    """A row as _append wrote it (what its callers read back); a tuple, made fast for 100k-row imports."""

    seq: int
    op: str
    n: int
    by: str
    at: float
    prev_hash: str
    hash: str
    source: str
    body: str | None  # the words of an add or edit (None when redacted, and for other ops)


WORDS_COLUMNS = ("notebook_id", "digest", "body")
COPY_FROM = 200  # rows; PostgreSQL's COPY beats a pipelined INSERT per row from about here


def _copy_sql(table: str, columns: tuple[str, ...]) -> str:
    return f"COPY {table} ({', '.join(map(connection.ops.quote_name, columns))}) FROM STDIN"


# The row columns' types, for a binary COPY (psycopg writes each value as the server keeps it: no text to format
# here nor to parse there).
ROW_TYPES = (
    "int8", "int8", "varchar", "int4", "varchar", "varchar", "varchar", "text", "varchar", "int4", "float8", "float8",
    "varchar", "varchar", "varchar", "int8", "varchar",
)  # fmt: skip


def _copy(cursor: Any, notebook: AnyNotebook, values: Iterable[tuple[Any, ...]]) -> None:
    """PostgreSQL's COPY of rows, for imports: about 10x a row-by-row INSERT. `values` may be a generator: rows go
    to the server as they are made, and it files them meanwhile (on the other core)."""
    raw = cursor.cursor  # psycopg's own cursor under Django's wrapper
    with raw.copy(_copy_sql("notebooks_row", ROW_COLUMNS) + " (FORMAT BINARY)") as copy:
        copy.set_types(ROW_TYPES)
        write = copy.write_row
        for row in values:
            write(row)


def _copy_words(cursor: Any, notebook: AnyNotebook, words: list[tuple[Any, ...]]) -> None:
    """COPY of words, skipping those kept already by hand (COPY has no ON CONFLICT); the notebook is locked, so
    no other writer adds them meanwhile."""
    # Every digest the notebook keeps, filtered here: `digest = ANY(60k digests)` was planned as a scan
    # comparing each kept row with the whole list (20 s for a 100k-row import).
    cursor.execute("SELECT digest FROM notebooks_words WHERE notebook_id = %s", [notebook.pk])
    kept = {digest for (digest,) in cursor.fetchall()}
    raw = cursor.cursor
    with raw.copy(_copy_sql("notebooks_words", WORDS_COLUMNS)) as copy:
        write = copy.write_row
        for row in words:
            if row[1] not in kept:
                write(row)


def _redacted_digests(notebook: AnyNotebook, digests: Iterable[str]) -> dict[str, int]:
    """Which of these digests a redact row of the notebook names, with that row's seq."""
    found: dict[str, int] = {}
    wanted = sorted(set(digests))
    with connection.cursor() as cursor:
        for i in range(0, len(wanted), 500):
            chunk = wanted[i : i + 500]
            cursor.execute(
                "SELECT redacts, seq FROM notebooks_row WHERE notebook_id = %s AND op = 'redact' "
                f"AND redacts IN ({', '.join(['%s'] * len(chunk))})",
                [notebook.pk, *chunk],
            )
            found.update(cursor.fetchall())
    return found


def _insert_sql(table: str, columns: tuple[str, ...], suffix: str = "") -> str:
    return _native_insert_sql(table, columns, suffix, _vendor())


@functools.cache
def _native_insert_sql(table: str, columns: tuple[str, ...], suffix: str, vendor: str) -> str:
    """In the driver's placeholders (_driver_cursor)."""
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    return _native(f"INSERT INTO {table} ({names}) VALUES ({', '.join(['%s'] * len(columns))}){suffix}", vendor)


def _append(
    notebook: AnyNotebook,
    new_rows: Iterable[dict[str, Any]],
    top: Head | None = None,
    *,
    redacted: Container[str] = frozenset(),
    redactions_checked: bool = False,
) -> list[RowWritten]:
    """Chain and insert rows after the head. Rows without `at` are stamped now (never before the head).

    A row may carry `digest` without `words` (words redacted before export); words whose digest is in `redacted`
    are never stored. `new_rows` may be a generator (an import's rows as they are read and checked): each row is
    inserted as it comes, and `redacted` is read after the last, with the words. A refusal raised by the generator
    or here leaves the caller's transaction to roll back what went in. `redactions_checked`: the caller has
    already refused words a redact row names (an add).

    One prepared INSERT run over all rows (executemany), or COPY on PostgreSQL from COPY_FROM rows: building a
    model instance per row made a 100k-row import take 20 s, most of it in the ORM.
    """
    top = top or head(notebook)
    vendor = _vendor()
    words: dict[str, str] = {}
    written: list[RowWritten] = []
    # Rows into an empty notebook (an import) are folded into its snapshots as they stream by.
    folder = snapshots.Folder(spacing=snapshots.IMPORT_SPACING) if top.seq == 0 else None
    rows = _chained(notebook, new_rows, top, words, written, vendor, folder)
    try:
        if vendor == "postgresql":
            first = list(itertools.islice(rows, COPY_FROM))
            if len(first) == COPY_FROM:
                with connection.cursor() as cursor:
                    _copy(cursor, notebook, itertools.chain(first, rows))
            elif first:
                with _driver_cursor() as cursor:
                    cursor.executemany(_insert_sql("notebooks_row", ROW_COLUMNS), first)
        else:
            with _driver_cursor() as cursor:
                cursor.executemany(_insert_sql("notebooks_row", ROW_COLUMNS), rows)
        # Words sorted by digest: the (notebook, digest) index fills in order (PostgreSQL: half the server's time).
        new_words = sorted((notebook.pk, d, b) for d, b in words.items() if d not in redacted)
        if new_words and top.seq and not redactions_checked:
            # Redacted words never come back: writing them again would undo the redaction (an empty notebook has
            # none). Rows already in are rolled back with the caller's transaction.
            gone = _redacted_digests(notebook, [d for _, d, _ in new_words])
            if gone:
                _refuse_redacted(notebook, next(iter(gone.values())))
        if new_words and vendor == "postgresql" and len(new_words) >= COPY_FROM:
            with connection.cursor() as cursor:
                _copy_words(cursor, notebook, new_words)
        elif new_words:
            with _driver_cursor() as cursor:
                cursor.executemany(_insert_sql("notebooks_words", WORDS_COLUMNS, " ON CONFLICT DO NOTHING"), new_words)
    except IntegrityError as exc:
        raise Conflict(f"Another write reached notebook {notebook.title!r} first; try again. ({exc})") from exc
    _snapshot(notebook, top.seq, written, folder)
    if len(written) <= kept.FOLD_STEP and not redacted:
        # Once committed, this process's kept view takes the rows written (its next read still checks them against
        # the log); not a big import, and not where words were redacted (a rebuild shows the redaction's mark).
        def fold_in() -> None:  # a function, not a partial: Django's robust on_commit logs its __qualname__
            kept.fold_in(notebook, top, written)

        _on_commit(fold_in)
    return written


def _chained(
    notebook: AnyNotebook,
    new_rows: Iterable[dict[str, Any]],
    top: Head,
    words: dict[str, str],
    written: list[RowWritten],
    vendor: str,
    folder: "snapshots.Folder | None" = None,
) -> Iterator[tuple[Any, ...]]:
    """Each row's column values, hashed into the chain after `top`; fills `words` and `written` (and feeds
    `folder`) as it goes."""
    now = time.time()
    seq, prev, last_at = top.seq, top.hash, top.at
    pk = notebook.pk
    # SQLite stores a NaN as NULL, and Python's sqlite3 binds a float at once where it looks for an adapter for
    # every None (about 3k instructions each; an imported row has four NULLs).
    null = math.nan if vendor == "sqlite" else None
    hash_of, worded = rowformat.hash_of, fold.WORDED
    for fields in new_rows:
        seq += 1
        get = fields.get
        body = get("words")
        # The importer hands its digest over (computed once); a redacted row has a digest and no words.
        digest = get("digest") or (rowformat.digest_of(body) if body is not None else "")
        if body is not None:
            words[digest] = body
        at = get("at")
        at = max(now, last_at) if at is None else float(at)
        op, n, by = fields["op"], fields["n"], fields["by"]
        source, why, how, into = get("source") or "", get("why") or "", get("how") or "", get("into")
        was_at, was_by, redacts = get("was_at"), get("was_by") or "", get("redacts")
        digest_hash = hash_of(prev, at, by, digest, how, into, n, op, redacts, seq, source, was_at, was_by, why)
        expect_hash = get("expect_hash")
        if expect_hash is not None and expect_hash != digest_hash:
            line_no = get("line_no")
            raise Invalid(
                f"line {line_no}: 'hash' does not match the row's content: the file was altered after export",
                line=line_no,
            )
        session_id = get("session_id")
        written.append(RowWritten(seq, op, n, by, at, prev, digest_hash, source, body if op in worded else None))
        if folder is not None:
            if op == "redact" or (digest and body is None):
                folder.words_missing = (
                    True  # words gone: the snapshots are made from the log, with the redaction's mark
                )
            folder.apply(seq, op, n, source, by, at, digest_hash, body, False)
        yield (
            pk, seq, op, n, digest, source, by, why, how, null if into is None else into, at,
            null if was_at is None else was_at, was_by, prev, digest_hash,
            null if session_id is None else session_id, null if redacts is None else redacts,
        )  # fmt: skip
        prev, last_at = digest_hash, at


def _snapshot(notebook: Notebook, before: int, written: list[RowWritten], folder: "snapshots.Folder | None") -> None:
    """Make the snapshots the rows just written reached (snapshots.py), in the same transaction."""
    after = written[-1].seq if written else before
    if after // snapshots.EVERY == before // snapshots.EVERY:
        return
    if folder is not None and not folder.words_missing:
        folder.finish()
        snapshots.store(notebook.pk, folder.made, redactions=0)  # an import, folded from memory as it streamed
    else:
        snapshots.catch_up(notebook.pk, after)


# ----- the operations ----------------------------------------------------------------------------


def create_notebook(*, title: str, by: str) -> Notebook:
    if not isinstance(title, str):
        raise Invalid("A title is text.")
    if title != title.rstrip():
        # The pattern's `$` lets a trailing newline through; "zelda " would be a look-alike of "zelda".
        raise Invalid(f"{title!r} is not a valid title: it ends in white space.")
    try:
        title_validator(title)
    except ValidationError as exc:
        raise Invalid(f"{title!r} is not a valid title. {exc.messages[0]}") from None
    check_name(by)
    try:
        with transaction.atomic():
            guards.current().refuse_new_notebook(title=title, by=by)
            if Notebook.objects.filter(title=title).exists():
                raise Conflict(f"A notebook titled {title!r} already exists.")
            return Notebook.objects.create(title=title, created_by=by)
    except IntegrityError:
        # A concurrent create of the same title won the race.
        raise Conflict(f"A notebook titled {title!r} already exists.") from None


def add(*, notebook: str, text: str, source: str, by: "Actor | str", why: str) -> Written:
    """A new line, with the next number. Returns its number and seq."""
    actor = as_actor(by)
    check_words(text)
    check_reason(why)
    check_source(source)
    if not actor.editor and source not in AGENT_SOURCES:
        raise Forbidden(f"{actor.name} is an agent and may add only seen or guessed lines, not {source}.")
    digest = rowformat.digest_of(text)
    with _write_transaction():
        nb, top, n, claim = _add_state(notebook, actor, digest)
        fields = {"op": "add", "n": n, "words": text, "digest": digest, "source": source, "by": actor.name, "why": why}
        fields["session_id"] = claim
        (row,) = _append(nb, [fields], top, redactions_checked=True)
    return Written(n=n, seqs=(row.seq,))


def edit(*, notebook: str, n: int, to: str, by: "Actor | str", why: str, expected: int | None = None) -> Written:
    """New words for line n, under the same number. The human editor's edit makes it a dad_correction."""
    actor = as_actor(by)
    check_words(to)
    check_reason(why)
    with transaction.atomic():
        claim = _session_fields(notebook, actor)
        nb = _lock(notebook)
        line = _live_line(nb, n)
        _may_change(actor, line, "edit")
        if expected is not None and expected != line.last_seq:
            raise Conflict(
                f"Line #{n} changed since you read it (you saw seq {expected}, it is now at seq {line.last_seq}).",
                current=line.words,
                current_seq=line.last_seq,
            )
        if to == line.words:
            raise Invalid(f"Line #{n} already says exactly that; nothing to change.")
        source = Source.DAD_CORRECTION if actor.editor else line.source
        fields = {"op": "edit", "n": n, "words": to, "source": source, "by": actor.name, "why": why, **claim}
        (row,) = _append(nb, [fields])
    return Written(n=n, seqs=(row.seq,))


def retire(
    *, notebook: str, n: int, by: "Actor | str", why: str, into: int | None = None, expected: int | None = None
) -> Written:
    """Take line n out of view with a strike row; `into` names the line that now says it."""
    actor = as_actor(by)
    check_reason(why)
    with transaction.atomic():
        claim = _session_fields(notebook, actor)
        nb = _lock(notebook)
        line = _live_line(nb, n)
        _may_change(actor, line, "retire")
        if expected is not None and expected != line.last_seq:
            raise Conflict(
                f"Line #{n} changed since you read it (you saw seq {expected}, it is now at seq {line.last_seq}).",
                current=line.words,
                current_seq=line.last_seq,
            )
        if into is not None:
            check_number(into, "'into' line number")
            if into == n:
                raise Invalid(f"Line #{n} cannot be retired into itself.")
            target = _line(nb, into)
            if not target.live:
                raise Invalid(f"Line #{into} is retired, so it cannot say what line #{n} said.")
        fields = {"op": "strike", "n": n, "how": "retired", "into": into, "by": actor.name, "why": why, **claim}
        (row,) = _append(nb, [fields])
    return Written(n=n, seqs=(row.seq,))


def retire_many(*, notebook: str, numbers: list[int], by: "Actor | str", why: str) -> Written:
    """Retire several lines for one reason, all or nothing: if one may not be retired, nothing is written."""
    actor = as_actor(by)
    check_reason(why)
    if not isinstance(numbers, list | tuple) or not numbers:
        raise Invalid("Select at least one line to retire.")
    numbers = [check_number(x) for x in numbers]
    if len(set(numbers)) != len(numbers):
        raise Invalid("Name each line once.")
    with transaction.atomic():
        claim = _session_fields(notebook, actor)
        nb = _lock(notebook)
        for line in [_live_line(nb, x) for x in numbers]:
            _may_change(actor, line, "retire")
        fields = [{"op": "strike", "n": x, "how": "retired", "by": actor.name, "why": why, **claim} for x in numbers]
        written = _append(nb, fields)
    return Written(n=numbers[0], seqs=tuple(r.seq for r in written))


def merge(
    *, notebook: str, numbers: list[int], text: str, by: "Actor | str", why: str, source: str | None = None
) -> Written:
    """One new line saying what several said; each old line is struck, merged into it. All or nothing."""
    actor = as_actor(by)
    check_words(text)
    check_reason(why)
    if not isinstance(numbers, list | tuple) or len(set(numbers)) < 2:
        raise Invalid("A merge needs at least two different lines.")
    numbers = [check_number(x) for x in numbers]
    if len(set(numbers)) != len(numbers):
        raise Invalid("A merge names each line once.")
    with transaction.atomic():
        claim = _session_fields(notebook, actor)
        nb = _lock(notebook)
        lines = [_live_line(nb, x) for x in numbers]
        for line in lines:
            _may_change(actor, line, "merge")
        if source is None:
            if actor.editor:
                source = Source.DAD if all(x.source == Source.DAD for x in lines) else Source.DAD_CORRECTION
            else:
                source = Source.SEEN if any(x.source == Source.SEEN for x in lines) else Source.GUESSED
        check_source(source)
        if not actor.editor and source not in AGENT_SOURCES:
            raise Forbidden(f"{actor.name} is an agent and may write only seen or guessed lines, not {source}.")
        new = _next_number(nb)
        fields = [{"op": "add", "n": new, "words": text, "source": source, "by": actor.name, "why": why, **claim}]
        fields += [
            {"op": "strike", "n": x, "how": "merged", "into": new, "by": actor.name, "why": why, **claim}
            for x in numbers
        ]
        written = _append(nb, fields)
    return Written(n=new, seqs=tuple(r.seq for r in written))


def redact(
    *,
    notebook: str,
    n: int,
    by: "Actor | str",
    why: str,
    seq: int | None = None,
    digest: str | None = None,
) -> Written:
    """Remove words from the database for good: the human editor only, with a reason.

    The target is the row `seq` of line n, or the words with `digest`, or else the line's current words. A redact
    row naming the words' digest is appended and the words are deleted in the same transaction; every row that
    carried them (same notebook, same words) then reads "[redacted: why]", and the hash chain still verifies
    because rows hash only the digest.
    """
    actor = as_actor(by)
    if not actor.editor:
        raise Forbidden(f"{actor.name} may not redact: only the human editor may.")
    check_number(n)
    check_reason(why)
    if seq is not None and digest is not None:
        raise Invalid("Name the words to redact by seq or by digest, not both.")
    with transaction.atomic():
        claim = _session_fields(notebook, actor)
        nb = _lock(notebook)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT seq, op, digest FROM notebooks_row WHERE notebook_id = %s AND n = %s ORDER BY seq",
                [nb.pk, n],
            )
            found = cursor.fetchall()
        if not found:
            raise NotFound(f"Notebook {nb.title!r} has no line #{n}.")
        worded = [(s, op, d) for s, op, d in found if d]
        if seq is not None:
            match = [d for s, _op, d in worded if s == seq]
            if not match:
                raise Invalid(f"Seq {seq} is not a row of line #{n} that carries words.")
            target = match[0]
        elif digest is not None:
            if digest not in {d for _s, _op, d in worded}:
                raise Invalid(f"No row of line #{n} carries words with digest {digest!r}.")
            target = digest
        else:
            current = [d for _s, op, d in worded if op in ("add", "edit")]
            if not current:
                raise Invalid(f"Line #{n} has no words of its own to redact; name an adopted row by its seq.")
            target = current[-1]
        already = _redacted_digests(nb, [target])
        if already:
            raise Conflict(f"Those words of line #{n} were already redacted (seq {already[target]}).")
        (row,) = _append(nb, [{"op": "redact", "n": n, "redacts": target, "by": actor.name, "why": why, **claim}])
        with connection.cursor() as cursor:
            # The words' DELETE trigger allows exactly this: words named by a redact row of their notebook.
            cursor.execute("DELETE FROM notebooks_words WHERE notebook_id = %s AND digest = %s", [nb.pk, target])
        snapshots.rebuild(nb.pk)  # they held the words too: made again, with the redaction's mark
    return Written(n=n, seqs=(row.seq,))


def rebuild_snapshots(*, notebook: str) -> int:
    """Make the notebook's view snapshots again from its log (snapshots.py); returns how many."""
    with transaction.atomic():
        nb = _lock(notebook)
        return snapshots.rebuild(nb.pk)


@dataclass(frozen=True)
class Imported:
    notebook: Notebook
    rows: int
    adopted: int


def import_notebook(
    *,
    title: str,
    lines: Iterable[str],
    by: str,
    adopt_from: Iterable[str] | None = None,
    adopt_name: str = "backup",
    progress: Callable[[int], None] | None = None,
) -> Imported:
    """A new notebook from JSON Lines, all or nothing. `adopt_from` recovers a hand rewrite's lost words.

    The rows are written as they are read and checked, inside the transaction (PostgreSQL files them on the
    other core meanwhile): the notebook is taken first, and a refusal of any line rolls every row back.
    """
    limits = {
        "max_words": settings.NOTEBOOK_MAX_WORDS,
        "max_reason": settings.NOTEBOOK_MAX_REASON,
        "max_rows": settings.NOTEBOOK_MAX_IMPORT_ROWS,
    }
    check_name(by)
    editors = _editor_names()
    is_editor = lambda name: name == "dad" or name in editors  # noqa: E731 - the seed's rule, plus recorded editors
    with transaction.atomic():
        nb = Notebook.objects.filter(title=title).first() or create_notebook(title=title, by=by)
        nb = lock_notebook(nb)
        top = head(nb)
        if top.seq:
            raise Conflict(f"Notebook {title!r} already has {top.seq} rows; import starts a new notebook.")
        fold = importing.Fold()
        rows = importing.checked_rows(
            lines, fold=fold, is_editor=is_editor, progress=progress, keep_texts=False, **limits
        )
        written = _append(nb, rows, top, redacted=fold.redacted)
        adopted: list[dict[str, Any]] = []
        if adopt_from is not None:
            try:
                _, backup = importing.parse(adopt_from, is_editor=is_editor, **limits)
            except Invalid as exc:
                raise Invalid(f"{adopt_name}: {exc.message}") from None
            adopted = importing.adoptions(fold, backup, backup_name=adopt_name)
            for row in adopted:
                row["by"] = by
            if adopted:
                last = written[-1] if written else None
                _append(nb, adopted, Head(last.seq, last.hash, last.at) if last else top, redacted=fold.redacted)
        if not written and not adopted:
            raise Invalid("The file holds no rows.")
        if connection.vendor == "postgresql":
            # A big new notebook is unknown to the planner until autovacuum next analyzes the table; planned
            # as "one row", the view's joins turn quadratic (seen: 300 ms for 1,000 rows instead of 3 ms).
            transaction.on_commit(_analyze)
    return Imported(notebook=nb, rows=len(written), adopted=len(adopted))


# The columns reads filter, join or group on: statistics of the hashes, reasons and words (long text, sorted
# by ANALYZE) took most of its time and steer no plan. Any ANALYZE updates the tables' sizes.
ANALYZED = (
    'notebooks_row (notebook_id, seq, n, op, at, "by", digest, redacts, session_id), '
    "notebooks_words (notebook_id, digest)"
)


def _analyze() -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {ANALYZED}")


def _editor_names() -> set[str]:
    from django.contrib.auth import get_user_model
    from django.db.models import Q

    users = get_user_model().objects.filter(is_active=True)
    editors = users.filter(
        Q(is_superuser=True)
        | Q(user_permissions__codename="edit_any_line")
        | Q(groups__permissions__codename="edit_any_line")
    )
    return set(editors.values_list("username", flat=True))


# ----- the vault ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Appended:
    notebook: Notebook
    created: bool
    seqs: tuple[int, ...]
    by: tuple[str, ...]  # each row's actor, in order


def append_rows(*, notebook: str, lines: Iterable[str], by_default: str, first_line: int = 1) -> Appended:
    """Rows an outside writer appended to a notebook's file, continuing the log from its head. All or nothing.

    Each row is checked as an import checks it, against the notebook as the database holds it, and keeps its
    `by` (rows without one are by `by_default`). An agent's row may write and change only seen or guessed
    lines, as through every other door. A refusal names the line of the file (`first_line` is the file's
    line number of the first line given). A title with no notebook yet starts one.
    """
    try:
        title_validator(notebook)
    except ValidationError as exc:
        raise Invalid(f"{notebook!r} is not a valid title. {exc.messages[0]}") from None
    editors = _editor_names()
    is_editor = lambda name: name == "dad" or name in editors  # noqa: E731 - the same rule as import
    lines = list(lines)
    with transaction.atomic():
        nb = Notebook.objects.filter(title=notebook).first()
        created = nb is None
        if created:
            nb = create_notebook(title=notebook, by=by_default)
        nb = lock_notebook(nb)
        top = head(nb)
        fold = fold_state(nb)
        sources = {n: line.source for n, line in fold.lines.items()}
        rows, after = importing.parse(
            lines,
            fold=fold,
            default_by=by_default,
            is_editor=is_editor,
            max_words=settings.NOTEBOOK_MAX_WORDS,
            max_reason=settings.NOTEBOOK_MAX_REASON,
            max_rows=settings.NOTEBOOK_MAX_IMPORT_ROWS,
            start=first_line,
        )
        if not rows:
            raise Invalid("No rows to append.")
        claims: dict[str, int | None] = {}
        for fields in rows:
            _outside_row_allowed(fields, sources, is_editor)
            by = fields["by"]
            if by not in claims:
                try:  # the same session rules as every other write: a claimed notebook, a holder elsewhere
                    claims[by] = guards.current().claim(title=notebook, actor=Actor(name=by, editor=is_editor(by)))
                except Conflict as exc:
                    raise Conflict(f"line {fields['line_no']}: {exc.message}") from None
            fields["session_id"] = claims[by]
        written = _append(nb, rows, top, redacted=frozenset(after.redacted))
    return Appended(notebook=nb, created=created, seqs=tuple(r.seq for r in written), by=tuple(r.by for r in written))


def _outside_row_allowed(fields: dict[str, Any], sources: dict[int, str], is_editor: Callable[[str], bool]) -> None:
    op, n, by = fields["op"], fields["n"], fields["by"]
    if not is_editor(by):
        agent = f"line {fields['line_no']}: {by} is an agent and may"
        if op in ("edit", "strike") and sources.get(n) not in AGENT_SOURCES:
            verb = "edit" if op == "edit" else "retire"
            raise Forbidden(f"{agent} not {verb} line #{n}, which is Dad's ({sources.get(n)})")
        if op in ("add", "edit") and fields["source"] not in AGENT_SOURCES:
            raise Forbidden(f"{agent} write only seen or guessed lines, not {fields['source']}")
    if op in ("add", "edit"):
        sources[n] = fields["source"]


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
