"""An add in one message to PostgreSQL: the process guesses the head (the row its own last add wrote) and sends one
prepared call of notebooks_add_row (migration 0013), which takes the lock and inserts the row only if it continues
that head and nothing refuses it; every rule stays in fold.py and checks.py. A wrong guess inserts nothing and costs
a round trip, never a refusal (bench/NOTES.md)."""

import functools
import threading
from typing import Any

import psycopg
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from psycopg.types.numeric import Int4, Int8

from notebooks.log.identity.roles import Actor
from notebooks.log.rules import guards
from notebooks.log.rules.checks import MAX_NUMBER
from notebooks.log.rules.errors import Conflict, NotebookError
from notebooks.log.rules.lines import Head
from notebooks.log.store.append import ADD_ROW_COLUMNS, ROW_TYPES, RowWritten, chain_one, following
from notebooks.log.store.locked_reads import AnyNotebook, NotebookRef, state_of_add
from notebooks.log.store.locks import LOCK_KEY_MASK, NOTEBOOK_LOCK_CLASS

AddState = tuple[AnyNotebook, Head, int, "int | None"]  # locked_reads.add_state's answer

# (alias, database, title) -> (notebook id, the head this process's last add wrote, the next number after it)
_guesses: dict[tuple[str, str, str], tuple[int, Head, int]] = {}
_guesses_lock = threading.Lock()
GUESSES_KEPT = 4096  # notebooks; past this the guesses start again (a missing guess costs one round trip)

# The lock's two keys, the notebook's id and title, the row's other columns, its words, whether to ask the guard,
# the words' salt and their plain digest (migration 0023).
ARG_TYPES = ("int4", "int4", "int8", "varchar", *ROW_TYPES[1:ADD_ROW_COLUMNS], "text", "bool", "varchar", "varchar")
CALL = f"SELECT * FROM notebooks_add_row({', '.join(f'%s::{t}' for t in ARG_TYPES)})"
# Integers sent with the type they are declared with, whatever their size: one prepared statement, not one per size.
_WRAP = tuple({"int4": Int4, "int8": Int8}.get(t) for t in ARG_TYPES)


class _PreparedCursor(psycopg.Cursor):
    """Binds on the server and prepares once per connection, unless PG_PREPARE=0 set prepare_threshold to None."""

    def execute(self, query: Any, params: Any = None, *, prepare: bool | None = None, **kwargs: Any) -> Any:
        return super().execute(query, params, prepare=True, **kwargs)

    def _send_query_prepared(self, name: bytes, pgq: Any, *, binary: bool | None = None) -> None:
        self._query = pgq  # Django's query log (DEBUG, tests) reads it; psycopg keeps it only for unprepared statements
        super()._send_query_prepared(name, pgq, binary=binary)


def _db() -> BaseDatabaseWrapper:
    # Looked up once per call: each attribute read through django.db.connection is a lookup of its own.
    return connections[DEFAULT_DB_ALIAS]


def _key(db: BaseDatabaseWrapper, title: str) -> tuple[str, str, str]:
    return (db.alias, str(db.settings_dict.get("NAME")), title)


@functools.cache
def usable() -> bool:
    """PostgreSQL, read from the settings once: on SQLite an add pays nothing for this module."""
    return "postgresql" in connections.settings[DEFAULT_DB_ALIAS]["ENGINE"]


def _ask_guard(guard: guards.WriteGuard) -> bool | None:
    """Whether the call asks the guard; None when it cannot (the guard has no function PostgreSQL can call)."""
    if guard.may_claim_function:
        return True
    return False if guard.may_claim_sql == guards.NOTHING_TO_SAY else None


# bench/NOTES.md: one writer 802 -> 1,311 adds/s (33% -> 51% of bare commits); tests/log/test_fast_path_agrees.py
def try_add(title: str, actor: Actor, fields: dict[str, Any]) -> "RowWritten | AddState | None":
    """The add of `fields` (without its number) in one statement: the row written; inside a transaction when the guess
    was wrong, the locked notebook's state (as add_state answers it); or None for the general path."""
    if not usable():
        return None
    db = _db()
    key = _key(db, title)
    guess = _guesses.get(key)
    ask = _ask_guard(guards.current())
    if guess is None or ask is None:
        return None
    pk, top, n = guess
    if n > MAX_NUMBER:
        return None  # no number left: the general path refuses it (decision.number_after)
    alone = db.get_autocommit()  # no transaction open: the call is its own
    if alone and following().writes_after(top.seq, top.seq + 1):
        return None  # a snapshot is made in the row's transaction (views/caches.py): the general path opens one
    nb = NotebookRef(pk, title)
    try:
        values, row = chain_one(nb, {**fields, "n": n, "session_id": None}, top)
    except NotebookError:  # refused after the guessed head (a time from the future): judged on the real one
        return None
    args = (NOTEBOOK_LOCK_CLASS, pk & LOCK_KEY_MASK, pk, title, *values[1:ADD_ROW_COLUMNS], fields["words"], ask)
    found = _call(db, title, (*args, fields["salt"], fields["plain"]))
    if found is None:  # no notebook of that title (any more, in this database): the general path says so
        _guesses.pop(key, None)
        return None
    seq, hash_, at, top_n, redact_seq, may_claim, inserted = found
    if inserted:
        following().appended(nb, top, [row], fold=True, words_missing=False)
        _remember(key, pk, Head(row.seq, row.hash, row.at), row.n + 1)
        return row
    if alone:
        # Nothing committed and the lock gone with the call: the head it read is the next guess.
        if seq is not None:
            _remember(key, pk, Head(seq, hash_, at), (top_n or 0) + 1)
        return None
    return state_of_add(
        (pk, seq, hash_, at, top_n, redact_seq, may_claim), title, actor, (fields["digest"], fields["plain"])
    )


def _call(db: BaseDatabaseWrapper, title: str, args: tuple[Any, ...]) -> tuple | None:
    params = tuple(v if w is None or v is None else w(v) for w, v in zip(_WRAP, args, strict=True))
    db.validate_no_broken_transaction()  # try_add's get_autocommit() has connected
    try:
        with db.wrap_database_errors:
            if db.queries_logged:  # DEBUG and tests: through Django's cursor, which logs it
                with db.make_debug_cursor(_PreparedCursor(db.connection)) as cursor:
                    cursor.execute(CALL, params)
                    return cursor.fetchone()
            return _cursor(db).execute(CALL, params).fetchone()
    except IntegrityError as exc:
        raise Conflict(f"Another write reached notebook {title!r} first; try again. ({exc})") from exc


def _cursor(db: BaseDatabaseWrapper) -> _PreparedCursor:
    """One cursor per connection, kept with it."""
    kept = getattr(db, "_notebooks_add_cursor", None)
    if kept is None or kept.connection is not db.connection or kept.closed:
        kept = db._notebooks_add_cursor = _PreparedCursor(db.connection)
    return kept


def remember(title: str, notebook: AnyNotebook, row: RowWritten) -> None:
    """The head an add just wrote, for the next add's guess; before the commit (a rollback makes a wrong guess)."""
    if usable():
        _remember(_key(_db(), title), notebook.pk, Head(row.seq, row.hash, row.at), row.n + 1)


def _remember(key: tuple[str, str, str], pk: int, top: Head, n: int) -> None:
    with _guesses_lock:
        if len(_guesses) >= GUESSES_KEPT:
            _guesses.clear()
        _guesses[key] = (pk, top, n)


def forget() -> None:
    with _guesses_lock:
        _guesses.clear()
