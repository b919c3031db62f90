"""Reads of sessions: a session's state from its events, its semantic change (its own rows) and its drift."""

from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import Prefetch

from notebooks.log import rowformat
from notebooks.log.checks import MAX_ID
from notebooks.log.errors import Invalid, NotFound
from notebooks.log.selectors import EXPORT_COLUMNS
from notebooks.models import EventKind, Row, Session, SessionEvent

_NAMES = [c.strip().removeprefix("r.").strip('"') for c in EXPORT_COLUMNS.split(",")]
ROW_SQL = (
    f"SELECT {EXPORT_COLUMNS}, w.body FROM notebooks_row r LEFT JOIN notebooks_words w "
    "ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
)


@dataclass
class SessionView:
    session: Session
    events: list[SessionEvent]
    state: str
    change: list[dict[str, Any]] = field(default_factory=list)
    change_total: int = 0
    drift: list[dict[str, Any]] = field(default_factory=list)
    drift_total: int = 0

    @property
    def land(self) -> SessionEvent | None:
        return next((e for e in self.events if e.kind == EventKind.LAND), None)

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
            "events": [
                {
                    "seq": e.seq,
                    "kind": e.kind,
                    "by": e.by,
                    "at": e.at,
                    "head": e.head,
                    "after": e.after,
                    "note": e.note,
                    "result": e.result,
                    "rows": e.rows,
                }
                for e in self.events
            ],
            "change_rows": self.change_total,
            "drift_rows": self.drift_total,
        }
        if rows:
            out["change"] = self.change
            out["drift"] = self.drift
        return out


def heads() -> dict[int, int]:
    """Each notebook's head seq, by notebook id (for the API's list of notebooks)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT notebook_id, MAX(seq) FROM notebooks_row GROUP BY notebook_id")
        return dict(cursor.fetchall())


def state_of(events: list[SessionEvent]) -> str:
    """open, landed, no-op or abandoned: the last closing event decides."""
    for e in events:
        if e.kind == EventKind.LAND:
            return "no-op" if e.result == "no-op" else "landed"
        if e.kind == EventKind.ABANDON:
            return "abandoned"
    return "open"


def _rows(where: str, params: list[Any], limit: int, after: int = 0) -> tuple[list[dict[str, Any]], int]:
    """The rows `where` picks after seq `after` (at most `limit`), and how many it picks in all."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM notebooks_row r WHERE {where}", params)
        (total,) = cursor.fetchone()
        cursor.execute(f"{ROW_SQL} WHERE {where} AND r.seq > %s ORDER BY r.seq LIMIT %s", [*params, after, limit])
        found = [rowformat.export_row(dict(zip(_NAMES, v[:-1], strict=True)), v[-1]) for v in cursor.fetchall()]
    return found, total


def change_of(session: Session, limit: int = 200, after: int = 0) -> tuple[list[dict[str, Any]], int]:
    """The session's own rows, in log order: its semantic change once landed."""
    # Its rows all come after its base: a seek on (notebook, seq), where session_id has no index of its own.
    where = "r.notebook_id = %s AND r.seq > %s AND r.session_id = %s"
    return _rows(where, [session.notebook_id, session.base, session.pk], limit, after)


def drift_of(
    session: Session, events: list[SessionEvent], limit: int = 200, after: int = 0
) -> tuple[list[dict[str, Any]], int]:
    """Rows by others that the session's drift events recorded, in log order."""
    ranges = [(e.after or 0, e.head) for e in events if e.kind == EventKind.DRIFT]
    if not ranges:
        return [], 0
    spans = " OR ".join("(r.seq > %s AND r.seq <= %s)" for _ in ranges)
    params: list[Any] = [session.notebook_id, *[x for span in ranges for x in span]]
    return _rows(f"r.notebook_id = %s AND r.session_id IS NULL AND ({spans})", params, limit, after)


def _with_events() -> Any:
    return Session.objects.select_related("notebook").prefetch_related(
        Prefetch("events", queryset=SessionEvent.objects.order_by("seq"))
    )


def describe(session: Session, *, rows: bool = False, limit: int = 200, after: int = 0) -> SessionView:
    """A session with its events and, with `rows`, up to `limit` of its change and of its drift rows after `after`."""
    events = list(session.events.order_by("seq"))
    out = SessionView(session=session, events=events, state=state_of(events))
    out.change, out.change_total = change_of(session, limit if rows else 0, after)
    out.drift, out.drift_total = drift_of(session, events, limit if rows else 0, after)
    return out


def get_session(session_id: Any) -> Session:
    if isinstance(session_id, bool) or not isinstance(session_id, int) or not 1 <= session_id <= MAX_ID:
        raise Invalid(f"The session id {session_id!r} is not a positive whole number.")
    found = _with_events().filter(pk=session_id).first()
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
) -> list[SessionView]:
    """The latest sessions first (by id: the order they were taken), each with its change and drift; only those of
    `actor`, on `notebook`, in `state`, older than session `before`, when given."""
    views = []
    found = _with_events().order_by("-pk")
    if actor is not None:
        found = found.filter(actor=actor)
    if notebook is not None:
        found = found.filter(notebook__title=notebook)
    if before is not None:
        found = found.filter(pk__lt=before)
    for s in found[: limit if state is None else None]:
        events = list(s.events.all())
        view = SessionView(session=s, events=events, state=state_of(events))
        if state is not None and view.state != state:
            continue
        view.change, view.change_total = change_of(s, row_limit if rows else 0)
        view.drift, view.drift_total = drift_of(s, events, row_limit if rows else 0)
        views.append(view)
        if len(views) >= limit:
            break
    return views


def own_seqs(session: Session) -> list[int]:
    """The seqs of the session's own rows, in order: its semantic change."""
    found = Row.objects.filter(notebook_id=session.notebook_id, seq__gt=session.base, session=session)
    return list(found.order_by("seq").values_list("seq", flat=True))


def lands_after(event_id: int) -> list[SessionEvent]:
    """Land events with rows (not no-ops) after event `event_id`, in order, with their sessions and notebooks."""
    found = SessionEvent.objects.filter(pk__gt=event_id, kind=EventKind.LAND, result="landed")
    return list(found.select_related("session__notebook").order_by("pk"))
