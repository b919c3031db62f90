"""A database whose disk is full: how its error is told from others, and what every entry point answers."""

from django.db import OperationalError

# What SQLite and PostgreSQL say when they cannot grow a file: nothing was written, the same write may work later.
STORAGE_FULL_SAYS = ("database or disk is full", "No space left on device", "could not extend file")
STORAGE_FULL = "The database's disk is full: nothing was written. Try again later."


def storage_full(exc: BaseException) -> bool:
    """Whether a database error is its disk being full (the transaction rolled back; every entry point says so)."""
    return isinstance(exc, OperationalError) and any(s in str(exc) for s in STORAGE_FULL_SAYS)
