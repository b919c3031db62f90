"""The watcher: a sweep every few seconds until stopped. A failed sweep is reported and the next one runs."""

import threading
from collections.abc import Callable

from django.db import DatabaseError, close_old_connections, connection

from notebooks.log.errors import NotebookError

from .mirror import SweepResult, Vault


def watch(
    *,
    vault: Vault | None = None,
    interval: float = 2.0,
    sweeps: int | None = None,
    stop: threading.Event | None = None,
    on_sweep: Callable[[SweepResult], None] = lambda result: None,
    on_error: Callable[[Exception], None] = lambda exc: None,
) -> int:
    """Sweep until `stop` is set (or `sweeps` have run). Returns how many sweeps ran."""
    v = vault or Vault()
    stop = stop or threading.Event()
    done = 0
    while not stop.is_set() and (sweeps is None or done < sweeps):
        if not connection.in_atomic_block:
            close_old_connections()  # a long-running process must not hold a dead connection
        try:
            on_sweep(v.sweep())
        except (NotebookError, OSError, DatabaseError) as exc:
            on_error(exc)
        done += 1
        if sweeps is None or done < sweeps:
            stop.wait(interval)
    return done
