"""The MCP server (official `mcp` SDK, stdio): the same reads and writes as the API, for one actor.

Started with `python manage.py notebook mcp --actor NAME`. Tools run in the SDK's worker threads, so each call
closes its thread's database connection when done.
"""

import functools
from collections.abc import Callable
from typing import Annotated, Any

from django.db import close_old_connections, connections
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from notebooks.log import checks, selectors, services
from notebooks.log.checks import MAX_ID, MAX_NUMBER, is_storable
from notebooks.log.errors import NotebookError
from notebooks.log.roles import Actor
from notebooks.log.rowformat import GAME_ONLY
from notebooks.models import Notebook
from notebooks.sessions import claims as session_claims
from notebooks.sessions import selectors as session_selectors
from notebooks.sessions import services as sessions

# Bounds the database can hold: a larger number is refused as bad arguments, never sent to SQL.
LineNumber = Annotated[int, Field(ge=1, le=MAX_NUMBER)]
SessionId = Annotated[int, Field(ge=1, le=MAX_ID)]
Seq = Annotated[int, Field(ge=1, le=MAX_ID)]


def _tool(fn: Callable) -> Callable:
    """A refusal reaches the model as a tool error naming its code; nothing else of the server leaks."""

    @functools.wraps(fn)
    def inner(*args: Any, **kwargs: Any) -> Any:
        check_text_arguments(kwargs)
        close_old_connections()
        try:
            return fn(*args, **kwargs)
        except NotebookError as exc:
            raise ToolError(f"{exc.code} ({exc.status}): {exc.message}") from None
        finally:
            connections.close_all()

    return inner


def check_text_arguments(arguments: dict[str, Any]) -> None:
    """Text the database could not store (a lone surrogate) is refused before any query."""
    for name, value in arguments.items():
        if isinstance(value, str) and not is_storable(value):
            raise ToolError(f"'{name}' is not valid Unicode text (a lone surrogate).")


def _until(value: str | None) -> float | None:
    if value is None or value == "":
        return None
    try:
        return checks.parse_when(value)
    except (OverflowError, ValueError, OSError):
        raise ToolError(f"{value!r} is not a time: give ISO 8601 (2026-11-12T09:30) or epoch seconds.") from None


def build(actor: Actor) -> MCPServer:
    server = MCPServer(
        name="notebooks",
        instructions=f"Pippa's notebooks, one per game, append-only; you act as {actor.name} ({actor.role}). "
        + GAME_ONLY,
    )

    @server.tool(description="The notebooks: each title, its head seq and the session that claims it, if any.")
    @_tool
    def notebooks() -> dict[str, Any]:
        claims = {s.notebook_id: s for s in session_claims.open_sessions()}
        heads = session_selectors.heads()
        found = []
        for nb in Notebook.objects.order_by("title"):
            claim = claims.get(nb.pk)
            found.append({"title": nb.title, "head": heads.get(nb.pk, 0), "claimed_by": claim.actor if claim else None})
        return {"notebooks": found}

    @server.tool(
        description="The live lines of a notebook in number order, each with n, text, source, by, at and seq; with "
        "'until' (ISO 8601 or epoch seconds) as the notebook stood then. The answer names the seq and hash read."
    )
    @_tool
    def view(notebook: str, until: str | None = None) -> dict[str, Any]:
        nb = selectors.get_notebook(notebook)
        read = selectors.pinned_view(nb, until=_until(until))
        return {
            "notebook": nb.title,
            "seq": read.seq,
            "hash": read.hash,
            "lines": [line.as_dict() for line in read.lines],
        }

    @server.tool(
        description="The text a play turn carries: a header naming the notebook and the time it stands at, then "
        "Dad's corrections, his other lines, then yours, each tagged with its number and source.",
        structured_output=False,
    )
    @_tool
    def turn(notebook: str, until: str | None = None) -> str:
        return selectors.turn(selectors.get_notebook(notebook), until=_until(until))

    @server.tool(description="Every text line n has had, who changed it, when and why.")
    @_tool
    def history(notebook: str, n: LineNumber) -> dict[str, Any]:
        nb = selectors.get_notebook(notebook)
        return {"notebook": nb.title, "n": n, "entries": [e.as_dict() for e in selectors.history(nb, n)]}

    @server.tool(
        description="Add a line: source 'seen' (you saw it happen) or 'guessed'; 'why' says on what evidence. "
        + GAME_ONLY
    )
    @_tool
    def add(notebook: str, text: str, why: str, source: str = "seen") -> dict[str, Any]:
        written = services.add(notebook=notebook, text=text, source=source, by=actor, why=why)
        return {"n": written.n, "seq": written.seq}

    @server.tool(
        description="Give line n new words under the same number; 'expected' is the seq of the line's last row as "
        "you read it (a stale edit is refused). Dad's lines are his to change. " + GAME_ONLY
    )
    @_tool
    def edit(notebook: str, n: LineNumber, to: str, why: str, expected: Seq | None = None) -> dict[str, Any]:
        written = services.edit(notebook=notebook, n=n, to=to, by=actor, why=why, expected=expected)
        return {"n": written.n, "seq": written.seq}

    @server.tool(
        description="Retire line n (a strike row; its history stays), with a reason; 'into' names the line that "
        "now says it."
    )
    @_tool
    def retire(notebook: str, n: LineNumber, why: str, into: LineNumber | None = None) -> dict[str, Any]:
        written = services.retire(notebook=notebook, n=n, by=actor, why=why, into=into)
        return {"n": written.n, "seq": written.seq}

    @server.tool(description="Write one line for several and retire them into it. " + GAME_ONLY)
    @_tool
    def merge(notebook: str, numbers: list[LineNumber], text: str, why: str) -> dict[str, Any]:
        written = services.merge(notebook=notebook, numbers=numbers, text=text, by=actor, why=why)
        return {"n": written.n, "seqs": list(written.seqs)}

    @server.tool(
        description="Take a session on a notebook before changing it: pending drift is recorded, then base is "
        "fixed at its head. While it is open, your writes belong to it and writes under any other title are refused."
    )
    @_tool
    def take(notebook: str, plan: str) -> dict[str, Any]:
        taken = sessions.take(notebook=notebook, plan=plan, by=actor)
        return {"id": taken.id, "notebook": taken.notebook, "base": taken.base, "drift": taken.drift}

    @server.tool(description="Checkpoint an open session: recovery evidence only; it moves no base.")
    @_tool
    def checkpoint(session: SessionId, note: str) -> dict[str, Any]:
        done = sessions.checkpoint(session=session, note=note, by=actor)
        return {"id": done.id, "base": done.base, "head": done.head}

    @server.tool(
        description="Land a session: its rows become one semantic change (no-op when it wrote nothing). Final "
        "gates compare with the base; a refused land stays open and says why."
    )
    @_tool
    def land(session: SessionId, summary: str | None = None) -> dict[str, Any]:
        done = sessions.land(session=session, summary=summary, by=actor)
        return {"id": done.id, "result": done.result, "rows": done.rows, "drift": done.drift}

    @server.tool(description="Abandon a session without a semantic change; its rows stay in the log.")
    @_tool
    def abandon(session: SessionId, why: str) -> dict[str, Any]:
        done = sessions.abandon(session=session, why=why, by=actor)
        return {"id": done.id, "result": "abandoned", "rows": done.rows}

    return server


def serve(actor: Actor) -> None:
    build(actor).run("stdio")
