"""Which sessions are open and what they claim: the core's write guard while one is open, and its queries."""

from typing import Any

from django.db import connection
from django.db.models import Exists, OuterRef
from django.db.models.functions import Coalesce

from notebooks.log.identity.roles import Actor
from notebooks.log.rules import guards
from notebooks.log.rules.errors import Conflict, Forbidden, NotFound
from notebooks.log.views.selectors import get_notebook
from notebooks.models import EventKind, Notebook, Session, SessionEvent
from notebooks.sessions import leases, states


def open_sessions() -> Any:
    """Sessions that hold their notebook: no land, abandon or lapse event, and the lease not run out."""
    alive_after = leases.now() - leases.ttl()
    return (
        Session.objects.alias(
            ended=Exists(SessionEvent.objects.filter(session=OuterRef("pk"), kind__in=leases.ENDED)),
            renewed=Coalesce("lease__renewed_at", "at"),
        )
        .filter(ended=False, renewed__gt=alive_after)
        .select_related("notebook", "lease")
    )


# One statement for the hot read paths, before the full check (open_session_of) that only a holder pays for.
MAY_HOLD_SQL = (
    "SELECT 1 FROM notebooks_session s JOIN notebooks_notebook nb ON nb.id = s.notebook_id "
    "WHERE nb.title = %s AND s.actor = %s AND NOT EXISTS (SELECT 1 FROM notebooks_sessionevent e "
    "WHERE e.session_id = s.id AND e.kind IN ('land', 'abandon', 'lapse')) LIMIT 1"
)


def may_hold(actor_name: str, title: str) -> bool:
    """False when the actor holds no session on the notebook titled `title`; True when she may (ask open_session_of)."""
    with connection.cursor() as cursor:
        cursor.execute(MAY_HOLD_SQL, [title, actor_name])
        return cursor.fetchone() is not None


def open_session_of(actor_name: str) -> Session | None:
    return open_sessions().filter(actor=actor_name).order_by("pk").first()


def open_session_on(notebook: Notebook) -> Session | None:
    return open_sessions().filter(notebook=notebook).order_by("pk").first()


def is_open(session: Session) -> bool:
    ended = SessionEvent.objects.filter(session=session, kind__in=leases.ENDED).exists()
    return not ended and not leases.expired(leases.renewed_at(session))


# Whether claim_for_write has anything to say of a write to the notebook aliased `nb` by the actor (its parameter):
# an add folds it into the statement reading its head (one round trip).
MAY_CLAIM_SQL = (
    "EXISTS (SELECT 1 FROM notebooks_session s WHERE (s.actor = %s OR s.notebook_id = nb.id) AND NOT EXISTS "
    "(SELECT 1 FROM notebooks_sessionevent e WHERE e.session_id = s.id AND e.kind IN "
    f"{leases.in_kinds(states.CLOSING)}))"
)


# Each row: id, actor, title, when its lease was renewed, whether a land or an abandon ended it, whether it lapsed.
CLAIM_SQL = (
    "SELECT s.id, s.actor, n.title, COALESCE(l.renewed_at, s.at), "
    "CASE WHEN EXISTS (SELECT 1 FROM notebooks_sessionevent e WHERE e.session_id = s.id AND e.kind IN "
    f"{leases.in_kinds(states.CLOSING)}) THEN 1 ELSE 0 END, "
    "CASE WHEN EXISTS (SELECT 1 FROM notebooks_sessionevent e WHERE e.session_id = s.id AND e.kind = "
    f"'{EventKind.LAPSE.value}') THEN 1 ELSE 0 END "
    "FROM notebooks_session s JOIN notebooks_notebook n ON n.id = s.notebook_id "
    "LEFT JOIN notebooks_sessionlease l ON l.session_id = s.id "
    "WHERE s.id = (SELECT MAX(m.id) FROM notebooks_session m WHERE m.actor = %s) OR (n.title = %s AND NOT EXISTS "
    "(SELECT 1 FROM notebooks_sessionevent e WHERE e.session_id = s.id AND e.kind IN "
    f"{leases.in_kinds(leases.ENDED)})) "
    "ORDER BY s.id"
)


