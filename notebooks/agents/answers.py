"""What the API and the MCP tools answer (schemas.py), built once from the core's results so both say it alike."""

import json
from typing import Any

from ninja.responses import NinjaJSONEncoder
from pydantic import BaseModel

from notebooks.agents import paging, schemas
from notebooks.log import services
from notebooks.log.identity.roles import Actor
from notebooks.log.rules import checks
from notebooks.log.rules.errors import Invalid, NotFound
from notebooks.log.views import matching, selectors, turn_reads
from notebooks.models import Notebook, Session
from notebooks.sessions import claims as session_claims
from notebooks.sessions import leases as session_leases
from notebooks.sessions import reads as session_reads
from notebooks.sessions import selectors as session_selectors
from notebooks.sessions import services as session_services
from notebooks.similar import selectors as similar_selectors

CONTENT_TYPE = "application/json; charset=utf-8"  # ninja's, as it renders every other answer


def rendered(answer: Any) -> str:
    """An answer as the JSON ninja renders it: a model dumped, then ninja's encoder."""
    return json.dumps(answer.model_dump() if isinstance(answer, BaseModel) else answer, cls=NinjaJSONEncoder)


def until_of(raw: str | float | None) -> float | None:
    """A time to read at: ISO 8601 or epoch seconds (a tool's may be a number); none when not given."""
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str):
        raw = repr(float(raw))
    try:
        value = checks.parse_when(raw)
    except (Invalid, OverflowError, ValueError, OSError):
        said = f"{checks.quoted(raw)} is not a time: give ISO 8601 (2026-11-12T09:30) or epoch seconds."
        raise Invalid(said, fields=["until"]) from None
    return checks.check_past(value, fields=["until"])  # finite: parse_when refuses nan and inf


def notebook_list(after: str | None = None, limit: int = paging.PAGE) -> schemas.NotebookList:
    """The notebooks by title, after the title `after`, `limit` of them."""
    claims = {s.notebook_id: s for s in session_claims.open_sessions()}
    heads = {found.id: found.head.seq for found in selectors.notebook_heads()}
    found = Notebook.objects.order_by("title")
    if after is not None:
        found = found.filter(title__gt=after)
    page, more = paging.page(list(found[: limit + 1]), limit)
    items = []
    for nb in page:
        claim = claims.get(nb.pk)
        session = schemas.Claim(id=claim.pk, actor=claim.actor) if claim else None
        items.append(schemas.NotebookItem(title=nb.title, head=heads.get(nb.pk, 0), session=session))
    last = items[-1].title if items else after
    return schemas.NotebookList(notebooks=items, **paging.cursors("notebooks", after, last, more))


def lines(
    title: str,
    until: str | float | None,
    after: int | None = None,
    limit: int | None = paging.PAGE,
    reader: Actor | None = None,
    q: str | None = None,
    match: str = "all",
) -> schemas.Lines:
    """The lines the reader sees (her own view while she holds a session); with `q`, those the card's search finds."""
    nb = selectors.get_notebook(title)
    at = until_of(until)
    read = selectors.pinned_view(nb, until=at)
    mine = session_reads.held(nb, reader) if at is None else None
    lapsed: tuple[list, set[int]] = ([], set())
    if mine is not None and mine.state == "open":  # read your own writes: her proposals, as the ops they propose
        read = selectors.PinnedView(read.seq, read.hash, session_reads.holder_lines(nb, read.lines, mine.session))
    elif mine is not None:  # a lapsed session's changes are listed apart, not silently gone
        lapsed = session_reads.pending_change(nb, read.lines, mine.session)
    if q is not None:  # as the card's search: the line a number names, or those holding all (or any) of the words
        query = matching.parse(q, match)
        if query.number is not None:
            hits = [x for x in read.lines if x.n == query.number]
        else:
            hits = matching.search(read.lines, query)
        read = selectors.PinnedView(read.seq, read.hash, hits)
    found, more = paging.page([line.as_dict() for line in read.lines if line.n > (after or 0)], limit)
    last = found[-1]["n"] if found else after
    return schemas.Lines.model_validate(
        {"notebook": nb.title, "until": at, "seq": read.seq, "hash": read.hash, "lines": found}
        | paging.cursors("lines", after, last, more)
        | {"session": _session(mine), **_lapsed(*lapsed)}
    )


def _lapsed(changed: list, retired: set[int]) -> dict:
    return {"lapsed": [x.as_dict() for x in changed], "lapsed_retired": sorted(retired)}


def line(title: str, n: int, until: str | float | None = None, reader: Actor | None = None) -> schemas.OneLine:
    """One live line as the reader sees it; a line that is not live (never written, retired, merged) is 404."""
    read = lines(title, until, limit=None, reader=reader)
    found = next((x for x in read.lines if x.n == n), None)
    if found is None:
        raise NotFound(f"Line #{n} of {read.notebook!r} is not live; its history tells what became of it.")
    return schemas.OneLine(
        notebook=read.notebook, until=read.until, seq=read.seq, hash=read.hash, line=found, session=read.session
    )


def _session(mine: "session_reads.Held | None") -> schemas.HeldSession | None:
    return None if mine is None else schemas.HeldSession(**mine.as_dict())


