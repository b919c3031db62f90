"""A database that cannot take a request: its disk full, or its connection lost; how each is told from other errors."""

from django.db import InterfaceError, OperationalError

# What SQLite and PostgreSQL say when they cannot grow a file: nothing was written, the same write may work later.
STORAGE_FULL_SAYS = ("database or disk is full", "No space left on device", "could not extend file")
STORAGE_FULL = "The database's disk is full: nothing was written. Try again later."

# A backend ended under the request (pg_terminate_backend, a restart, a network cut): its commit may or may not stand.
CONNECTION_LOST_SAYS = (
    "server closed the connection unexpectedly",
    "terminating connection due to administrator command",
    "the connection is closed",
    "the connection is lost",
    "connection already closed",
    "consuming input failed",
)
CONNECTION_LOST_SQLSTATES = {"57P01", "57P02", "57P03", "08000", "08003", "08006"}
CONNECTION_LOST = (
    "The connection to the database was lost during this request: its write may or may not stand. "
    "Read the notebook before writing again, or retry with the same Idempotency-Key."
)


def storage_full(exc: BaseException) -> bool:
    """Whether a database error is its disk being full (the transaction rolled back; every entry point says so)."""
    return isinstance(exc, OperationalError) and any(s in str(exc) for s in STORAGE_FULL_SAYS)


def connection_lost(exc: BaseException) -> bool:
    """Whether a database error is its connection ending under the request, not a fault of the request."""
    if isinstance(exc, InterfaceError):
        return True
    if not isinstance(exc, OperationalError):
        return False
    return getattr(exc.__cause__, "sqlstate", None) in CONNECTION_LOST_SQLSTATES or any(
        s in str(exc) for s in CONNECTION_LOST_SAYS
    )


def unavailable(exc: BaseException) -> str | None:
    """The message of a 503 for an error that says the database could not take the request, else None."""
    if storage_full(exc):
        return STORAGE_FULL
    if connection_lost(exc):
        return CONNECTION_LOST
    return None
