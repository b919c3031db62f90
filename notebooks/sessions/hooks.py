"""What a layer above sessions (the vault) does around take, checkpoint, land and abandon, registered at start-up;
without a registration every hook does nothing. No git, subprocess or file I/O runs inside a write transaction:

    take:       with lock(): base_for_take(title); then the transaction
    checkpoint: the transaction; then after_checkpoint(session, note)
    land:       with lock(): check_land(session, rows) (raises Conflict to refuse); the transaction; land_in_git(...)
    abandon:    with lock(): the transaction; then after_abandon(session, why)

The lock comes before any database lock. A hook after the transaction cannot undo it: it must not raise for its own
failures, and leaves what it could not do for a later repair.
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
