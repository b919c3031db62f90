"""A session's state, read from its events and its lease: the one place its words (open, landed, no-op, abandoned,
lapsed) are derived, for the API, MCP, the card and the refusals of a session that is closed or lapsed."""

from collections.abc import Iterable

from notebooks.models import EventKind, Session, SessionEvent
from notebooks.sessions import leases

OPEN, LANDED, NO_OP, ABANDONED, LAPSED = "open", "landed", "no-op", "abandoned", "lapsed"
STATES = (OPEN, LANDED, NO_OP, ABANDONED, LAPSED)
UNDECIDED = (OPEN, LAPSED)  # the editor may still land or discard it

# A land or an abandon closes a session for good. A lapse (leases.py) frees its notebook but leaves it for an abandon.
CLOSING = (EventKind.LAND, EventKind.ABANDON)


def closed(closing: SessionEvent) -> str:
    """How the land or abandon `closing` closed its session: landed, no-op (a land with no rows) or abandoned."""
    if closing.kind == EventKind.ABANDON:
        return ABANDONED
    return NO_OP if closing.result == NO_OP else LANDED  # a land's result is the state it leaves


def closed_no_op_as_landed(closing: SessionEvent) -> str:
    """closed(), a no-op land said "landed": what a write or call refused on a closed session has always answered."""
    state = closed(closing)
    return LANDED if state == NO_OP else state


def unclosed(*, lapsed: bool) -> str:
    """A session not landed or abandoned: lapsed once its lease ran out (the lapse recorded or not yet), else open."""
    return LAPSED if lapsed else OPEN


def of(session: Session, events: Iterable[SessionEvent]) -> tuple[str, float | None]:
    """The session's state from its events (in order; at least its land, abandon and lapse) and its lease, and when
    its lease ran out if a lapse was recorded or is due (kept once it closed)."""
    events = list(events)
    closing = next((e for e in events if e.kind in CLOSING), None)
    lapse = next((e for e in events if e.kind == EventKind.LAPSE), None)
    lapsed_at = None if lapse is None else lapse.at
    if closing is not None:
        return closed(closing), lapsed_at
    if lapse is None and leases.expired(leases.renewed_at(session)):
        lapsed_at = leases.lapses_at(session)
    return unclosed(lapsed=lapsed_at is not None), lapsed_at
