"""Leases: a session lapses after NOTEBOOK_SESSION_TTL seconds without a call of its holder, freeing its notebook.
A lapse is recorded lazily, when someone looks, dated when the lease ran out; a lapsed session may only be abandoned."""

import math
import time

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.db.models.functions import Coalesce

from notebooks.log.rules.checks import shown_time
from notebooks.log.rules.errors import Conflict
from notebooks.log.store.locks import lock_notebook
from notebooks.log.views.selectors import head
from notebooks.models import EventKind, Session, SessionEvent, SessionLease
from notebooks.sessions import events
from notebooks.sessions.gates import own_rows

ENDED = (EventKind.LAND, EventKind.ABANDON, EventKind.LAPSE)  # the events after which a session holds nothing
_tried: dict[str, float] = {}  # actor -> when this process last renewed (or tried to renew) its lease


class Lapsed(Conflict):
    code = "lapsed"


def now() -> float:
    """The leases' clock (tests move it)."""
    return time.time()


def ttl() -> float:
    return float(settings.NOTEBOOK_SESSION_TTL)


def renew_step() -> float:
    """A lease renewed this recently is not renewed again: one UPDATE only every few seconds."""
    return min(5.0, ttl() / 10)


def in_kinds(kinds: tuple[str, ...]) -> str:
    return "(" + ", ".join(f"'{kind}'" for kind in kinds) + ")"


def renewed_at(session: Session) -> float:
    """When the holder last called; a session taken before leases existed counts from its take."""
    try:
        return session.lease.renewed_at
    except SessionLease.DoesNotExist:
        return session.at


def lapses_at(session: Session) -> float:
    return renewed_at(session) + ttl()


def expired(renewed: float) -> bool:
    return now() >= renewed + ttl()


def retry_after(session: Session) -> int:
    """Whole seconds until the session's lease would lapse, at least 1 (the Retry-After of a refused take)."""
    return max(1, math.ceil(lapses_at(session) - now()))


def renew(session_id: int, renewed: float) -> None:
    """Renew the lease of an open session last renewed at `renewed` (not run out), unless that was just now."""
    at = now()
    if at - renewed >= renew_step() and not SessionLease.objects.filter(session_id=session_id).update(renewed_at=at):
        SessionLease.objects.create(session_id=session_id, renewed_at=at)  # a session taken before leases


RENEW_SQL = (
    "UPDATE notebooks_sessionlease SET renewed_at = %s WHERE renewed_at < %s AND renewed_at > %s AND session_id IN "
    "(SELECT s.id FROM notebooks_session s WHERE s.actor = %s AND NOT EXISTS (SELECT 1 FROM notebooks_sessionevent e "
    f"WHERE e.session_id = s.id AND e.kind IN {in_kinds(ENDED)}))"
)


def renew_calls_of(actor_name: str) -> None:
    """An API or MCP call of `actor_name` renews its open session's lease: one UPDATE, none if renewed just now."""
    at = now()
    if at - _tried.get(actor_name, -math.inf) < renew_step():
        return
    _tried[actor_name] = at
    with connection.cursor() as cursor:
        cursor.execute(RENEW_SQL, [at, at - renew_step(), at - ttl(), actor_name])


def forget() -> None:
    """Forget which actors this process renewed lately (tests: each has another database)."""
    _tried.clear()


def refusal(session_id: int, actor: str, renewed: float, verb: str) -> Lapsed:
    """What a session whose lease has run out answers when its holder would `verb` it."""
    at = renewed + ttl()
    return Lapsed(
        f"Session #{session_id} lapsed at {shown_time(at)}: no call of {actor}'s for {ttl():g} s "
        f"(NOTEBOOK_SESSION_TTL). It may not {verb}; its notebook is free again: take a new session, or abandon "
        "this one.",
        session=session_id,
        holder=actor,
        lapsed_at=at,
    )


def lapse(session: Session, *, by: str) -> bool:
    """Record the lapse of an open session whose lease has run out; False when it is not one (any more)."""
    with transaction.atomic():
        nb = lock_notebook(session.notebook)
        if SessionEvent.objects.filter(session=session, kind__in=ENDED).exists():
            return False
        fresh = Session.objects.select_related("lease").get(pk=session.pk)
        if not expired(renewed_at(fresh)):
            return False
        top = head(nb).seq
        events.record_drift(fresh, nb, top, by=by)
        note = (
            f"no call of {fresh.actor}'s for {ttl():g} s after {shown_time(renewed_at(fresh))}; the notebook is free "
            f"again (found by {by})"
        )
        events.record(
            fresh, EventKind.LAPSE, by=by, head_seq=top, at=lapses_at(fresh), note=note, rows=len(own_rows(fresh))
        )
    return True


def lapse_due(*, by: str, notebook_id: int | None = None, actor: str | None = None) -> list[int]:
    """Record the lapse of every open session whose lease has run out (of one notebook or actor); their ids."""
    found = (
        Session.objects.select_related("notebook", "lease")
        .annotate(renewed=Coalesce("lease__renewed_at", "at"))
        .filter(renewed__lte=now() - ttl())
        .exclude(pk__in=SessionEvent.objects.filter(kind__in=ENDED).values("session_id"))
    )
    if notebook_id is not None or actor is not None:
        found = found.filter(Q(notebook_id=notebook_id) | Q(actor=actor))
    return [s.pk for s in found if expired(renewed_at(s)) and lapse(s, by=by)]
