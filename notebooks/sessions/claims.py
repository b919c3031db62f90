"""Which sessions are open and what they claim: the rule a write obeys while one is open (registered into the core
as its write guard) and the queries that answer it."""

from typing import Any

from django.db import connection
from django.db.models import Exists, OuterRef

from notebooks.log import guards
from notebooks.log.errors import Conflict
from notebooks.log.roles import Actor
from notebooks.models import EventKind, Notebook, Session, SessionEvent

CLOSING = (EventKind.LAND, EventKind.ABANDON)


def _closed() -> Exists:
    return Exists(SessionEvent.objects.filter(session=OuterRef("pk"), kind__in=CLOSING))


def open_sessions() -> Any:
    """Sessions with neither a land nor an abandon event, as a queryset."""
    return Session.objects.alias(closed=_closed()).filter(closed=False).select_related("notebook")


def open_session_of(actor_name: str) -> Session | None:
    return open_sessions().filter(actor=actor_name).order_by("pk").first()


def open_session_on(notebook: Notebook) -> Session | None:
    return open_sessions().filter(notebook=notebook).order_by("pk").first()


def is_open(session: Session) -> bool:
    return not SessionEvent.objects.filter(session=session, kind__in=CLOSING).exists()


# True when claim_for_write has anything to say about a write to the notebook aliased `nb`: an open session of the
# actor (its one parameter) or on that notebook. An add folds it into the statement reading the head (one round trip).
MAY_CLAIM_SQL = (
    "EXISTS (SELECT 1 FROM notebooks_session s WHERE (s.actor = %s OR s.notebook_id = nb.id) AND NOT EXISTS "
    "(SELECT 1 FROM notebooks_sessionevent e WHERE e.session_id = s.id AND e.kind IN "
    "(" + ", ".join(f"'{kind}'" for kind in CLOSING) + ")))"
)


def claim_for_write(*, title: str, actor: Actor) -> int | None:
    """The session a write by `actor` under `title` belongs to, or None; refuses what an open session forbids.

    An actor's open session owns its writes: a write under any other title is refused (the seed's bug of lines
    written under a heading, each into a notebook of its own). Another agent's write to a claimed notebook is
    refused; the editor's stays allowed and is recorded as drift at land.
    """
    # One plain query answers both questions: it runs inside every write, where compiling two ORM queries with
    # subqueries cost more CPU than the write itself.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT s.id, s.actor, n.title FROM notebooks_session s JOIN notebooks_notebook n ON n.id = s.notebook_id "
            "WHERE (s.actor = %s OR n.title = %s) AND NOT EXISTS (SELECT 1 FROM notebooks_sessionevent e "
            "WHERE e.session_id = s.id AND e.kind IN (%s, %s)) ORDER BY s.id",
            [actor.name, title, *(str(kind) for kind in CLOSING)],
        )
        found = cursor.fetchall()
    mine = next((row for row in found if row[1] == actor.name), None)
    if mine is not None:
        pk, _, held = mine
        if held != title:
            raise Conflict(
                f"{actor.name} holds session #{pk} on notebook {held!r}; a write under {title!r} "
                f"is refused while it is open. Write into {held!r}, or land or abandon the session.",
                session=pk,
                notebook=held,
            )
        return pk
    holder = next((row for row in found if row[2] == title), None)
    if holder is not None and not actor.editor:
        pk, who, _ = holder
        raise Conflict(
            f"Notebook {title!r} is claimed by {who}'s session #{pk}; only {who} "
            "(or the human editor) may write to it until that session lands or is abandoned.",
            session=pk,
            holder=who,
        )
    return None


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


# MAY_CLAIM_SQL as a PL/pgSQL function (migration 0012), whose plan PostgreSQL keeps: planning the SQL took 75 us of
# an add's 230 us on the server. tests/test_one_trip.py checks that both answer alike.
MAY_CLAIM_CALL = "notebooks_may_claim(nb.id, %s)"

WRITE_GUARD = guards.WriteGuard(
    claim=claim_for_write,
    refuse_new_notebook=refuse_new_notebook,
    may_claim_sql=MAY_CLAIM_SQL,
    may_claim_function=True,  # MAY_CLAIM_CALL
)
