"""What a layer above sessions (the vault) does around take, checkpoint, land and abandon, registered at start-up
(AppConfig.ready): sessions import none of it. Without a registration every hook does nothing.

The order sessions keep, so no git, subprocess or file I/O runs while a database write transaction is open:

    take:       with lock(): base = base_for_take(title); then the transaction (the session stores base)
    checkpoint: the transaction; then after_checkpoint(session, note)
    land:       with lock(): the database's gates, read; check_land(session, rows) (raises Conflict to refuse);
                then the transaction (gates read again, drift, the land event); then land_in_git(session, summary,
                the rows the land event counted)
    abandon:    with lock(): the transaction; then after_abandon(session, why)

The lock is taken before any database lock. A hook that runs after the transaction cannot undo it: it must not raise
for its own failures, and must leave what it could not do for a later repair.
"""

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from notebooks.models import Session


@dataclass(frozen=True)
class SessionHooks:
    lock: Callable[[], AbstractContextManager[object]] = nullcontext
    base_for_take: Callable[[str], str] = lambda title: ""
    check_land: Callable[[Session, Sequence[int]], None] = lambda session, rows: None
    after_checkpoint: Callable[[Session, str], object] = lambda session, note: None
    land_in_git: Callable[[Session, str, Sequence[int]], object] = lambda session, summary, rows: None
    after_abandon: Callable[[Session, str], object] = lambda session, why: None


NO_HOOKS = SessionHooks()
_hooks = NO_HOOKS


def register(hooks: SessionHooks) -> None:
    global _hooks
    _hooks = hooks


def current() -> SessionHooks:
    return _hooks
