"""What the API and the MCP tools answer, built in one place from the core's results, so the same meaning has the
same shape on both sides (schemas.py)."""

import json
import math

from ninja.responses import NinjaJSONEncoder

from notebooks.agents import schemas
from notebooks.log import checks, reads, selectors
from notebooks.log.errors import Invalid, NotFound
from notebooks.log.roles import Actor
from notebooks.models import Notebook
from notebooks.sessions import claims as session_claims
from notebooks.sessions import selectors as session_selectors
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


def notebook_list() -> schemas.NotebookList:
    claims = {s.notebook_id: s for s in session_claims.open_sessions()}
    heads = session_selectors.heads()
    found = []
    for nb in Notebook.objects.order_by("title"):
        claim = claims.get(nb.pk)
        session = schemas.Claim(id=claim.pk, actor=claim.actor) if claim else None
        found.append(schemas.NotebookItem(title=nb.title, head=heads.get(nb.pk, 0), session=session))
    return schemas.NotebookList(notebooks=found)


def lines(title: str, until: str | None) -> schemas.Lines:
    nb = selectors.get_notebook(title)
    at = until_of(until)
    return _lines(nb, at, selectors.pinned_view(nb, until=at))


def _lines(nb: Notebook, at: float | None, read: selectors.PinnedView) -> schemas.Lines:
    found = [line.as_dict() for line in read.lines]
    return schemas.Lines.model_validate(
        {"notebook": nb.title, "until": at, "seq": read.seq, "hash": read.hash, "lines": found}
    )


def live_lines_json(title: str) -> str:
    """lines(title, None) as the API's JSON (ninja's encoder, as ninja renders it), made once per head and kept with
    the notebook's view: a warm read of 200 lines cost 1.9 ms of CPU made each time, 0.8 kept (bench/serve_cpu.py)."""
    nb = selectors.get_notebook(title)
    make = lambda read: json.dumps(_lines(nb, None, read).model_dump(), cls=NinjaJSONEncoder)  # noqa: E731
    return selectors.made_from_live(nb, "api.lines.json", make)


def added(title: str, n: int, seq: int, text: str) -> schemas.Added:
    """The answer to an add: its number and seq, and the live lines most like it (a hint, never a refusal)."""
    near = similar_selectors.nearest_for(selectors.get_notebook(title), text, exclude=n)
    return schemas.Added(n=n, seq=seq, similar=[schemas.Near(n=x["n"], score=round(x["score"], 2)) for x in near])


def turn(title: str, until: str | None, reader: "Actor | str") -> schemas.Turn:
    nb = selectors.get_notebook(title)
    at = until_of(until)
    answer = schemas.Turn(notebook=nb.title, until=at, text=selectors.turn(nb, until=at))
    if at is None:  # a frozen reader (a benchmark) reads the past; the index tells which notebooks play turns read
        reads.note_turn_read(nb, reader)
    return answer


def history(title: str, n: int) -> schemas.History:
    nb = selectors.get_notebook(title)
    entries = [e.as_dict() for e in selectors.history(nb, n)]
    return schemas.History.model_validate({"notebook": nb.title, "n": n, "entries": entries})


def session(session_id: int) -> schemas.SessionRows:
    found = session_selectors.get_session(session_id)
    return schemas.SessionRows.model_validate(session_selectors.describe(found, rows=True).as_dict(rows=True))


def title_of(value: str) -> str:
    """A title a notebook could have; any other names no notebook."""
    if not isinstance(value, str) or not schemas.TITLE.fullmatch(value):
        raise NotFound(f"No notebook is titled {value!r}.")
    return value
