"""Work a caller above joins to a write's own transaction: a session's take, checkpoint, land and abandon run git
around theirs, so no caller may wrap them in an outer one. A caller that must store something with the rows (an
idempotency key and its answer) sets it with `joining`; the service calls `join(result)` last inside its
transaction, which rolls back with the rows if the work raises.
"""

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
