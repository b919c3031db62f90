"""The MCP server (`notebook mcp --actor NAME`, stdio): the API's reads and writes for one actor, calling what the API
calls (answers.py, writes.py)."""

import functools
import inspect
from collections.abc import Callable
from typing import Any, Literal

from django.db import close_old_connections, connections
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from notebooks.agents import answers, idempotency, paging, writes
from notebooks.agents import bodies as b
from notebooks.agents import operation_texts as said
from notebooks.agents import schemas as s
from notebooks.agents.mcp_strict import refusal, refused, strict_tool
from notebooks.log.files.rowformat import GAME_ONLY
from notebooks.log.identity.roles import Actor, actor_named
from notebooks.log.rules import checks
from notebooks.log.rules.errors import Forbidden, NotebookError
from notebooks.log.store.storage import unavailable
from notebooks.sessions import leases
from notebooks.version import VERSION

# A tool's arguments are JSON: epoch seconds may come as the number an answer's 'until' gave.
Until = s.described(str | float | None, s.UNTIL)
Expected = s.described(s.Seq | None, f"{b.EXPECTED}: a stale change is refused.")
Into = s.described(s.LineNumber | None, "The line that now says what this one said.")
# Every list pages as the API's do (paging.py): the cursor `after`, `limit`, and `next` in the answer.
NotebooksAfter, NotebooksLimit = paging.tool_after("notebooks"), paging.tool_limit("notebooks")
LinesAfter, LinesLimit = paging.tool_after("lines"), paging.tool_limit("lines")
RowsAfter, RowsLimit = paging.tool_after("rows"), paging.tool_limit("rows")
SessionsAfter, SessionsLimit = paging.tool_after("sessions"), paging.tool_limit("sessions")
SessionRowsAfter, SessionRowsLimit = paging.tool_after("session"), paging.tool_limit("change and drift rows")
Source = s.described(s.SourceName, "Where the line comes from: seen (you saw it happen) or guessed (a hunch to check).")
MergedSource = s.described(
    s.SourceName | None,
    "The merged line's source; without it, an agent's merge is seen when any merged line was seen, else guessed.",
)
Version = s.described(s.Seq, "The row of the line's history whose words it should say again (history's 'seq').")
InSession = s.described(
    s.SessionId | None,
    "The session this write must go into (your open one on this notebook): refused if closed, lapsed, another's "
    "or on another notebook. Without it the write goes into your open session on the notebook, if any; the answer "
    "names the session it went into.",
)
SearchWords = s.described(
    str, "A line number, or the words to look for.", s.Findable, min_length=1, max_length=b.SEARCH_LONGEST
)
Match = s.described(Literal["all", "any"], "Lines holding all of the words, or any of them.")
SessionState = s.described(Literal[s.STATES] | None, "Only the sessions in this state.")  # type: ignore[valid-type]
ProposalSeq = s.described(s.Seq, "The proposal to take back: the seq its write answered.")
OldTo = s.described(s.Words | None, f"{b.DEPRECATED}the new words; send them as 'text'.")


# The arguments naming a notebook, a line or a session: one naming nothing (a title no notebook could have, a number
# out of range) is a 404 on the API, so it is not_found here too.
IN_PATH = {"notebook": s.Title, "n": s.LineNumber, "session": s.SessionId}

PAGED = (
    f"Paged as every list: 'limit' a page ({paging.PAGE} when not given, at most {paging.PAGE_MAX}), after the cursor "
    "'after' (none for the first page); send the answer's 'next' as 'after' for the following page (null: nothing "
    "is left)."
)


def _tool(fn: Callable, actor: Actor | None = None) -> Callable:
    """A refusal as a tool error with the API's error object; nothing else leaks. A call renews the actor's lease.
    A process started as the editor acts only while he holds the role, asked at every call (a token is read as an
    agent's once he lost it; this process was offered the editor's tools, so it stops instead)."""

    @functools.wraps(fn)
    def inner(*args: Any, **kwargs: Any) -> Any:
        close_old_connections()
        try:
            if actor is not None and actor.editor and not actor_named(actor.name).editor:
                raise Forbidden(
                    f"{actor.name} no longer holds the human editor's role: restart `notebook mcp` without --editor "
                    "to act as an agent."
                )
            if actor is not None:
                leases.renew_calls_of(actor.name)
            return fn(*args, **kwargs)
        except NotebookError as exc:
            return refusal(exc)
        except Exception as exc:
            message = unavailable(exc)
            if message is None:
                raise
            return refused("unavailable", 503, message)  # as the API answers it
        finally:
            connections.close_all()  # tools run in the SDK's worker threads

    return inner


