"""Take/land sessions' writes, keyword-only, each one transaction. Sessions and their events are append-only: a
session's state is read from its events."""

from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Max

from notebooks.log import proposals
from notebooks.log.identity.roles import Actor, as_actor
from notebooks.log.rules import withdrawal
from notebooks.log.rules.checks import check_id, check_text, shown_time
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid
from notebooks.log.store import session_rows
from notebooks.log.store.locks import lock_notebook
from notebooks.log.views.selectors import get_notebook, head
from notebooks.models import EventKind, Notebook, Session, SessionEvent, SessionLease
from notebooks.sessions import hooks as session_hooks
from notebooks.sessions import joined, leases, states
from notebooks.sessions.claims import open_session_of, open_session_on
from notebooks.sessions.events import record, record_drift
from notebooks.sessions.gates import gates, own_rows
from notebooks.sessions.selectors import get_session, own_seqs


class GateRefused(Conflict):
    code = "gate_refused"


@dataclass(frozen=True)
class Taken:
    id: int
    notebook: str
    base: int
    drift: int  # pending rows by others recorded as drift before base was fixed


@dataclass(frozen=True)
class Checkpointed:
    id: int
    base: int
    head: int


@dataclass(frozen=True)
class Landed:
    id: int
    result: str  # "landed" or "no-op"
    base: int
    head: int
    rows: int  # the session's rows: its semantic change
    drift: int  # rows by others since base, recorded apart


@dataclass(frozen=True)
class Withdrawn:
    id: int
    proposal: int  # the seq of the proposal taken back (it stays in the log)
    proposes: str
    n: int
    head: int
    rows: int  # the session's proposals that still count


@dataclass(frozen=True)
class Abandoned:
    id: int
    head: int
    rows: int
    drift: int


def lock_for_sessions(notebook: Notebook) -> Notebook:
    if connection.vendor == "postgresql":
        # One lock for every take: "one open session per notebook and per actor" cannot race.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext('notebooks.sessions.services'))")
    return lock_notebook(notebook)  # not SELECT … FOR UPDATE: the app's role holds no UPDATE (docs/POSTGRES.md)


def _open_for(session: Session, actor: Actor, verb: str, *, editor_may: bool = False, lapsed_may: bool = False) -> None:
    """Refuses unless `actor` may `verb` the session now; a call of its holder renews its lease."""
    if session.actor != actor.name and not (editor_may and actor.editor):
        raise Forbidden(f"Session #{session.pk} is {session.actor}'s; {actor.name} may not {verb} it.")
    ended = {e.kind: e for e in SessionEvent.objects.filter(session=session, kind__in=leases.ENDED)}
    closing = ended.get(EventKind.LAND) or ended.get(EventKind.ABANDON)
    if closing is not None:
        state = states.closed_no_op_as_landed(closing)
        raise Conflict(f"Session #{session.pk} is already {state}; take a new one.", state=state)
    renewed = leases.renewed_at(session)
    if EventKind.LAPSE in ended or leases.expired(renewed):
        if lapsed_may:
            return
        raise leases.refusal(session.pk, session.actor, renewed, verb)
    if session.actor == actor.name:
        leases.renew(session.pk, renewed)


def _already_yours(mine: Session) -> Conflict:
    """A second take by the holder: the session she has, and how to go on with it."""
    until = leases.lapses_at(mine)
    return Conflict(
        f"{mine.actor} already holds session #{mine.pk} on {mine.notebook.title!r}, its lease running until "
        f"{shown_time(until)} (each call of {mine.actor}'s renews it). Go on with it: name session {mine.pk} in "
        "your writes (every write's answer names the session it went into), or land or abandon it to take another.",
        session=mine.pk,
        notebook=mine.notebook.title,
        lease_until=until,
    )


