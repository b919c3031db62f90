"""A session's events as sessions write them: the next event in order, and the drift a closing step records."""

import time
from typing import Any

from django.db.models import Max

from notebooks.log.store import session_rows
from notebooks.models import EventKind, Notebook, Session, SessionEvent


def record(
    session: Session, kind: str, *, by: str, head_seq: int, at: float | None = None, **fields: Any
) -> SessionEvent:
    top = SessionEvent.objects.filter(session=session).aggregate(top=Max("seq"))["top"] or 0
    return SessionEvent.objects.create(
        session=session, seq=top + 1, kind=kind, by=by, at=time.time() if at is None else at, head=head_seq, **fields
    )


def record_drift(s: Session, nb: Notebook, top: int, *, by: str) -> int:
    """How many rows others wrote since its base (or its lapse, which recorded those before), recorded as drift."""
    lapse = SessionEvent.objects.filter(session=s, kind=EventKind.LAPSE).first()
    since = s.base if lapse is None else lapse.head
    drift = session_rows.count_outside_sessions(nb.pk, since, top)
    if drift:
        record(
            s, EventKind.DRIFT, by=by, head_seq=top, after=since, rows=drift,
            note="rows by others while the session was open",
        )  # fmt: skip
    return drift
