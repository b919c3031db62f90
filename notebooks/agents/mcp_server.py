"""The MCP server (official `mcp` SDK, stdio): the same reads and writes as the API, for one actor, taking the same
field types and answering the same models (schemas.py, answers.py), so a meaning has one shape on both sides.

Started with `python manage.py notebook mcp --actor NAME`. Tools run in the SDK's worker threads, so each call
closes its thread's database connection when done.
"""

import functools
import json
from collections.abc import Callable
from typing import Any

from django.db import close_old_connections, connections
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from notebooks.agents import answers, idempotency
from notebooks.agents import schemas as s
from notebooks.log import services
from notebooks.log.checks import is_storable
from notebooks.log.errors import STORAGE_FULL, NotebookError, storage_full
from notebooks.log.roles import Actor
from notebooks.log.rowformat import GAME_ONLY
from notebooks.sessions import leases
from notebooks.sessions import services as sessions


def _tool(fn: Callable) -> Callable:
    """A refusal reaches the model as a tool error naming its code and status; nothing else of the server leaks."""

    @functools.wraps(fn)
    def inner(*args: Any, **kwargs: Any) -> Any:
        check_text_arguments(kwargs)
        close_old_connections()
        try:
            return fn(*args, **kwargs)
        except NotebookError as exc:
            raise ToolError(refusal_text(exc)) from None
        except Exception as exc:
            if storage_full(exc):  # as the API answers it: 503, nothing written, try again later
                raise ToolError(f"unavailable (503): {STORAGE_FULL}") from None
            raise
        finally:
            connections.close_all()

    return inner


def refusal_text(exc: NotebookError) -> str:
    """A refusal as the model reads it: its code and status, its message, then the fields it names (as JSON)."""
    fields = dict(exc.details)
    if exc.retry_after is not None:
        fields["retry_after"] = exc.retry_after
    named = f" {json.dumps(fields, ensure_ascii=False, sort_keys=True)}" if fields else ""
    return f"{exc.code} ({exc.status}): {exc.message}{named}"


def _renewing(actor: Actor, register: Callable[..., Callable]) -> Callable[..., Callable]:
    """server.tool, each tool's call first renewing the lease of the actor's open session (any call of its own)."""
    renew = _tool(lambda: leases.renew_calls_of(actor.name))

    def tool(**options: Any) -> Callable[[Callable], Callable]:
        def decorate(fn: Callable) -> Callable:
            @functools.wraps(fn)
            def inner(*args: Any, **kwargs: Any) -> Any:
                renew()
                return fn(*args, **kwargs)

            return register(**options)(inner)

        return decorate

    return tool


def check_text_arguments(arguments: dict[str, Any]) -> None:
    """Text the database could not store (a lone surrogate) is refused before any query."""
    for name, value in arguments.items():
        if isinstance(value, str) and not is_storable(value):
            raise ToolError(f"'{name}' is not valid Unicode text (a lone surrogate).")


