"""The API's sessions: list, read one with its rows, and its writes (writes.py's, as MCP's)."""

from django.http import HttpRequest
from ninja import Query

from notebooks.agents import answers, writes
from notebooks.agents import bodies as b
from notebooks.agents import schemas as s
from notebooks.agents.api.operations import LISTED, PAGING, READ, TAKE, Routes

router = Routes(tags=["sessions"])


@router.get("/sessions", response={200: s.SessionList, **LISTED}, operation_id="listSessions",
            summary="The sessions, newest first, each with its events; only an actor's, a notebook's or those in a "
            "state when asked; a page of them.",
            description="Each session names its notebook, actor, plan, base and state (open, landed, no-op, abandoned "
            "or lapsed, with lapsed_at), its events (take, drift, checkpoint, refuse, land, abandon, lapse) and how "
            "many rows its change and its drift hold. Filter with 'state', 'actor' and 'notebook'."
            " " + PAGING)  # fmt: skip
def sessions(request: HttpRequest, q: Query[b.SessionsQuery]) -> s.SessionList:
    return answers.session_list(state=q.state, actor=q.actor, notebook=q.notebook, after=q.after, limit=q.limit)


@router.write("/sessions", {201: s.Taken}, refusals=TAKE, joins=True, operation_id="takeSession",
              summary="Take: claim a notebook. Pending drift is recorded first, then base = the notebook's head.",
              description="One open session per notebook and per actor; a second take gets 409 naming the holder. "
              "While it is open, the actor's writes belong to it and its writes under any other title are "
              "refused.")  # fmt: skip
def take(request: HttpRequest, body: b.TakeIn) -> s.Taken:
    return writes.take(by=request.auth, **body.model_dump())


@router.get("/sessions/{session}", response={200: s.SessionRows, **READ}, operation_id="getSession",
            summary="A session: its events, its own rows (its semantic change) and the drift recorded apart, a page "
            "of its rows at a time (change and drift together, in log order).",
            description="'change' holds the rows the session wrote (its proposals and, once it landed, their landed "
            "copies), 'drift' the rows others wrote since its base, recorded apart; 'change_rows' and 'drift_rows' "
            "are their totals. Any token reads any session; an unknown id is 404."
            " " + PAGING)  # fmt: skip
def session(request: HttpRequest, session: s.PathSessionId, q: Query[b.SessionQuery]) -> s.SessionRows:
    return answers.session(session, q.after, q.limit)


@router.write("/sessions/{session}/checkpoint", {200: s.Checkpointed}, joins=True, operation_id="checkpointSession",
              summary="Record the head as recovery evidence; it moves no base and grants nothing.",
              description="'note' says where the run stands; the answer gives the session's base and the head now. "
              "Only its holder checkpoints a session (403 for anyone else's); a session landed or abandoned answers "
              "409 conflict, a lapsed one 409 lapsed. Like any call of the holder's, it renews the lease.")  # fmt: skip
def checkpoint(request: HttpRequest, session: s.PathSessionId, body: b.CheckpointIn) -> s.Checkpointed:
    return writes.checkpoint(session=session, by=request.auth, **body.model_dump())


@router.write("/sessions/{session}/land", {200: s.Landed}, joins=True, operation_id="landSession",
              summary="Land: the session's rows become one semantic change, others' rows are recorded as drift.",
              description="A session that wrote nothing gives result no-op. The final gates compare with the original "
              "base, never a checkpoint; a failed gate answers 409 gate_refused with its reasons and leaves the "
              "session open.")  # fmt: skip
def land(request: HttpRequest, session: s.PathSessionId, body: b.LandIn) -> s.Landed:
    return writes.land(session=session, by=request.auth, **body.model_dump())


@router.write("/sessions/{session}/abandon", {200: s.Abandoned}, joins=True, operation_id="abandonSession",
              summary="Close a session without a semantic change; its rows stay in the log.",
              description="'why' is required. The holder or the editor abandons a session (403 for anyone else), a "
              "lapsed one too; one landed or abandoned answers 409 conflict. Its proposals never count, drift since "
              "its base is recorded apart, and the notebook is free to take again.")  # fmt: skip
def abandon(request: HttpRequest, session: s.PathSessionId, body: b.AbandonIn) -> s.Abandoned:
    return writes.abandon(session=session, by=request.auth, **body.model_dump())


@router.write("/sessions/{session}/withdraw", {200: s.Withdrawn}, joins=True, operation_id="withdrawProposal",
              summary="Take back one proposal of your open session ('seq'), with a reason; the rest stays to land.",
              description="Nothing is erased: a withdraw event names the proposal, which stays in the log and history "
              "and no longer counts in your view, the final gates or the land; a merge's add takes back the whole "
              "merge. Refused: a seq that is no proposal of the session (404), one already withdrawn, one a later "
              "proposal builds on (409: withdraw that one first) or one strike of a merge (409), a session landed, "
              "abandoned (409) or lapsed (409 lapsed), another's (403; the editor may).")  # fmt: skip
def withdraw(request: HttpRequest, session: s.PathSessionId, body: b.WithdrawIn) -> s.Withdrawn:
    return writes.withdraw(session=session, by=request.auth, **body.model_dump())
