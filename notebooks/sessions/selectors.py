"""Reads of sessions: a session's state from its events, its semantic change (its own rows) and its drift."""

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Prefetch

from notebooks.log.files import rowformat
from notebooks.log.rules.checks import check_id
from notebooks.log.rules.errors import NotFound
from notebooks.log.rules.fold import PROPOSE, SOURCES
from notebooks.log.store import session_rows
from notebooks.log.store import view_reads as viewed
from notebooks.models import EventKind, Session, SessionEvent
from notebooks.sessions import states

# As answered; an event's own counter is answered as `number`, so `seq` only ever names a row of the log.
EVENT_FIELDS = ("kind", "by", "at", "head", "after", "note", "result", "rows", "proposal")


@dataclass
class SessionView:
    session: Session
    events: list[SessionEvent]
    state: str
    change: list[dict[str, Any]] = field(default_factory=list)
    change_total: int = 0
    drift: list[dict[str, Any]] = field(default_factory=list)
    drift_total: int = 0
    brought: "Brought | None" = None  # a landed session's counts (recent(brought=True)); None for any other
    lapsed_at: float | None = None  # when a lapsed session's lease ran out (recorded or not yet)

    @property
    def land(self) -> SessionEvent | None:
        return next((e for e in self.events if e.kind == EventKind.LAND), None)

    @property
    def decision(self) -> SessionEvent | None:
        """The land or abandon that ended the session, if not its holder's (the editor's, on /sessions/)."""
        ended = next((e for e in self.events if e.kind in (EventKind.LAND, EventKind.ABANDON)), None)
        return ended if ended is not None and ended.by != self.session.actor else None

    @property
    def refusal(self) -> SessionEvent | None:
        """The land gates' last refusal (or their reasons the editor's land overruled)."""
        return next((e for e in reversed(self.events) if e.kind == EventKind.REFUSE), None)

    @property
    def counted_as_written(self) -> bool:
        """Rows written by an older release, before a session's rows waited for its land: they count already."""
        return any(r["op"] != PROPOSE and not r.get("lands") for r in self.change)

    @property
    def undecided(self) -> bool:
        """Open, refused or lapsed: the editor may still land or discard it."""
        return self.state in states.UNDECIDED

    def as_dict(self, *, rows: bool = False) -> dict[str, Any]:
        s = self.session
        out: dict[str, Any] = {
            "id": s.pk,
            "notebook": s.notebook.title,
            "actor": s.actor,
            "role": s.role,
            "plan": s.plan,
            "base": s.base,
            "at": s.at,
            "state": self.state,
            "lapsed_at": self.lapsed_at,
            "events": [{"number": e.seq} | {name: getattr(e, name) for name in EVENT_FIELDS} for e in self.events],
            "change_rows": self.change_total,
            "drift_rows": self.drift_total,
        }
        if rows:
            out["change"] = self.change
            out["drift"] = self.drift
        return out


def view_of(session: Session, events: list[SessionEvent]) -> SessionView:
    """The session with its state (states.of) and when it lapsed, if it did."""
    state, lapsed_at = states.of(session, events)
    return SessionView(session=session, events=events, state=state, lapsed_at=lapsed_at)


def _export(found: tuple[list[tuple], int]) -> tuple[list[dict[str, Any]], int]:
    """Rows of view_reads.EXPORT_SELECT as the export writes them: redacted words read "[redacted: why]"."""
    rows, total = found
    exported = [
        rowformat.export_row(dict(zip(viewed.EXPORT_NAMES, v[:-2], strict=True)), v[-1], redacted_why=v[-2])
        for v in rows
    ]
    return exported, total


def change_of(session: Session, limit: int = 200, after: int = 0) -> tuple[list[dict[str, Any]], int]:
    """The session's own rows, in log order: its semantic change once landed."""
    return _export(session_rows.change_rows(session.notebook_id, session.base, session.pk, limit, after))


def _with_rows(view: SessionView, limit: int, after: int = 0) -> SessionView:
    """The view with up to `limit` rows of its change and of its drift (others' rows), after `after`, in log order."""
    view.change, view.change_total = change_of(view.session, limit, after)
    ranges = [(e.after or 0, e.head) for e in view.events if e.kind == EventKind.DRIFT]
    if ranges:
        view.drift, view.drift_total = _export(
            session_rows.rows_by_others(view.session.notebook_id, ranges, limit, after)
        )
    return view


def _with_events() -> Any:
    return Session.objects.select_related("notebook", "lease").prefetch_related(
        Prefetch("events", queryset=SessionEvent.objects.order_by("seq"))
    )