def added(title: str, n: int, seq: int, text: str, reader: "Actor | str | None" = None) -> schemas.Added:
    """An add's answer: its number and seq, its session, and the live lines most like it (a hint, never a refusal)."""
    nb = selectors.get_notebook(title)
    own = session_reads.own_session(nb, reader)
    pending, hidden = ([], set()) if own is None else session_reads.pending_change(nb, selectors.view(nb), own)
    near = similar_selectors.nearest_for(nb, text, exclude=n, pending=pending, hidden=hidden)
    similar = [schemas.Near(n=x["n"], score=round(x["score"], 2)) for x in near]
    return schemas.Added(n=n, seq=seq, session=_went_into(own), similar=similar)


def _went_into(own: "Session | None") -> schemas.HeldSession | None:
    """The session a write just went into (the writer's open one on that notebook), told in every write's answer."""
    if own is None:
        return None
    return schemas.HeldSession(id=own.pk, state="open", lease_until=session_leases.lapses_at(own))


def went_into(title: str, reader: Actor) -> schemas.HeldSession | None:
    return _went_into(session_reads.own_session(selectors.get_notebook(title), reader))


def turn(title: str, until: str | float | None, reader: Actor | str) -> schemas.Turn:
    nb = selectors.get_notebook(title)
    at = until_of(until)
    mine = session_reads.held(nb, reader) if at is None else None
    if mine is not None and mine.state == "open":  # read your own writes: the holder's turn has her proposals
        text, lapsed = session_reads.holder_turn(nb, mine.session), ([], set())
    else:
        text = selectors.turn(nb, until=at)
        lapsed = ([], set()) if mine is None else session_reads.pending_change(nb, selectors.view(nb), mine.session)
    answer = schemas.Turn(notebook=nb.title, until=at, text=text, session=_session(mine), **_lapsed(*lapsed))
    if at is None:  # a frozen reader (a benchmark) reads the past; the index tells which notebooks play turns read
        turn_reads.note_turn_read(nb, reader)
    return answer


def history(title: str, n: int) -> schemas.History:
    nb = selectors.get_notebook(title)
    entries = [e.as_dict() for e in selectors.history(nb, n)]
    return schemas.History.model_validate({"notebook": nb.title, "n": n, "entries": entries})


def rows(title: str, after: int | None = None, limit: int = paging.PAGE) -> schemas.Rows:
    """Raw rows after seq `after`, in the export format, `limit` of them: what a follower mirrors."""
    nb = selectors.get_notebook(title)
    found = list(selectors.rows(nb, after=min(after or 0, selectors.ALL), limit=limit + 1))
    page, more = paging.page(found, limit)
    last = page[-1]["seq"] if page else after
    cursor = paging.cursors("rows", after, last, more)
    return schemas.Rows.model_validate({"notebook": nb.title, "rows": page, **cursor})


def session(session_id: int, after: int | None = None, limit: int = paging.PAGE) -> schemas.SessionRows:
    """A session with a page of its rows: change and drift together in log order, `limit` of them after seq `after`."""
    found = session_selectors.get_session(session_id)
    view = session_selectors.describe(found, rows=True, limit=limit + 1, after=after or 0)
    seqs = sorted(row["seq"] for row in [*view.change, *view.drift])
    page, more = paging.page(seqs, limit)
    last = page[-1] if page else after
    view.change = [row for row in view.change if row["seq"] <= (last or 0)]
    view.drift = [row for row in view.drift if row["seq"] <= (last or 0)]
    return schemas.SessionRows.model_validate(view.as_dict(rows=True) | paging.cursors("session", after, last, more))


def session_list(
    *,
    state: str | None = None,
    actor: str | None = None,
    notebook: str | None = None,
    after: int | None = None,
    limit: int = paging.PAGE,
) -> schemas.SessionList:
    """The sessions newest first, filtered when asked; `limit` of them older than session `after`."""
    found = session_selectors.recent(limit=limit + 1, state=state, actor=actor, notebook=notebook, before=after)
    page, more = paging.page(found, limit)
    last = page[-1].session.pk if page else after
    sessions = [view.as_dict() for view in page]
    return schemas.SessionList.model_validate({"sessions": sessions, **paging.cursors("sessions", after, last, more)})


def merged(done: services.Written, title: str, reader: Actor) -> schemas.Merged:
    """A merge's answer: the new line, its add row as `seq` (as every write names its row), and every row written."""
    seqs = list(done.seqs)
    return schemas.Merged(n=done.n, seq=seqs[0], seqs=seqs, session=went_into(title, reader))


def written(done: services.Written, title: str, reader: Actor) -> schemas.Written:
    """An edit's, a retire's, a restore's or a redaction's answer: the line, its last row, the session it went into."""
    return schemas.Written(n=done.n, seq=done.seq, session=went_into(title, reader))


# The answers of the session calls, the API's and MCP's alike, read from the core's results by their fields' names.
taken = schemas.Taken.model_validate
checkpointed = schemas.Checkpointed.model_validate
landed = schemas.Landed.model_validate
withdrawn = schemas.Withdrawn.model_validate


def abandoned(done: session_services.Abandoned) -> schemas.Abandoned:
    return schemas.Abandoned(id=done.id, result="abandoned", head=done.head, rows=done.rows, drift=done.drift)
