"""An add in one round trip to PostgreSQL: the speed trick of the write path, kept here behind try_add/remember.

An add needs the head before it can hash its row (rowformat.py hashes in Python), and PostgreSQL must read that
head after taking the notebook's lock. Done one after the other that is five round trips (lock, read, row, words,
commit) besides BEGIN. Here the process guesses the head: the row its own last add wrote, remembered per notebook.
It numbers and hashes the row on that guess and sends, in one round trip, two statements: the notebook's lock, then
a call of notebooks_add_row (a PL/pgSQL function, migration 0011), which reads the head, the next number and any
redaction of the words, and inserts the row and its words only if the row continues that head, no redaction names
the words and the session guard has nothing to say (guards.py, evaluated in the call's arguments, after the lock). The
function only stores: every rule stays in fold.py and checks.py, the hash in rowformat.py. When the guess was wrong
nothing is inserted, and the state it read (under the lock, still held) goes to the general path: a wrong guess
costs one round trip more, never a refusal, and the check on the server keeps the chain exact.

Why two statements: a statement's snapshot is taken when it starts, before a lock it waits for inside, so the
head must be read by a statement after the one that took the lock. Why a function and not one CTE: a function
keeps its statements' plans for the connection's life; planning the same CTE on every add took 0.36 ms of its
1.2 ms. Paid for by (bench/RESULTS.md, same bench, same loaded machine): one writer 38% of the bare commit rate
before, 45-68% after (25-29% before and 46-77% after on the quiet machine).
"""

import functools
import threading
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connections
from django.db.backends.base.base import BaseDatabaseWrapper

from notebooks.log import guards
from notebooks.log.append import ROW_TYPES, RowWritten, appended, chain_one
from notebooks.log.errors import Conflict, NotebookError
from notebooks.log.lines import Head
from notebooks.log.locks import LOCK_KEY_MASK, NOTEBOOK_LOCK_CLASS
from notebooks.log.roles import Actor
from notebooks.log.write_state import AnyNotebook, NotebookRef, state_of_add

AddState = tuple[AnyNotebook, Head, int, "int | None"]  # write_state.add_state's answer

# (alias, database, title) -> (notebook id, the head this process's last add wrote, the next number after it)
_guesses: dict[tuple[str, str, str], tuple[int, Head, int]] = {}
_guesses_lock = threading.Lock()
GUESSES_KEPT = 4096  # notebooks; past this the guesses start again (a missing guess costs one round trip)


def _db() -> BaseDatabaseWrapper:
    # Looked up once per call: each attribute read through django.db.connection is a lookup of its own (about a
    # microsecond; ten times that on this loaded machine).
    return connections[DEFAULT_DB_ALIAS]


def _key(db: BaseDatabaseWrapper, title: str) -> tuple[str, str, str]:
    return (db.alias, str(db.settings_dict.get("NAME")), title)


@functools.cache
def usable() -> bool:
    """PostgreSQL through psycopg's client-side binding (Django's default), which sends two statements as one.
    Read from the settings once: on SQLite an add pays nothing for this module."""
    default = settings.DATABASES[DEFAULT_DB_ALIAS]
    return "postgresql" in default["ENGINE"] and not default.get("OPTIONS", {}).get("server_side_binding")


# The function's arguments after the notebook's id and title, in its order: the row's other columns, its words
# (then the guard's verdict, SQL).
ARG_TYPES = (*ROW_TYPES[1:], "text")


@functools.cache
def _sql(may_claim_sql: str) -> str:
    # The notebook's id is the one its title names now, not the guessed one (ids are not reused, but a rolled back
    # transaction may have made a guess about a notebook that is not there).
    # The lock is the guessed notebook's; the call answers nothing if the title names another (and writes nothing).
    args = ", ".join(f"%s::{t}" for t in ARG_TYPES)
    return (
        f"SELECT pg_advisory_xact_lock({NOTEBOOK_LOCK_CLASS}, %s); "
        f"SELECT f.* FROM (SELECT %s::int8 AS id) nb, notebooks_add_row(nb.id, %s, {args}, {may_claim_sql}) f"
    )


def try_add(title: str, actor: Actor, fields: dict[str, Any]) -> "RowWritten | AddState | None":
    """The add of `fields` (an add row without its number) in one round trip, if this process knows the head.

    Returns the row written; or, when the guess was wrong, the notebook locked with its state read (as add_state
    answers, refusals raised the same way); or None when not tried (SQLite, no guess, no such notebook)."""
    if not usable():
        return None
    db = _db()
    guess = _guesses.get(_key(db, title))
    if guess is None:
        return None
    pk, top, n = guess
    try:
        values, row = chain_one(NotebookRef(pk, title), {**fields, "n": n, "session_id": None}, top)
    except NotebookError:  # refused after the guessed head (a time from the future): judged on the real one
        return None
    params = (pk & LOCK_KEY_MASK, pk, title, *values[1:], fields["words"], actor.name)
    guard = guards.current()
    try:
        with db.cursor() as cursor:
            cursor.execute(_sql(guard.may_claim_call or guard.may_claim_sql), params)
            cursor.nextset()  # past the lock's answer
            found = cursor.fetchone()
    except IntegrityError as exc:
        raise Conflict(f"Another write reached notebook {title!r} first; try again. ({exc})") from exc
    if found is None:  # no notebook of that title (any more, in this database): the general path says so
        _guesses.pop(_key(db, title), None)
        return None
    seq, hash_, at, top_n, redact_seq, may_claim, inserted = found
    if not inserted:
        return state_of_add((pk, seq, hash_, at, top_n, redact_seq, may_claim), title, actor, fields["digest"])
    nb = NotebookRef(pk, title)
    appended(nb, top, [row], fold=True)
    _remember(_key(db, title), nb, row)
    return row


def remember(title: str, notebook: AnyNotebook, row: RowWritten) -> None:
    """The head an add just wrote, to guess from at the next add of this process (PostgreSQL only). Remembered
    before the commit: an add after it in the same transaction continues from it, and if it is rolled back the
    next guess is simply wrong."""
    if usable():
        _remember(_key(_db(), title), notebook, row)


def _remember(key: tuple[str, str, str], notebook: AnyNotebook, row: RowWritten) -> None:
    with _guesses_lock:
        if len(_guesses) >= GUESSES_KEPT:
            _guesses.clear()
        _guesses[key] = (notebook.pk, Head(row.seq, row.hash, row.at), row.n + 1)


def forget(title: str | None = None) -> None:
    """Drop the guess for one notebook, or every guess."""
    with _guesses_lock:
        if title is None:
            _guesses.clear()
        else:
            _guesses.pop(_key(_db(), title), None)
