"""How many notebooks one actor may create through the API and MCP per window, counted from the notebooks they made
under one lock per actor, so parallel creates cannot pass it."""

import hashlib
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from notebooks.log import services
from notebooks.log.identity.roles import Actor
from notebooks.log.rules.errors import TooMany
from notebooks.models import Notebook

LOCK_CLASS = 0x6E6E  # "nn": apart from the notebooks' own advisory locks (log/store/locks.py) and sign-in's


def now() -> datetime:
    return timezone.now()


def _lock(name: str) -> None:
    """Serialise one actor's creates. SQLite's write transaction (IMMEDIATE) already does."""
    if connection.vendor == "postgresql":
        key = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16) - 2**31
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_CLASS, key])


def create_notebook(*, title: str, actor: Actor) -> Notebook:
    """services.create_notebook, refused (429, Retry-After) once the actor made their limit within the window."""
    window = settings.NOTEBOOK_NEW_NOTEBOOKS_WINDOW
    limit = settings.NOTEBOOK_NEW_NOTEBOOKS_EDITOR if actor.editor else settings.NOTEBOOK_NEW_NOTEBOOKS
    with transaction.atomic():
        _lock(actor.name)
        at = now()
        made = Notebook.objects.filter(created_by=actor.name, created_at__gt=at - timedelta(seconds=window))
        times = sorted(made.values_list("created_at", flat=True))
        if len(times) >= limit:
            # Free again when enough of these have left the window to bring the count under the limit.
            wait = (times[len(times) - limit] + timedelta(seconds=window) - at).total_seconds()
            raise TooMany(
                f"{actor.name!r} created {len(times)} notebooks in the last {window:g} seconds; the limit is {limit}. "
                f"Try again in {int(wait) + 1} seconds, or add to a notebook you have.",
                limit=limit,
                window=window,
            ).retrying_after(int(wait) + 1)
        return services.create_notebook(title=title, by=actor.name)
