"""Rules a layer above (sessions.claims) sets on every write, registered at start-up; without one every write is
allowed and belongs to no session."""

from collections.abc import Callable
from dataclasses import dataclass

NOTHING_TO_SAY = "(%s IS NULL)"  # an actor's name is never NULL


@dataclass(frozen=True)
class WriteGuard:
    # The session a write by `actor` under `title` belongs to, or None; raises Conflict to refuse the write.
    claim: Callable[..., int | None] = lambda *, title, actor: None
    # Raises Conflict when `by` may not start a notebook titled `title`.
    refuse_new_notebook: Callable[..., None] = lambda *, title, by: None
    # SQL true when `claim` may speak on a write to the notebook aliased `nb` by the actor its one parameter names.
    may_claim_sql: str = NOTHING_TO_SAY
    # True when the SQL function notebooks_may_claim (migration 0012) says what may_claim_sql says, for fast_add.py.
    may_claim_function: bool = False


_guard = WriteGuard()


def register(guard: WriteGuard) -> None:
    global _guard
    _guard = guard


def current() -> WriteGuard:
    return _guard