def build(actor: Actor) -> MCPServer:
    server = MCPServer(
        name="notebooks",
        instructions=f"Pippa's notebooks, one per game, append-only; you act as {actor.name} ({actor.role}). "
        + GAME_ONLY,
    )
    tool = _renewing(actor, server.tool)

    @tool(description="The notebooks: each title, its head seq and the session that claims it, if any.")
    @_tool
    def notebooks() -> s.NotebookList:
        return answers.notebook_list()

    @tool(
        description="The live lines of a notebook in number order, each with n, text, source, by, at and seq; with "
        "'until' (ISO 8601 or epoch seconds) as the notebook stood then. The answer names the seq and hash read."
    )
    @_tool
    def view(notebook: s.Title, until: str | None = None) -> s.Lines:
        return answers.lines(notebook, until)

    @tool(
        description="The text a play turn carries: a header naming the notebook and the time it stands at, then "
        "Dad's corrections, his other lines, then yours, each tagged with its number and source."
    )
    @_tool
    def turn(notebook: s.Title, until: str | None = None) -> s.Turn:
        return answers.turn(notebook, until, actor)

    @tool(description="Every text line n has had, who changed it, when and why.")
    @_tool
    def history(notebook: s.Title, n: s.LineNumber) -> s.History:
        return answers.history(notebook, n)

    @tool(
        description="Add a line: source 'seen' (you saw it happen) or 'guessed'; 'why' says on what evidence. "
        + GAME_ONLY
    )
    @_tool
    @idempotency.tool(actor, "add")
    def add(notebook: s.Title, text: s.Words, why: s.Why, source: s.SourceName = "seen") -> s.Added:
        done = services.add(notebook=notebook, text=text, source=source, by=actor, why=why)
        return answers.added(notebook, done.n, done.seq, text)

    @tool(
        description="Give line n new words under the same number; 'expected' is the seq of the line's last row as "
        "you read it (a stale edit is refused). Dad's lines are his to change. " + GAME_ONLY
    )
    @_tool
    @idempotency.tool(actor, "edit")
    def edit(notebook: s.Title, n: s.LineNumber, to: s.Words, why: s.Why, expected: s.Seq | None = None) -> s.Written:
        done = services.edit(notebook=notebook, n=n, to=to, by=actor, why=why, expected=expected)
        return s.Written(n=done.n, seq=done.seq)

    @tool(
        description="Retire line n (a strike row; its history stays), with a reason; 'into' names the line that "
        "now says it."
    )
    @_tool
    @idempotency.tool(actor, "retire")
    def retire(
        notebook: s.Title, n: s.LineNumber, why: s.Why, into: s.LineNumber | None = None, expected: s.Seq | None = None
    ) -> s.Written:
        done = services.retire(notebook=notebook, n=n, by=actor, why=why, into=into, expected=expected)
        return s.Written(n=done.n, seq=done.seq)

    @tool(description="Write one line for several and retire them into it. " + GAME_ONLY)
    @_tool
    @idempotency.tool(actor, "merge")
    def merge(notebook: s.Title, numbers: s.Numbers, text: s.Words, why: s.Why) -> s.Merged:
        done = services.merge(notebook=notebook, numbers=numbers, text=text, by=actor, why=why)
        return s.Merged(n=done.n, seqs=list(done.seqs))

    @tool(
        description="Take a session on a notebook before changing it: pending drift is recorded, then base is "
        "fixed at its head. While it is open, your writes belong to it and writes under any other title are refused."
    )
    @_tool
    @idempotency.tool(actor, "take", joins=True)
    def take(notebook: s.Title, plan: s.Words) -> s.Taken:
        return idempotency.joined(
            lambda: sessions.take(notebook=notebook, plan=plan, by=actor),
            lambda taken: s.Taken(id=taken.id, notebook=taken.notebook, base=taken.base, drift=taken.drift),
        )

    @tool(description="Checkpoint an open session: recovery evidence only; it moves no base.")
    @_tool
    @idempotency.tool(actor, "checkpoint", joins=True)
    def checkpoint(session: s.SessionId, note: s.Why) -> s.Checkpointed:
        return idempotency.joined(
            lambda: sessions.checkpoint(session=session, note=note, by=actor),
            lambda done: s.Checkpointed(id=done.id, base=done.base, head=done.head),
        )

    @tool(
        description="Land a session: its rows become one semantic change (no-op when it wrote nothing). Final "
        "gates compare with the base; a refused land stays open and says why."
    )
    @_tool
    @idempotency.tool(actor, "land", joins=True)
    def land(session: s.SessionId, summary: s.Words | None = None) -> s.Landed:
        return idempotency.joined(
            lambda: sessions.land(session=session, summary=summary, by=actor),
            lambda done: s.Landed.model_validate(done, from_attributes=True),
        )

    @tool(description="Abandon a session without a semantic change; its rows stay in the log.")
    @_tool
    @idempotency.tool(actor, "abandon", joins=True)
    def abandon(session: s.SessionId, why: s.Why) -> s.Abandoned:
        return idempotency.joined(
            lambda: sessions.abandon(session=session, why=why, by=actor),
            lambda done: s.Abandoned(id=done.id, result="abandoned", head=done.head, rows=done.rows, drift=done.drift),
        )

    return server


def serve(actor: Actor) -> None:
    build(actor).run("stdio")