def take(*, notebook: str, plan: str, by: "Actor | str") -> Taken:
    """Claim a notebook: record pending drift first, then fix base = its head. One open session per notebook."""
    actor = as_actor(by)
    check_text(plan, "plan", limit=settings.NOTEBOOK_MAX_WORDS)
    hooks = session_hooks.current()
    with hooks.lock():
        get_notebook(notebook)
        vault_base = hooks.base_for_take(notebook)  # before the transaction: git never runs inside one
        with transaction.atomic():
            nb = lock_for_sessions(get_notebook(notebook))
            leases.lapse_due(by=actor.name, notebook_id=nb.pk, actor=actor.name)  # what lapsed frees this take's way
            holder = open_session_on(nb)
            if holder is not None and holder.actor == actor.name:
                raise _already_yours(holder)
            if holder is not None:
                wait = leases.retry_after(holder)
                raise Conflict(
                    f"Notebook {nb.title!r} is already claimed by {holder.actor} (session #{holder.pk}); "
                    f"it is free again once that session lands or is abandoned, or in {wait} s if it lapses "
                    "(no call of its holder's for NOTEBOOK_SESSION_TTL seconds).",
                    holder=holder.actor,
                    session=holder.pk,
                ).retrying_after(wait)
            mine = open_session_of(actor.name)
            if mine is not None:
                raise _already_yours(mine)
            top = head(nb).seq
            ended = SessionEvent.objects.filter(session__notebook=nb, kind__in=leases.ENDED)
            accounted = ended.aggregate(top=Max("head"))["top"] or 0  # where its last session closed or lapsed
            session = Session.objects.create(
                notebook=nb,
                actor=actor.name,
                role=actor.role,
                plan=plan,
                base=top,
                at=leases.now(),
                vault_base=vault_base,
            )
            SessionLease.objects.create(session=session, renewed_at=leases.now())
            pending = session_rows.count_outside_sessions(nb.pk, accounted, top)
            if pending:
                note = "pending rows written outside any session, recorded before base was fixed"
                record(session, EventKind.DRIFT, by=actor.name, head_seq=top, after=accounted, rows=pending, note=note)
            record(session, EventKind.TAKE, by=actor.name, head_seq=top, note=plan)
            taken = Taken(id=session.pk, notebook=nb.title, base=top, drift=pending)
            joined.join(taken)  # a caller's idempotency key is stored with the session, or neither
    return taken


def checkpoint(*, session: int, note: str, by: "Actor | str") -> Checkpointed:
    """Recovery evidence only: records the head. It moves no base and grants nothing."""
    actor = as_actor(by)
    s = get_session(session, with_events=False)
    check_text(note, "note")
    with transaction.atomic():
        nb = lock_for_sessions(s.notebook)
        _open_for(s, actor, "checkpoint")
        top = head(nb).seq
        record(s, EventKind.CHECKPOINT, by=actor.name, head_seq=top, note=note)
        done = Checkpointed(id=s.pk, base=s.base, head=top)
        joined.join(done)
    session_hooks.current().after_checkpoint(s, note)  # after the commit: the checkpoint stands whatever git does
    return done


def land(*, session: int, by: "Actor | str", summary: str | None = None) -> Landed:
    """The session's rows since base become one semantic change (none: a no-op), others' rows drift apart. A failed
    gate refuses, recorded for Dad, and leaves the session open; the gates are read again inside the transaction."""
    actor = as_actor(by)
    s = get_session(session, with_events=False)
    check_text(summary, "summary", limit=settings.NOTEBOOK_MAX_WORDS, required=False)
    hooks = session_hooks.current()
    with hooks.lock():
        try:
            _, own = _land_gates(s, actor, summary)
            hooks.check_land(s, own_seqs(s) if own else [])  # may refuse; runs before the transaction opens
            with transaction.atomic():
                nb = lock_for_sessions(s.notebook)
                top, own = _land_gates(s, actor, summary)  # again: rows may have come since the first reading
                landed = record_land(s, nb, top, own, by=actor.name, note=summary or "")
                joined.join(landed)
        except GateRefused as refused:
            record_refusal(s, by=actor.name, reasons=refused.details["reasons"])  # what Dad decides on /sessions/
            raise
        # After the commit (if git fails, a later sweep commits); withdrawn proposals too: the file holds them.
        hooks.land_in_git(s, summary or "", own_seqs(s) if landed.rows else [])
    return landed


