"""Work a caller joins to a write's own transaction (a session's acts run git around theirs, so none may be wrapped
in an outer one): an idempotency key stored with the rows, which roll back with it if the work raises."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

_work: ContextVar["Callable[[Any], None] | None"] = ContextVar("notebooks_joined_work", default=None)


@contextmanager
def joining(work: Callable[[Any], None]) -> Iterator[None]:
    """Within the block, the next service to call `join` runs `work(result)` inside its transaction."""
    token = _work.set(work)
    try:
        yield
    finally:
        _work.reset(token)


def join(result: Any) -> None:
    """Called by a service inside its transaction, once its rows are written: the caller's work, once."""
    work = _work.get()
    if work is not None:
        _work.set(None)  # one write per call: a service the write calls in turn joins nothing
        work(result)
