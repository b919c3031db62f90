"""Rules a layer above sets on every write, registered at start-up (AppConfig.ready): the core imports none of them.

Sessions register one guard: a write belongs to its actor's open session, a write under another title while one is
open is refused, and so is another agent's write to a claimed notebook. Without a registered guard every write is
allowed and belongs to no session.
"""

from collections.abc import Callable
from dataclasses import dataclass

from notebooks.log.roles import Actor


def _no_claim(*, title: str, actor: Actor) -> int | None:
    return None


def _no_refusal(*, title: str, by: str) -> None:
    return None


@dataclass(frozen=True)
class WriteGuard:
    # The session a write by `actor` under `title` belongs to, or None; raises Conflict to refuse the write.
    claim: Callable[..., int | None] = _no_claim
    # Raises Conflict when `by` may not start a notebook titled `title`.
    refuse_new_notebook: Callable[..., None] = _no_refusal
    # SQL true when `claim` has anything to say about a write to the notebook aliased `nb` by the actor named by its
    # one parameter: an add reads it in the statement that reads its head, and calls `claim` only then.
    may_claim_sql: str = "(%s IS NULL)"  # an actor's name is never NULL: nothing to say
    # The same on PostgreSQL for an add in one round trip (one_trip.py), if it has a form whose plan the server keeps
    # (a function's call); None: may_claim_sql.
    may_claim_call: str | None = None


_guard = WriteGuard()


def register(guard: WriteGuard) -> None:
    global _guard
    _guard = guard


def current() -> WriteGuard:
    return _guard
