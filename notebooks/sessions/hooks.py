"""What a layer above sessions (the vault) does around take, checkpoint, land and abandon, registered at start-up
(AppConfig.ready): sessions import none of it. Without a registration every hook does nothing.

The order sessions keep, so no git, subprocess or file I/O runs while a database write transaction is open:

    take:       with lock(): base = base_for_take(title); then the transaction (the session stores base)
    checkpoint: the transaction; then after_checkpoint(session, note)
    land:       with lock(): the database's gates, read; check_land(session, rows) (may refuse);
                then the transaction (gates read again, drift, the land event); then land_in_git(session, ...)
    abandon:    with lock(): the transaction; then after_abandon(session, why)

A hook that runs after the transaction cannot undo it: it must not raise for its own failures, and must leave
what it could not do for a later repair.
"""

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from notebooks.models import Session


@dataclass(frozen=True)
class SessionHooks:
    # Held around a take's, a land's and an abandon's own steps, taken before any database lock.
    lock: Callable[[], AbstractContextManager[object]] = nullcontext
    # The base the new session stores (its vault_base), before the take's transaction.
    base_for_take: Callable[[str], str] = lambda title: ""
    # Before the land's transaction, with the session's rows as read then: raises Conflict to refuse the land.
    check_land: Callable[[Session, Sequence[int]], None] = lambda session, rows: None
    # After the checkpoint's transaction has committed.
    after_checkpoint: Callable[[Session, str], object] = lambda session, note: None
    # After the land's transaction has committed, with the summary and the rows the land event counted.
    land_in_git: Callable[[Session, str, Sequence[int]], object] = lambda session, summary, rows: None
    # After the abandon's transaction has committed.
    after_abandon: Callable[[Session, str], object] = lambda session, why: None


NO_HOOKS = SessionHooks()
_hooks = NO_HOOKS


def register(hooks: SessionHooks) -> None:
    global _hooks
    _hooks = hooks


def current() -> SessionHooks:
    return _hooks
