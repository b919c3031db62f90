"""What the API and the MCP tools answer, built in one place from the core's results, so the same meaning has the
same shape on both sides (schemas.py)."""

import json
import math

from ninja.responses import NinjaJSONEncoder

from notebooks.agents import creation_limit, queries, schemas
from notebooks.log import proposals, services
from notebooks.log.identity.roles import Actor
from notebooks.log.rules import checks
from notebooks.log.rules.errors import Invalid, NotFound
from notebooks.log.views import selectors, turn_reads
from notebooks.models import Notebook
from notebooks.sessions import claims as session_claims
from notebooks.sessions import reads as session_reads
from notebooks.sessions import selectors as session_selectors
from notebooks.sessions import services as session_services
from notebooks.similar import selectors as similar_selectors


def until_of(raw: str | None) -> float | None:
    """A time to read at: ISO 8601 or epoch seconds; none when not given."""
    if raw is None or raw == "":
        return None
    try:
        value = checks.parse_when(raw)
    except (OverflowError, ValueError, OSError):
        raise Invalid(f"{raw!r} is not a time: give ISO 8601 (2026-11-12T09:30) or epoch seconds.") from None
    if not math.isfinite(value):
        raise Invalid(f"{raw!r} is not a time.")
    return value


def notebook_list(after: str | None = None, limit: int | None = None) -> schemas.NotebookList:
    """The notebooks by title, after the title `after`, `limit` of them (all when none is given)."""
    claims = {s.notebook_id: s for s in session_claims.open_sessions()}
    heads = {found.id: found.head.seq for found in selectors.notebook_heads()}
    found = Notebook.objects.order_by("title")
    if after is not None:
        found = found.filter(title__gt=after)
    page, more = _page(list(found if limit is None else found[: limit + 1]), limit)
    items = []
    for nb in page:
        claim = claims.get(nb.pk)
        session = schemas.Claim(id=claim.pk, actor=claim.actor) if claim else None
        items.append(schemas.NotebookItem(title=nb.title, head=heads.get(nb.pk, 0), session=session))
    last = items[-1].title if items else after
    return schemas.NotebookList(notebooks=items, after=after, next=last, more=more)


def _page(found: list, limit: int | None) -> tuple[list, bool]:
    """A page of `found` (read with one more than `limit`) and whether more follow."""
    if limit is None:
        return found, False
    return found[:limit], len(found) > limit


def created(title: str, by: Actor) -> schemas.NotebookItem:
    nb = creation_limit.create_notebook(title=title, actor=by)
    return schemas.NotebookItem(title=nb.title, head=0, session=None)


def lines(
    title: str, until: str | None, after: int = 0, limit: int | None = None, reader: Actor | None = None
) -> schemas.Lines:
    nb = selectors.get_notebook(title)
    at = until_of(until)
    read = selectors.pinned_view(nb, until=at)
    own = session_reads.own_session(nb, reader) if at is None else None
    if own is not None:  # read your own writes: her open session's proposals, as the ops they propose (fold.py)
        read = selectors.PinnedView(read.seq, read.hash, proposals.holder_view(read.lines, nb, own.pk, after=own.base))
    return _lines(nb, at, read, after, limit)


def holds_session_on(title: str, reader: Actor) -> bool:
    """Whether the reader's live reads of this notebook show a pending change of hers (the kept JSON does not)."""
    return (
        session_claims.may_hold(reader.name, title)
        and session_reads.own_session(selectors.get_notebook(title), reader) is not None
    )


def _lines(
    nb: Notebook, at: float | None, read: selectors.PinnedView, after: int = 0, limit: int | None = None
) -> schemas.Lines:
    found, more = _page([line.as_dict() for line in read.lines if line.n > after], limit)
    last = found[-1]["n"] if found else after
    return schemas.Lines.model_validate(
        {"notebook": nb.title, "until": at, "seq": read.seq, "hash": read.hash, "lines": found, "after": after}
        | {"next": last, "more": more}
    )


def live_lines_json(title: str) -> str:
    """lines(title, None) as the API's JSON (ninja's encoder, as ninja renders it), made once per head and kept with
    the notebook's view: encoding it on every read was most of a warm read's CPU (bench/NOTES.md)."""
    nb = selectors.get_notebook(title)
    make = lambda read: json.dumps(_lines(nb, None, read).model_dump(), cls=NinjaJSONEncoder)  # noqa: E731
    return selectors.made_from_live(nb, "api.lines.json", make)