class NotebookServer(MCPServer):
    """The SDK's server, answering an unknown tool as a refusal naming the tools."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if self._tool_manager.get_tool(name) is None:
            names = sorted(tool.name for tool in self._tool_manager.list_tools())
            return refused(
                "not_found",
                404,
                f"No tool is named {checks.quoted(name)}; the tools are {', '.join(names)}.",
                tools=names,
            )
        return await super().call_tool(name, arguments, context)


def build(actor: Actor) -> MCPServer:
    """The tools for one actor: an agent is offered only the sources it may write (seen, guessed)."""
    # The schema offers an agent only seen and guessed; another source sent anyway is the API's 403, not a 400.
    offered = {} if actor.editor else {"source": list(s.AgentSource.__args__)}
    tools = []

    def tool(
        description: str, *, keyed: bool = False, joins: bool = False, adds_rows: bool = False, **schema: Any
    ) -> Callable:
        """A tool; a write is `keyed` (an idempotency_key argument), a session's `joins` its transaction; every
        other tool only reads unless it `adds_rows`."""

        def register(fn: Callable) -> Callable:
            keyed_fn = idempotency.tool(fn, actor, joins=joins) if keyed or joins else fn
            given = inspect.signature(fn).parameters
            path = tuple(name for name, kind in IN_PATH.items() if name in given and given[name].annotation is kind)
            # Append-only: a write adds rows and destroys nothing (a retired line is restored, a session's rows kept).
            writes_rows = adds_rows or keyed or joins
            hints = ToolAnnotations(
                read_only_hint=not writes_rows, destructive_hint=False if writes_rows else None, open_world_hint=False
            )
            tools.append(strict_tool(_tool(keyed_fn, actor), description, path=path, annotations=hints, **schema))
            return fn

        return register

    @tool(said.NOTEBOOKS.whole + " " + PAGED)
    def notebooks(after: NotebooksAfter = None, limit: NotebooksLimit = paging.PAGE) -> s.NotebookList:
        return answers.notebook_list(after, limit)  # "" reads as no cursor, as the API's ?after= does

    @tool(said.CREATE.whole, adds_rows=True)
    def create(title: s.Title) -> s.NotebookItem:
        return writes.create(title=title, by=actor)

    @tool(said.LINES.whole + " " + PAGED)
    def view(
        notebook: s.Title, until: Until = None, after: LinesAfter = None, limit: LinesLimit = paging.PAGE
    ) -> s.Lines:
        return answers.lines(notebook, until, after, limit, reader=actor)

    @tool(said.TURN.whole)
    def turn(notebook: s.Title, until: Until = None) -> s.Turn:
        return answers.turn(notebook, until, actor)

    @tool(said.LINE.whole)
    def line(notebook: s.Title, n: s.LineNumber, until: Until = None) -> s.OneLine:
        return answers.line(notebook, n, until, reader=actor)

    @tool(said.SEARCH.whole + " " + PAGED)
    def search(
        notebook: s.Title, q: SearchWords, match: Match = "all", until: Until = None, after: LinesAfter = None,
        limit: LinesLimit = paging.PAGE,
    ) -> s.Lines:  # fmt: skip
        return answers.lines(notebook, until, after, limit, reader=actor, q=q, match=match)

    @tool(said.ROWS.whole + " " + PAGED)
    def rows(notebook: s.Title, after: RowsAfter = None, limit: RowsLimit = paging.PAGE) -> s.Rows:
        return answers.rows(notebook, after, limit)

    @tool(said.SESSIONS.whole + " " + PAGED)
    def sessions(
        state: SessionState = None, actor: s.ActorName = None, notebook: s.NotebookTitle = None,
        after: SessionsAfter = None, limit: SessionsLimit = paging.PAGE,
    ) -> s.SessionList:  # fmt: skip
        return answers.session_list(state=state, actor=actor, notebook=notebook, after=after, limit=limit)

    @tool(said.SESSION.whole + " " + PAGED)
    def session(
        session: s.SessionId, after: SessionRowsAfter = None, limit: SessionRowsLimit = paging.PAGE
    ) -> s.SessionRows:
        return answers.session(session, after, limit)

    @tool(said.HISTORY.whole)
    def history(notebook: s.Title, n: s.LineNumber) -> s.History:
        return answers.history(notebook, n)

    @tool(said.ADD.whole, offered=offered, keyed=True)
    def add(
        notebook: s.Title, text: s.Words, why: s.Why, source: Source = "seen", session: InSession = None
    ) -> s.Added:
        return writes.add(notebook=notebook, text=text, source=source, why=why, session=session, by=actor)

    @tool(said.EDIT.whole, required=("text",), keyed=True)
    def edit(
        notebook: s.Title, n: s.LineNumber, why: s.Why, text: s.Words | None = None, to: OldTo = None,
        expected: Expected = None, session: InSession = None,
    ) -> s.Written:  # fmt: skip
        return writes.edit(
            notebook=notebook, n=n, why=why, text=text, to=to, expected=expected, session=session, by=actor
        )

    @tool(said.RETIRE.whole, keyed=True)
    def retire(
        notebook: s.Title, n: s.LineNumber, why: s.Why, into: Into = None, expected: Expected = None,
        session: InSession = None,
    ) -> s.Written:  # fmt: skip
        return writes.retire(notebook=notebook, n=n, why=why, into=into, expected=expected, session=session, by=actor)

    @tool(said.RESTORE.whole, keyed=True)
    def restore(notebook: s.Title, n: s.LineNumber, why: s.Why, session: InSession = None) -> s.Written:
        return writes.restore(notebook=notebook, n=n, why=why, session=session, by=actor)

    @tool(said.PUT_BACK.whole, keyed=True)
    def put_back(
        notebook: s.Title, n: s.LineNumber, seq: Version, why: s.Why, expected: Expected = None,
        session: InSession = None,
    ) -> s.Written:  # fmt: skip
        return writes.put_back(notebook=notebook, n=n, seq=seq, why=why, expected=expected, session=session, by=actor)

    @tool(said.MERGE.whole, keyed=True)
    def merge(
        notebook: s.Title, numbers: s.Numbers, text: s.Words, why: s.Why, source: MergedSource = None,
        session: InSession = None,
    ) -> s.Merged:  # fmt: skip
        return writes.merge(
            notebook=notebook, numbers=numbers, text=text, why=why, source=source, session=session, by=actor
        )

    @tool(said.SUGGEST.whole, keyed=True)
    def suggest(
        notebook: s.Title, lines: s.SuggestedLines, kind: s.Kind, why: s.Why, words: s.KeepWords = None,
        keep: s.KeepLine = None,
    ) -> s.Suggested:  # fmt: skip
        return writes.suggest(notebook=notebook, lines=lines, kind=kind, why=why, words=words, keep=keep, by=actor)

    @tool(said.TAKE.whole, joins=True)
    def take(notebook: b.TakeTitle, plan: s.Plan) -> s.Taken:
        return writes.take(notebook=notebook, plan=plan, by=actor)

    @tool(said.CHECKPOINT.whole, joins=True)
    def checkpoint(session: s.SessionId, note: s.Note) -> s.Checkpointed:
        return writes.checkpoint(session=session, note=note, by=actor)

    @tool(said.LAND.whole, required=("summary",), joins=True)
    def land(session: s.SessionId, summary: s.Summary | None = None) -> s.Landed:
        return writes.land(session=session, summary=summary, by=actor)

    @tool(said.WITHDRAW.whole, joins=True)
    def withdraw(session: s.SessionId, seq: ProposalSeq, why: s.Why) -> s.Withdrawn:
        return writes.withdraw(session=session, seq=seq, why=why, by=actor)

    @tool(said.ABANDON.whole, joins=True)
    def abandon(session: s.SessionId, why: s.Why) -> s.Abandoned:
        return writes.abandon(session=session, why=why, by=actor)

    return NotebookServer(
        name="notebooks",
        version=VERSION,
        instructions=f"Pippa's notebooks, one per game, append-only; you act as {actor.name} ({actor.role}). "
        + GAME_ONLY,
        tools=tools,
    )


def serve(actor: Actor) -> None:
    build(actor).run("stdio")
