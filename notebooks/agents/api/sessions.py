"""The API's sessions: list, read one with its rows, and its writes (writes.py's, as MCP's)."""

from django.http import HttpRequest
from ninja import Query

from notebooks.agents import answers, writes
from notebooks.agents import bodies as b
from notebooks.agents import operation_texts as said
from notebooks.agents import schemas as s
from notebooks.agents.api.operations import LISTED, PAGING, READ, TAKE, Routes

router = Routes(tags=["sessions"])


@router.get("/sessions", response={200: s.SessionList, **LISTED}, operation_id="listSessions",
            summary=said.SESSIONS.summary, description=said.SESSIONS.more + " " + PAGING)  # fmt: skip
def sessions(request: HttpRequest, q: Query[b.SessionsQuery]) -> s.SessionList:
    return answers.session_list(state=q.state, actor=q.actor, notebook=q.notebook, after=q.after, limit=q.limit)


@router.write("/sessions", {201: s.Taken}, refusals=TAKE, joins=True, operation_id="takeSession",
              summary=said.TAKE.summary, description=said.TAKE.more)  # fmt: skip
def take(request: HttpRequest, body: b.TakeIn) -> s.Taken:
    return writes.take(by=request.auth, **body.model_dump())


@router.get("/sessions/{session}", response={200: s.SessionRows, **READ}, operation_id="getSession",
            summary=said.SESSION.summary, description=said.SESSION.more + " " + PAGING)  # fmt: skip
def session(request: HttpRequest, session: s.PathSessionId, q: Query[b.SessionQuery]) -> s.SessionRows:
    return answers.session(session, q.after, q.limit)


@router.write("/sessions/{session}/checkpoint", {200: s.Checkpointed}, joins=True, operation_id="checkpointSession",
              summary=said.CHECKPOINT.summary, description=said.CHECKPOINT.more)  # fmt: skip
def checkpoint(request: HttpRequest, session: s.PathSessionId, body: b.CheckpointIn) -> s.Checkpointed:
    return writes.checkpoint(session=session, by=request.auth, **body.model_dump())


@router.write("/sessions/{session}/land", {200: s.Landed}, joins=True, operation_id="landSession",
              summary=said.LAND.summary, description=said.LAND.more)  # fmt: skip
def land(request: HttpRequest, session: s.PathSessionId, body: b.LandIn) -> s.Landed:
    return writes.land(session=session, by=request.auth, **body.model_dump())


@router.write("/sessions/{session}/abandon", {200: s.Abandoned}, joins=True, operation_id="abandonSession",
              summary=said.ABANDON.summary, description=said.ABANDON.more)  # fmt: skip
def abandon(request: HttpRequest, session: s.PathSessionId, body: b.AbandonIn) -> s.Abandoned:
    return writes.abandon(session=session, by=request.auth, **body.model_dump())


@router.write("/sessions/{session}/withdraw", {200: s.Withdrawn}, joins=True, operation_id="withdrawProposal",
              summary=said.WITHDRAW.summary, description=said.WITHDRAW.more)  # fmt: skip
def withdraw(request: HttpRequest, session: s.PathSessionId, body: b.WithdrawIn) -> s.Withdrawn:
    return writes.withdraw(session=session, by=request.auth, **body.model_dump())
