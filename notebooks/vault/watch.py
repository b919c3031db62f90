"""The watcher: a sweep every few seconds until stopped; a failed sweep is reported and the next one runs. One
watcher sweeps a vault at a time (a flock in its .git): two would be safe, but each would commit the other's drift;
a second stands by and takes over within one interval when the first stops."""

import fcntl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import DatabaseError, close_old_connections, connection

from notebooks.log.rules.errors import NotebookError

from .mirror import SweepResult, Vault

WATCHER_LOCK = "notebooks-vault-watcher.lock"


@contextmanager
def watcher_lock(vault: Vault, stop: threading.Event, interval: float, on_wait: Callable[[], None]) -> Iterator[bool]:
    """Yields True once this process holds the vault's watcher lock, or False if `stop` was set while waiting."""
    vault.ensure()
    with open(vault.root / ".git" / WATCHER_LOCK, "a+b") as handle:
        waited = False
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not waited:
                    on_wait()
                    waited = True
                if stop.wait(max(interval, 0.1)):
                    yield False
                    return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def watch(
    *,
    vault: Vault | None = None,
    interval: float = 2.0,
    sweeps: int | None = None,
    stop: threading.Event | None = None,
    on_sweep: Callable[[SweepResult], None] = lambda result: None,
    on_error: Callable[[Exception], None] = lambda exc: None,
    on_standby: Callable[[], None] = lambda: None,
    on_lead: Callable[[], None] = lambda: None,
) -> int:
    """Sweep until `stop` is set (or `sweeps` have run), once no other watcher sweeps this vault. Returns how many
    sweeps ran. `on_standby` is called when another watcher holds the vault, `on_lead` when this one takes it."""
    v = vault or Vault()
    stop = stop or threading.Event()
    done = 0
    with watcher_lock(v, stop, interval, on_standby) as held:
        if not held:
            return 0
        on_lead()
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