def claim_for_write(*, title: str, actor: Actor) -> int | None:
    """The session a write by `actor` under `title` belongs to, or None; refused for a holder's write under another
    title or after her lease ran out, and for another agent's write to a claimed notebook (the editor's is drift)."""
    # One plain query: it runs inside every write, where compiling two ORM queries cost more CPU than the write.
    with connection.cursor() as cursor:
        cursor.execute(CLAIM_SQL, [actor.name, title])
        found = cursor.fetchall()
    mine = max((row for row in found if row[1] == actor.name), default=None)  # by id: the actor's latest
    if mine is not None and not mine[4]:
        pk, _, held, renewed, _, lapsed = mine
        lapsed = lapsed or leases.expired(renewed)
        if held != title or lapsed:
            get_notebook(title)  # a title that names no notebook is 404, "did you mean", before any session rule
        if lapsed:
            raise leases.refusal(pk, actor.name, renewed, f"write under {title!r}")
        if held != title:
            raise Conflict(
                f"{actor.name} holds session #{pk} on notebook {held!r}; a write under {title!r} "
                f"is refused while it is open. Write into {held!r}, or land or abandon the session.",
                session=pk,
                notebook=held,
            )
        leases.renew(pk, renewed)  # a write of the holder's is a call of its own
        return pk
    holder = next(
        (row for row in found if row[2] == title and row[1] != actor.name and not leases.expired(row[3])), None
    )
    if holder is not None and not actor.editor:
        pk, who, *_ = holder
        raise Conflict(
            f"Notebook {title!r} is claimed by {who}'s session #{pk}; only {who} "
            "(or the human editor) may write to it until that session lands, is abandoned or lapses.",
            session=pk,
            holder=who,
        )
    return None


def check_named(*, session_id: int, actor: Actor, title: str) -> None:
    """Refuses a write naming session `session_id` unless it is `actor`'s open session on notebook `title`."""
    get_notebook(title)
    found = Session.objects.select_related("notebook", "lease").filter(pk=session_id).first()
    if found is None:
        raise NotFound(f"No session #{session_id}.", session=session_id)
    if found.actor != actor.name:
        raise Forbidden(f"Session #{session_id} is {found.actor}'s; {actor.name} may not write into it.")
    closing = SessionEvent.objects.filter(session=found, kind__in=states.CLOSING).order_by("seq").first()
    if closing is not None:
        state = states.closed_no_op_as_landed(closing)
        raise Conflict(
            f"Session #{session_id} is already {state}; take a new session to write into, or write without one.",
            session=session_id,
            state=state,
        )
    if not is_open(found):
        raise leases.refusal(session_id, found.actor, leases.renewed_at(found), f"take a write under {title!r}")
    if found.notebook.title != title:
        raise Conflict(
            f"Session #{session_id} is on notebook {found.notebook.title!r}, not {title!r}.",
            session=session_id,
            notebook=found.notebook.title,
        )


def refuse_new_notebook(*, title: str, by: str) -> None:
    """Creating a notebook is a write under another title: refused while `by` holds an open session."""
    mine = open_session_of(by)
    if mine is not None:
        raise Conflict(
            f"{by} holds session #{mine.pk} on notebook {mine.notebook.title!r}; starting notebook {title!r} is "
            "refused while it is open.",
            session=mine.pk,
            notebook=mine.notebook.title,
        )


# MAY_CLAIM_SQL as a PL/pgSQL function (migration 0012), whose plan PostgreSQL keeps (bench/NOTES.md).
MAY_CLAIM_CALL = "notebooks_may_claim(nb.id, %s)"

WRITE_GUARD = guards.WriteGuard(
    claim=claim_for_write,
    refuse_new_notebook=refuse_new_notebook,
    may_claim_sql=MAY_CLAIM_SQL,
    may_claim_function=True,  # MAY_CLAIM_CALL
)
