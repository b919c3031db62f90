"""The watcher: a sweep every few seconds until stopped; a failed sweep is reported and the next one runs. One
watcher sweeps a vault at a time (a flock in its .git): two would be safe, but each would commit the other's drift;
a second stands by and takes over within one interval when the first stops."""

import fcntl
import itertools
import threading
from collections.abc import Callable

from django.db import DatabaseError, close_old_connections, connection

from notebooks.log.rules.errors import NotebookError

from .mirror import SweepResult, Vault

WATCHER_LOCK = "notebooks-vault-watcher.lock"


def watch(
    *,
    vault: Vault,
    interval: float,
    sweeps: int | None,
    stop: threading.Event,
    on_sweep: Callable[[SweepResult], None],
    on_error: Callable[[Exception], None],
    on_standby: Callable[[], None],
    on_lead: Callable[[], None],
) -> int:
    """Sweeps until `stop` (or `sweeps`) once this process holds the watcher lock (on_standby until then); how many."""
    vault.ensure()
    with open(vault.root / ".git" / WATCHER_LOCK, "a+b") as handle:
        for tries in itertools.count():
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if tries == 0:
                    on_standby()
                if stop.wait(max(interval, 0.1)):
                    return 0
        try:
            on_lead()
            done = 0
            while not stop.is_set() and (sweeps is None or done < sweeps):
                if not connection.in_atomic_block:
                    close_old_connections()  # a long-running process must not hold a dead connection
                try:
                    on_sweep(vault.sweep())
                except (NotebookError, OSError, DatabaseError) as exc:
                    on_error(exc)
                done += 1
                if sweeps is None or done < sweeps:
                    stop.wait(interval)
            return done
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