def record_land(s: Session, nb: Notebook, top: int, own: list[tuple], *, by: str, note: str) -> Landed:
    """Drift, the landed copies of the session's proposals, then the land event at the head after them."""
    drift = record_drift(s, nb, top, by=by)
    copies = proposals.land(nb, s.pk, after=s.base)  # refuses a copy that would break the rules: nothing is written
    top = copies[-1].seq if copies else top
    result = "landed" if own else "no-op"
    record(s, EventKind.LAND, by=by, head_seq=top, note=note, result=result, rows=len(own))
    return Landed(id=s.pk, result=result, base=s.base, head=top, rows=len(own), drift=drift)


def _land_gates(s: Session, actor: Actor, summary: str | None) -> tuple[int, list[tuple]]:
    """The head and the session's rows, once the gates let the land through."""
    _open_for(s, actor, "land")
    top = head(s.notebook).seq
    own = own_rows(s)
    if own and not (summary or "").strip():
        raise Invalid("A land needs a summary: say what the session changed, in a few words.")
    reasons = gates(s, own, top)
    if reasons:
        raise GateRefused(
            f"Land refused for session #{s.pk}; it stays open: " + " ".join(reasons),
            reasons=reasons,
            session=s.pk,
        )
    return top, own


def record_refusal(s: Session, *, by: str, reasons: list[str], result: str = "") -> None:
    """The gates' reasons as a `refuse` event, in a transaction of its own; a refusal repeated as is records nothing."""
    note = " ".join(reasons)
    with transaction.atomic():
        nb = lock_for_sessions(s.notebook)
        last = SessionEvent.objects.filter(session=s).order_by("-seq").first()
        if last is not None and last.kind == EventKind.REFUSE and last.note == note and last.result == result:
            return
        record(s, EventKind.REFUSE, by=by, head_seq=head(nb).seq, note=note, result=result, rows=len(own_rows(s)))


def abandon(*, session: int, why: str, by: "Actor | str") -> Abandoned:
    """Close a session without a semantic change (the editor may too); its proposals stay in the log, never counting."""
    actor = as_actor(by)
    s = get_session(session, with_events=False)
    check_text(why, "reason")
    hooks = session_hooks.current()
    with hooks.lock():
        with transaction.atomic():
            nb = lock_for_sessions(s.notebook)
            _open_for(s, actor, "abandon", editor_may=True, lapsed_may=True)  # a lapsed session may be abandoned
            top = head(nb).seq
            drift = record_drift(s, nb, top, by=actor.name)
            own = len(own_rows(s))
            record(s, EventKind.ABANDON, by=actor.name, head_seq=top, note=why, rows=own)
            done = Abandoned(id=s.pk, head=top, rows=own, drift=drift)
            joined.join(done)
        hooks.after_abandon(s, why)  # after the commit: the abandon stands whatever git does
    return done


def withdraw(*, session: int, proposal: int, why: str, by: "Actor | str") -> Withdrawn:
    """Take back one proposal of an open session (the holder or the editor): a `withdraw` event naming it. The
    proposal stays in the log, but no view, gate or land counts it (rules/withdrawal.py)."""
    actor = as_actor(by)
    s = get_session(session, with_events=False)
    check_id(proposal, "proposal")
    check_text(why, "reason")
    if s.actor != actor.name and not actor.editor:
        raise Forbidden(f"Session #{s.pk} is {s.actor}'s; {actor.name} may not withdraw its proposals.")
    with transaction.atomic():
        nb = lock_for_sessions(s.notebook)
        _open_for(s, actor, "withdraw a proposal", editor_may=True)
        found = session_rows.session_proposals(s.notebook_id, s.base, s.pk)
        events = SessionEvent.objects.filter(session=s, kind=EventKind.WITHDRAW)
        gone = dict(events.values_list("proposal", "by"))
        taken = withdrawal.withdrawal(found, proposal, session=s.pk, withdrawn=gone)
        top = head(nb).seq
        left = len(found) - len(gone) - len(taken)
        for part in taken:  # a merge's parts each named by an event of their own: every reader counts them alike
            record(s, EventKind.WITHDRAW, by=actor.name, head_seq=top, note=why, proposal=part["seq"], rows=left)
        named = taken[0]
        done = Withdrawn(id=s.pk, proposal=proposal, proposes=named["proposes"], n=named["n"], head=top, rows=left)
        joined.join(done)
    return done
