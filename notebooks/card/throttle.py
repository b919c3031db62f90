"""Sign-in throttling's counts, in the database every worker shares (docs/DEPLOY.md): an attempt is counted, under
a lock on its address, before its password is checked, so parallel attempts never check more than a limit's worth."""

import hashlib
import json
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.db import DatabaseError, connection, transaction

from notebooks.models import SigninFailure

LOCK_CLASS = 0x7369  # "si": apart from the notebooks' own advisory locks (log/store/locks.py)


def key(*parts: str) -> str:
    """What a count is kept under: a digest, so any username fits the column and no address is stored in clear."""
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()  # JSON: no two lists of parts read the same


@dataclass
class Attempt:
    """A sign-in attempt as counted: the rows it holds, or the seconds left on the block that refused it."""

    rows: list[int] = field(default_factory=list)
    wait: int | None = None


def _lock(lock_key: str) -> None:
    """Serialise the attempts that share a key. SQLite's write transaction (IMMEDIATE) already does."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_CLASS, int(lock_key[:8], 16) - 2**31])


def begin(limits: list[tuple[str, int]]) -> Attempt:
    """Count an attempt under each (key, limit); the last key, the address's, is in every other: one lock covers all."""
    now = time.time()
    since = now - settings.SIGNIN_WINDOW
    _forget(since)
    with transaction.atomic():
        _lock(limits[-1][0])
        for counted, limit in limits:
            times = sorted(SigninFailure.objects.filter(key=counted, at__gt=since).values_list("at", flat=True))
            if len(times) >= limit:
                # The block ends when enough of these failures have left the window to bring the count under limit.
                return Attempt(wait=int(times[len(times) - limit] + settings.SIGNIN_WINDOW - now) + 1)
        return Attempt(rows=[SigninFailure.objects.create(key=counted, at=now).pk for counted, _ in limits])


def _forget(since: float) -> None:
    """Delete the failures that are out of every window. Counts never read them, so this may fail or wait."""
    try:
        with transaction.atomic():
            SigninFailure.objects.filter(at__lte=since).delete()
    except DatabaseError:
        pass  # another attempt deleting the same rows (a deadlock, on PostgreSQL); a later attempt deletes them


def succeeded(attempt: Attempt, clears: str) -> None:
    """A right password: this attempt was no failure, and the failures counted under `clears` are forgiven."""
    SigninFailure.objects.filter(pk__in=attempt.rows).delete()
    SigninFailure.objects.filter(key=clears).delete()


def failures(counted: str) -> int:
    return SigninFailure.objects.filter(key=counted, at__gt=time.time() - settings.SIGNIN_WINDOW).count()
