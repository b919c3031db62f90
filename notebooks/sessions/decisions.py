"""Dad decides an undecided session on /sessions/, with his reason: his land is the agent's but the gates do not block
it (their reasons recorded beside it, `overruled`); a discard is an abandon by him."""

from django.db import transaction

from notebooks.log.identity.roles import Actor, as_actor
from notebooks.log.rules.checks import check_text
from notebooks.log.rules.errors import Conflict, Forbidden
from notebooks.log.views.selectors import head
from notebooks.models import Session, SessionEvent
from notebooks.sessions import hooks as session_hooks
from notebooks.sessions import leases, states
from notebooks.sessions.gates import gates, own_rows
from notebooks.sessions.selectors import approval_summary, get_session, own_seqs
from notebooks.sessions.services import Abandoned, Landed, abandon, lock_for_sessions, record_land, record_refusal


def _editor(by: "Actor | str", verb: str) -> Actor:
    actor = as_actor(by)
    if not actor.editor:
        raise Forbidden(f"Only the editor may {verb} another's session; {actor.name} may land or abandon its own.")
    return actor


def _undecided(s: Session) -> None:
    done = SessionEvent.objects.filter(session=s, kind__in=states.CLOSING).order_by("seq").first()
    if done is not None:
        state = states.closed(done)
        raise Conflict(
            f"Session #{s.pk} was already {state} by {done.by}; that decision stands and nothing was changed.",
            state=state,
            session=s.pk,
        )


def land_as_editor(*, session: int, reason: str, by: "Actor | str") -> Landed:
    """The editor lands the session as his approval, whatever the gates say."""
    actor = _editor(by, "land")
    check_text(reason, "reason")  # the limit of every reason (NOTEBOOK_MAX_REASON), which his form shows
    s = get_session(session, with_events=False)
    hooks = session_hooks.current()
    with hooks.lock():
        _undecided(s)
        leases.lapse(s, by=actor.name)  # if it lapsed, recorded first: the log says it lapsed, then landed
        hooks.check_land(s, own_seqs(s) if own_rows(s) else [])  # the vault's final gate on the file: may refuse
        with transaction.atomic():
            nb = lock_for_sessions(s.notebook)
            _undecided(s)  # again, under the lock: two decisions cannot both stand
            top = head(nb).seq
            own = own_rows(s)
            reasons = gates(s, own, top)
            if reasons:
                record_refusal(s, by=actor.name, reasons=reasons, result="overruled")
            landed = record_land(s, nb, top, own, by=actor.name, note=reason)
        seqs = own_seqs(s) if landed.rows else []  # with the landed copies; a no-op (all withdrawn) commits none
        hooks.land_in_git(s, approval_summary(actor.name, reason), seqs)
    return landed


def discard(*, session: int, reason: str, by: "Actor | str") -> Abandoned:
    """The editor ends the session without a land: an abandon by him. Its rows stay as they are."""
    actor = _editor(by, "discard")
    check_text(reason, "reason")
    s = get_session(session, with_events=False)
    _undecided(s)
    try:
        return abandon(session=s.pk, why=reason, by=actor)
    except Conflict:
        _undecided(s)  # decided meanwhile (a land raced it): say so as for any decided session
        raise
