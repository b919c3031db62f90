"""When a turn last handed a notebook to an agent, so the index shows a notebook no turn ever reads (a line written
under a wrong title). One row per notebook, not the log; a process writes a notebook's at most once a minute."""

import threading
import time

from django.db import DatabaseError, connection, transaction

from notebooks.log.identity.roles import Actor
from notebooks.models import Notebook, TurnRead

EVERY = 60.0  # seconds: how stale the index's "last read" may be, and how often a process writes it
_written: dict[int, float] = {}  # notebook id -> when this process last wrote its row
_lock = threading.Lock()

UPSERT = (
    'INSERT INTO notebooks_turnread (notebook_id, at, "by") VALUES (%s, %s, %s) ON CONFLICT (notebook_id) '
    'DO UPDATE SET at = excluded.at, "by" = excluded."by" WHERE notebooks_turnread.at < excluded.at'
)


def note_turn_read(notebook: Notebook, by: "Actor | str", *, now: float | None = None) -> bool:
    """Whether it wrote that `by` read the turn; never fails the read (a database that refuses the write is ignored)."""
    at = time.time() if now is None else now
    with _lock:
        if at - _written.get(notebook.pk, float("-inf")) < EVERY:
            return False
        _written[notebook.pk] = at
    name = by.name if isinstance(by, Actor) else str(by)
    try:
        with transaction.atomic(), connection.cursor() as cursor:  # a savepoint inside a caller's transaction
            cursor.execute(UPSERT, [notebook.pk, at, name[:150]])
    except DatabaseError:
        return False
    return True


def forget() -> None:
    with _lock:
        _written.clear()


def last_reads() -> dict[int, TurnRead]:
    return {r.notebook_id: r for r in TurnRead.objects.all()}