def describe(session: Session, *, rows: bool = False, limit: int = 200, after: int = 0) -> SessionView:
    return _with_rows(view_of(session, list(session.events.order_by("seq"))), limit if rows else 0, after)


def get_session(session_id: Any, *, with_events: bool = True) -> Session:
    """Session `session_id` and its notebook; for a read also its lease and events (a write reads them fresh)."""
    check_id(session_id, "session id")
    sessions = _with_events() if with_events else Session.objects.select_related("notebook")
    found = sessions.filter(pk=session_id).first()
    if found is None:
        raise NotFound(f"There is no session #{session_id}.")
    return found


def recent(
    *,
    limit: int = 50,
    state: str | None = None,
    rows: bool = False,
    row_limit: int = 200,
    actor: str | None = None,
    notebook: str | None = None,
    before: int | None = None,
    brought: bool = False,
) -> list[SessionView]:
    """The latest sessions first, each with its change and drift, filtered as given; with `brought`, what each landed
    one brought (one query for them all)."""
    views = []
    given = {"actor": actor, "notebook__title": notebook, "pk__lt": before}
    found = _with_events().order_by("-pk").filter(**{k: v for k, v in given.items() if v is not None})
    for s in found[: limit if state is None else None]:
        view = view_of(s, list(s.events.all()))
        if state is not None and view.state != state:
            continue
        views.append(_with_rows(view, row_limit if rows else 0))
        if len(views) >= limit:
            break
    if brought:
        counted = brought_by([v.session.pk for v in views if v.state == states.LANDED])
        for v in views:
            v.brought = counted.get(v.session.pk)
    return views


def own_seqs(session: Session) -> list[int]:
    """The seqs of the session's own rows, in order: its semantic change, its proposals and their landed copies."""
    return session_rows.own_seqs(session.notebook_id, session.base, session.pk)


def approval_summary(by: str, reason: str) -> str:
    """The vault commit's summary of a land the editor made of another's session."""
    return f"Landed by {by} as his approval: {reason.strip()}"


def land_summary(event: SessionEvent) -> str:
    """The summary a land commits with: the holder's own, or the editor's approval."""
    return event.note if event.by == event.session.actor else approval_summary(event.by, event.note)


def lapsed_before_land(session: Session) -> bool:
    """Whether a lapse was recorded: the vault may have committed its rows as automatic history since."""
    return SessionEvent.objects.filter(session_id=session.pk, kind=EventKind.LAPSE).exists()


def lands_after(event_id: int) -> list[SessionEvent]:
    """Land events with rows (not no-ops) after event `event_id`, in order, with their sessions and notebooks."""
    found = SessionEvent.objects.filter(pk__gt=event_id, kind=EventKind.LAND, result="landed")
    return list(found.select_related("session__notebook").order_by("pk"))


@dataclass(frozen=True)
class Brought:
    """What one landed session brought: the lines it added, by source, and how many that stood before it it changed."""

    session: int
    seen: int = 0
    guessed: int = 0
    dad: int = 0
    dad_correction: int = 0
    changed: int = 0

    @property
    def added(self) -> dict[str, int]:
        return {source: getattr(self, source) for source in SOURCES}

    @property
    def total_added(self) -> int:
        return sum(self.added.values())


BROUGHT_KINDS = frozenset({*SOURCES, "changed"})


def brought_by(session_ids: list[int]) -> dict[int, Brought]:
    """What each of `session_ids` brought, in one query: a session not landed brought nothing yet."""
    if not session_ids:
        return {}
    found: dict[int, dict[str, int]] = {sid: {} for sid in session_ids}
    for sid, kind, count in session_rows.brought_counts(list(found)):
        if kind in BROUGHT_KINDS:
            found[sid][kind] = count
    return {sid: Brought(session=sid, **kinds) for sid, kinds in found.items()}


@dataclass(frozen=True)
class Run:
    """A landed session as the card's chart counts it."""

    session: int
    actor: str
    landed_at: float
    brought: Brought


def landed_runs(notebook_id: int, *, cut: int, limit: int = 20) -> list[Run]:
    """The notebook's last `limit` landed sessions landed at or before seq `cut`, in order."""
    lands = SessionEvent.objects.filter(
        session__notebook_id=notebook_id, kind=EventKind.LAND, result="landed", head__lte=cut
    ).select_related("session")
    found = list(lands.order_by("-pk")[:limit])[::-1]
    counted = brought_by([e.session_id for e in found])
    return [Run(e.session_id, e.session.actor, e.at, counted[e.session_id]) for e in found]
