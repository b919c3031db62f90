"""What the holder of an open session reads: the log with her own proposals as the ops they propose (fold.py);
everyone else reads the log as it is."""

from notebooks.log import proposals
from notebooks.log.identity.roles import Actor
from notebooks.log.views import selectors
from notebooks.log.views.lines import Line
from notebooks.models import Notebook, Session
from notebooks.sessions import claims


def own_session(nb: Notebook, reader: "Actor | str | None") -> Session | None:
    """The reader's open session on this notebook, whose proposals her live reads show; None for anyone else."""
    if reader is None:
        return None
    name = reader if isinstance(reader, str) else reader.name
    if not claims.may_hold(name, nb.title):
        return None  # the usual reader: one cheap statement
    held = claims.open_session_of(name)
    return held if held is not None and held.notebook_id == nb.pk else None


def holder_lines(nb: Notebook, lines: list[Line], own: Session) -> list[Line]:
    return proposals.holder_view(lines, nb, own.pk, after=own.base)


def holder_turn(nb: Notebook, own: Session) -> str:
    read = selectors.pinned_view(nb)
    return selectors.turn_text(nb, holder_lines(nb, read.lines, own), selectors.head_at(nb))
