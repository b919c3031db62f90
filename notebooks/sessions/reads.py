"""What the holder of an open session reads: the log with her proposals as the ops they propose; others, the log."""

from dataclasses import dataclass

from django.db import connection

from notebooks.log import proposals
from notebooks.log.identity.roles import Actor
from notebooks.log.rules.lines import Head, Line
from notebooks.log.views import selectors
from notebooks.models import EventKind, Notebook, Session, SessionEvent
from notebooks.sessions import claims, leases, states


@dataclass(frozen=True)
class Held:
    """The reader's session on a notebook: open (her proposals in her view) or lapsed (they are listed apart)."""

    session: Session
    state: str  # "open" or "lapsed"
    lease_until: float  # when its lease runs out, or ran out

    def as_dict(self) -> dict:
        return {"id": self.session.pk, "state": self.state, "lease_until": self.lease_until}


# The actor's latest session on this notebook if not closed, for every read (a lapsed one stays hers to see while
# she holds one elsewhere). {actor}: %s, or SQL giving a name.
HELD_ON = (
    "SELECT s.id FROM notebooks_session s WHERE s.id = (SELECT MAX(m.id) FROM notebooks_session m "
    "WHERE m.actor = {actor} AND m.notebook_id = {notebook}) AND NOT EXISTS (SELECT 1 FROM notebooks_sessionevent e "
    f"WHERE e.session_id = s.id AND e.kind IN {leases.in_kinds(states.CLOSING)})"
)
HELD_SQL = HELD_ON.format(actor="%s", notebook="%s")


def held(nb: Notebook, reader: "Actor | str | None") -> Held | None:
    """The reader's session on this notebook, open or lapsed; None for anyone else (and for a closed one)."""
    if reader is None:
        return None
    with connection.cursor() as cursor:
        cursor.execute(HELD_SQL, [_name(reader), nb.pk])
        found = cursor.fetchone()
    return None if found is None else _held(found[0])


def head_and_held(title: str, reader: "Actor | str | None") -> tuple[Notebook, Head, Held | None]:
    """The notebook, its head and the reader's session on it (as `held`), in one statement for a reader holding none."""
    also = [] if reader is None else [(HELD_ON.format(actor="%s", notebook="n.id"), [_name(reader)])]
    notebook, head, extra = selectors.notebook_and_head(title, also)
    session_id = extra[0] if extra else None
    return notebook, head, None if session_id is None else _held(session_id)


def head_and_held_by(title: str, actor: tuple[str, list]) -> tuple[Notebook, Head, str | None, int | None]:
    """The notebook, its head, the name `actor` (SQL and its parameters) gives, and that actor's session id on it."""
    sql, params = actor
    held_on = HELD_ON.format(actor=f"({sql})", notebook="n.id")
    notebook, head, (name, session_id) = selectors.notebook_and_head(title, [(sql, params), (held_on, params)])
    return notebook, head, name, session_id


def _name(reader: "Actor | str") -> str:
    return reader if isinstance(reader, str) else reader.name


def _held(session_id: int) -> Held:
    session = Session.objects.select_related("notebook", "lease").get(pk=session_id)
    state = states.unclosed(lapsed=not claims.is_open(session))
    return Held(session, state, leases.lapses_at(session))


def pending_change(nb: Notebook, lines: list[Line], own: Session) -> tuple[list[Line], set[int]]:
    """What a session's proposals would make of the live lines: the lines they add or change, as they would stand,
    and the numbers of those they take out (retired, merged away)."""
    mine = holder_lines(nb, lines, own)
    was = {(x.n, x.seq) for x in lines}
    return [x for x in mine if (x.n, x.seq) not in was], {x.n for x in lines} - {x.n for x in mine}


def own_session(nb: Notebook, reader: "Actor | str | None") -> Session | None:
    """The reader's open session on this notebook, whose proposals her live reads show."""
    if reader is None:
        return None
    name = _name(reader)
    if not claims.may_hold(name, nb.title):
        return None  # the usual reader: one cheap statement
    held = claims.open_session_of(name)
    return held if held is not None and held.notebook_id == nb.pk else None


def holder_lines(nb: Notebook, lines: list[Line], own: Session) -> list[Line]:
    return proposals.holder_view(lines, nb, own.pk, after=own.base)


def holder_turn(nb: Notebook, own: Session) -> str:
    read = selectors.pinned_view(nb)
    return selectors.turn_text(nb, holder_lines(nb, read.lines, own), selectors.head_at(nb))


def withdrawals(session: Session) -> int:
    """How many proposals were taken back: each changes her view with no new row (conditional.py)."""
    return SessionEvent.objects.filter(session=session, kind=EventKind.WITHDRAW).count()