def added(title: str, n: int, seq: int, text: str, reader: Actor | None = None) -> schemas.Added:
    """The answer to an add: its number and seq, and the live lines most like it (a hint, never a refusal)."""
    nb = selectors.get_notebook(title)
    own = session_reads.own_session(nb, reader)
    pending: list = []
    hidden: set[int] = set()
    if own is not None:  # read your own writes: lines like her own pending ones are named too
        live = selectors.view(nb)
        mine = proposals.holder_view(live, nb, own.pk, after=own.base)
        was = {(x.n, x.seq) for x in live}
        pending = [x for x in mine if (x.n, x.seq) not in was]
        hidden = {x.n for x in live} - {x.n for x in mine}
    near = similar_selectors.nearest_for(nb, text, exclude=n, pending=pending, hidden=hidden)
    return schemas.Added(n=n, seq=seq, similar=[schemas.Near(n=x["n"], score=round(x["score"], 2)) for x in near])


def turn(title: str, until: str | None, reader: Actor | str) -> schemas.Turn:
    nb = selectors.get_notebook(title)
    at = until_of(until)
    own = session_reads.own_session(nb, reader) if at is None else None
    # read your own writes: the holder's turn has her session's proposals
    text = selectors.turn(nb, until=at) if own is None else session_reads.holder_turn(nb, own)
    answer = schemas.Turn(notebook=nb.title, until=at, text=text)
    if at is None:  # a frozen reader (a benchmark) reads the past; the index tells which notebooks play turns read
        turn_reads.note_turn_read(nb, reader)
    return answer


def history(title: str, n: int) -> schemas.History:
    nb = selectors.get_notebook(title)
    entries = [e.as_dict() for e in selectors.history(nb, n)]
    return schemas.History.model_validate({"notebook": nb.title, "n": n, "entries": entries})


def session(session_id: int, after: int = 0, limit: int = queries.SESSION_ROWS_PAGE) -> schemas.SessionRows:
    """A session with a page of its rows: change and drift together in log order, `limit` of them after seq `after`."""
    found = session_selectors.get_session(session_id)
    view = session_selectors.describe(found, rows=True, limit=limit + 1, after=after)
    seqs = sorted(row["seq"] for row in [*view.change, *view.drift])
    page, more = _page(seqs, limit)
    last = page[-1] if page else after
    view.change = [row for row in view.change if row["seq"] <= last]
    view.drift = [row for row in view.drift if row["seq"] <= last]
    return schemas.SessionRows.model_validate(view.as_dict(rows=True) | {"after": after, "next": last, "more": more})


def session_list(q: queries.SessionsQuery) -> schemas.SessionList:
    found = session_selectors.recent(
        limit=q.limit + 1, state=q.state, actor=q.actor, notebook=q.notebook, before=q.after
    )
    page, more = _page(found, q.limit)
    last = page[-1].session.pk if page else q.after
    sessions = [view.as_dict() for view in page]
    return schemas.SessionList.model_validate({"sessions": sessions, "after": q.after, "next": last, "more": more})


def title_of(value: str) -> str:
    """A title a notebook could have; any other names no notebook."""
    if not isinstance(value, str) or not schemas.TITLE.fullmatch(value):
        raise NotFound(f"No notebook is titled {value!r}.")
    return value


def merged(done: services.Written) -> schemas.Merged:
    """A merge's answer: the new line, its add row as `seq` (as every write names its row), and every row written."""
    seqs = list(done.seqs)
    return schemas.Merged(n=done.n, seq=seqs[0], seqs=seqs)


# The answers of the other writes, the API's and MCP's alike, read from the core's results by their fields' names.
written = schemas.Written.model_validate  # an edit's, a retire's or a redaction's: the line and its last row
taken = schemas.Taken.model_validate
checkpointed = schemas.Checkpointed.model_validate
landed = schemas.Landed.model_validate


def abandoned(done: session_services.Abandoned) -> schemas.Abandoned:
    return schemas.Abandoned(id=done.id, result="abandoned", head=done.head, rows=done.rows, drift=done.drift)
