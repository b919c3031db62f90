"""The agent's JSON API on django-ninja: bearer tokens, the models of schemas.py in and out (the document at
/api/openapi.json is generated from them), every refusal as {"error": {"code", "message", ...}}. Views check access,
let ninja validate, call a service or a selector, and answer; bad input never reaches the database."""

import functools
import re
from collections.abc import Callable
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import URLPattern, path
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe
from ninja import NinjaAPI, Query
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.openapi.views import openapi_view
from ninja.responses import Status
from ninja.security import HttpBearer

from notebooks.agents import answers, conditional, document, idempotency, paging, problems, queries, refusals, tokens
from notebooks.agents import bodies as b
from notebooks.agents import schemas as s
from notebooks.agents.refusals import MethodNotAllowed, TooLarge, Unauthorized
from notebooks.log import redaction, services
from notebooks.log.files.rowformat import GAME_ONLY
from notebooks.log.identity.roles import Actor
from notebooks.log.rules.errors import Invalid, NotebookError, NotFound
from notebooks.log.views import turn_reads
from notebooks.sessions import leases
from notebooks.sessions import services as sessions
from notebooks.version import VERSION


class Bearer(HttpBearer):
    """Authorization: Bearer <token>, a token of tokens.py; the actor it speaks for becomes request.auth."""

    def authenticate(self, request: HttpRequest, token: str) -> Actor:
        actor = tokens.authenticate(token.strip())
        if actor is None:
            raise Unauthorized("The token is unknown or revoked.")
        leases.renew_calls_of(actor.name)  # any call of a session's holder renews its lease
        return actor


class Api(NinjaAPI):
    def get_openapi_schema(self, **kwargs: Any) -> dict[str, Any]:
        return document.finish(super().get_openapi_schema(**kwargs))


api = Api(
    title="Notebooks API",
    version=VERSION,
    description="An append-only notebook per game for an agent: lines are added, edited, retired and merged as new "
    "rows; history and any past state are read back. Authenticate with 'Authorization: Bearer <token>' (python "
    "manage.py notebook token NAME). " + GAME_ONLY,
    auth=Bearer(),
    urls_namespace="api",
    docs_url=None,  # served by docs() below, behind the card's sign-in
    servers=[{"url": "/"}],
)


def declared(*statuses: int) -> dict[int, Any]:
    return {status: problems.Error for status in statuses}


# Every operation may answer these; every write may also find the database's disk full (503, Retry-After), and a
# take or land the vault unusable (503 vault_unavailable, Retry-After).
READ = declared(400, 401, 404, 405)
UNCHANGED = {304: None}  # a conditional read's answer when its If-None-Match still stands (conditional.py)
WRITE = declared(400, 401, 403, 404, 405, 409, 413, 503)
TAKE = declared(400, 401, 404, 405, 409, 413, 503)  # anyone may take
CREATE = declared(400, 401, 405, 409, 413, 429, 503)
SUGGEST = declared(400, 401, 403, 404, 405, 409, 413, 429, 503)


def error_response(exc: NotebookError) -> JsonResponse:
    response = JsonResponse({"error": exc.as_dict()}, status=exc.status)
    if exc.status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="notebooks"'
    if exc.retry_after is not None:  # a take of a claimed notebook: the seconds until its holder's lease would lapse
        response["Retry-After"] = str(exc.retry_after)
    return response


def _refused(request: HttpRequest, exc: Exception) -> JsonResponse:
    if isinstance(exc, ValidationError):
        route = getattr(request, "api_route", None)
        known = _body_names().get((route, request.method or "")) if route else None
        given = request.resolver_match.kwargs if request.resolver_match else {}
        exc = refusals.invalid_request(exc.errors, given, known)
    elif isinstance(exc, AuthenticationError):
        exc = Unauthorized("Send a token: Authorization: Bearer <token> (python manage.py notebook token NAME).")
    elif isinstance(exc, HttpError):  # ninja's own 400: a body that is not JSON
        exc = Invalid("The body is not valid JSON." if exc.status_code == 400 else str(exc))
    elif isinstance(exc, RequestDataTooBig):
        exc = TooLarge("The request body is too large.")
    elif isinstance(exc, SuspiciousOperation):  # e.g. too many query fields: Django's own 400, as JSON
        exc = Invalid(f"The request was refused: {exc}")
    return error_response(exc)


for _kind in (NotebookError, ValidationError, HttpError, RequestDataTooBig, SuspiciousOperation):
    api.add_exception_handler(_kind, _refused)


NOTEBOOKS, LINES, SESSIONS = ["notebooks"], ["lines"], ["sessions"]
PAGING = (
    f"Every list pages alike: 'limit' items a page ({paging.PAGE} when not given, at most {paging.PAGE_MAX}; more is "
    "a 400 naming 'limit'), after the cursor 'after' (none for the first page); the answer's 'next' is the cursor of "
    "the following page, null when nothing is left. A cursor is opaque: send it back as it came. Deprecated: a plain "
    "position as 'after' (a number, or a title for the notebooks) is still read as before; any other 'after' is a "
    "400 naming it."
)


@api.get("/notebooks", response={200: s.NotebookList, **declared(400, 401, 405)}, operation_id="listNotebooks",
         tags=NOTEBOOKS, summary="The notebooks by title, each with its head seq and the session that claims it, if "
         "any; a page of them.",
         description="Any token reads every notebook. 'head' is the seq of the notebook's last row (0 while it is "
         "empty); 'session' is {id, actor} of the open session that claims it, or null: while it is claimed, "
         "another actor's take of it is refused (409)."
         " " + PAGING)  # fmt: skip
def notebooks(request: HttpRequest, q: Query[queries.NotebooksQuery]) -> s.NotebookList:
    return answers.notebook_list(q.after, q.limit)


@api.post("/notebooks", response={201: s.NotebookItem, **CREATE}, operation_id="createNotebook", tags=NOTEBOOKS,
          summary="Start a notebook (a game's), empty.",
          description="Refused (409) when the title is taken or looks like one taken (title_looks_alike, naming it "
          "in 'existing'), and while the actor holds a session on another notebook: a write under another title is "
          "refused while a session is open. An actor creates at most NOTEBOOK_NEW_NOTEBOOKS notebooks per "
          "NOTEBOOK_NEW_NOTEBOOKS_WINDOW seconds (429 too_many_notebooks, Retry-After).")  # fmt: skip
@idempotency.http
def create(request: HttpRequest, body: b.NotebookIn) -> Status:
    return Status(201, answers.created(body.title, request.auth))


@api.get("/notebooks/{notebook}/lines", response={200: s.Lines, **UNCHANGED, **READ}, operation_id="listLines",
         tags=LINES,
         summary="The live lines, in number order; with 'until', as they stood then; a page of them.",
         description="The answer names the seq and hash of the last row read, so a frozen reader can prove what it "
         "read. Pages are cut from the view read at each call: for pages of one view, give 'until'. "
         + PAGING)  # fmt: skip
@conditional.read
def lines(request: HttpRequest, notebook: s.Title, q: Query[queries.LinesQuery]) -> s.Lines:
    return answers.lines(notebook, q.until, q.after, q.limit, reader=request.auth, q=q.q, match=q.match)


@api.get("/notebooks/{notebook}/lines/{n}", response={200: s.OneLine, **READ}, operation_id="getLine", tags=LINES,
         summary="One live line by its number, as the reader sees it; with 'until', as it stood then.",
         description="A line that is not live (never written, retired, merged, moved) is 404; its history says what "
         "became of it.")  # fmt: skip
def line(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, q: Query[queries.UntilQuery]) -> s.OneLine:
    return answers.line(notebook, n, q.until, reader=request.auth)


@api.get("/notebooks/{notebook}/turn", response={200: s.Turn, **UNCHANGED, **READ, **declared(503)},
         operation_id="getTurn",
         tags=NOTEBOOKS, summary="The text a play turn carries: a header naming the notebook and the time it stands "
         "at, Dad's corrections, his other lines, then hers, each tagged.",
         description="A live turn notes that it was read (the index shows when), so a full disk answers 503."
         )  # fmt: skip
@conditional.read(also=turn_reads.note_turn_read)
def turn(request: HttpRequest, notebook: s.Title, q: Query[queries.UntilQuery]) -> s.Turn:
    return answers.turn(notebook, q.until, request.auth)


@api.get("/notebooks/{notebook}/lines/{n}/history", response={200: s.History, **UNCHANGED, **READ},
         operation_id="getHistory", tags=LINES,
         summary="Every text line n has had, who changed it, when and why (adopted words first).",
         description="One entry per row of the line (op, text, source, by, at, why, how, into), and one per row of "
         "another line that touched it: 'restored' (the line that restored it, in 'into') and 'retired_into' (a "
         "line retired or merged into it, in 'from_n'). A retired line keeps its history; a number never given is "
         "404.")  # fmt: skip
@conditional.read
def history(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber) -> s.History:
    return answers.history(notebook, n)


@api.get("/notebooks/{notebook}/rows", response={200: s.Rows, **UNCHANGED, **READ}, operation_id="listRows",
         tags=NOTEBOOKS,
         summary="Raw rows in log order, in the export format (JSON Lines objects), a page of them: for followers.",
         description="Each row is the object the export writes for it (docs/file-format.md): its op, n, seq, at and "
         "hash, which chains it to the row before, and the fields its op carries. A row whose words were redacted "
         "reads '[redacted: why]'; the chain still verifies."
         " " + PAGING)  # fmt: skip
@conditional.read
def rows(request: HttpRequest, notebook: s.Title, q: Query[queries.RowsQuery]) -> s.Rows:
    return answers.rows(notebook, q.after, q.limit)


@api.post("/notebooks/{notebook}/lines", response={201: s.Added, **WRITE}, operation_id="addLine", tags=LINES,
          summary="Add a line to the notebook.",
          description="Add a line (source seen or guessed for an agent; dad or dad_correction only for the human "
          f"editor). {GAME_ONLY}")  # fmt: skip
@idempotency.http
def add(request: HttpRequest, notebook: s.Title, body: b.AddIn) -> Status:
    answers.within(notebook, request.auth, body.session)
    written = services.add(notebook=notebook, text=body.text, source=body.source, by=request.auth, why=body.why)
    return Status(201, answers.added(notebook, written.n, written.seq, body.text, reader=request.auth))


@api.post("/notebooks/{notebook}/lines/{n}/edit", response={200: s.Written, **WRITE}, operation_id="editLine",
          tags=LINES,
          summary="New words for line n under the same number (the editor's edit makes it a dad_correction).",
          description="'text' is the new words ('to', its old name, is still taken until the next release). "
          "'expected' is the seq of the line's last row as you read it: a stale edit is refused (409, with current "
          "and current_seq). " + GAME_ONLY)  # fmt: skip
@idempotency.http
def edit(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, body: b.EditIn) -> s.Written:
    words = body.words()
    answers.within(notebook, request.auth, body.session)
    done = services.edit(notebook=notebook, n=n, to=words, by=request.auth, why=body.why, expected=body.expected)
    return answers.written(done, notebook, request.auth)


@api.post("/notebooks/{notebook}/lines/{n}/retire", response={200: s.Written, **WRITE}, operation_id="retireLine",
          tags=LINES,
          summary="Take line n out of view with a strike row; 'into' names the line that now says it.",
          description="'why' is required. Without 'into' the line is dropped: a session's land refuses an agent's "
          "session that dropped more than half of the lines live at its base. 'expected' is the seq of the line's "
          "last row as you read it: a stale retire is refused (409, with current and current_seq), as is a line "
          "already retired. The line keeps its number and its history; restore brings its words back as a new "
          "line.")  # fmt: skip
@idempotency.http
def retire(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, body: b.RetireIn) -> s.Written:
    answers.within(notebook, request.auth, body.session)
    done = services.retire(
        notebook=notebook, n=n, by=request.auth, why=body.why, into=body.into, expected=body.expected
    )
    return answers.written(done, notebook, request.auth)


@api.post("/notebooks/{notebook}/lines/{n}/restore", response={201: s.Written, **WRITE}, operation_id="restoreLine",
          tags=LINES,
          summary="Undo the retirement of line n: its last words and source back as a new line (the next number).",
          description="Line n stays retired; both lines' histories show the restore. Inside a session this mends a "
          "land its gate refused for lines retired without a successor.")  # fmt: skip
@idempotency.http
def restore(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, body: b.RestoreIn) -> Status:
    answers.within(notebook, request.auth, body.session)
    done = services.restore(notebook=notebook, n=n, by=request.auth, why=body.why)
    return Status(201, answers.written(done, notebook, request.auth))


@api.post("/notebooks/{notebook}/lines/{n}/put-back", response={200: s.Written, **WRITE}, operation_id="putBackWords",
          tags=LINES,
          summary="Edit line n back to the words an earlier row of its history gave it ('seq'), as a new edit.",
          description="'seq' is a version of the line's words in its history; 'expected' as for an edit. "
          + GAME_ONLY)  # fmt: skip
@idempotency.http
def put_back(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, body: b.PutBackIn) -> s.Written:
    answers.within(notebook, request.auth, body.session)
    done = services.put_back(
        notebook=notebook, n=n, seq=body.seq, by=request.auth, why=body.why, expected=body.expected
    )
    return answers.written(done, notebook, request.auth)


@api.post("/notebooks/{notebook}/lines/{n}/redact", response={200: s.Written, **WRITE}, operation_id="redactWords",
          tags=LINES,
          summary="Remove words of line n from the database for good (the human editor only).",
          description="The words are those of row 'seq' of the line, or those with sha256 'digest', or else the "
          "line's current words. A redact row naming their digest is appended and the words are deleted in the same "
          "transaction; every row that carried them then reads '[redacted: why]', and the hash chain still "
          "verifies. Redacted words cannot be written into the notebook again.")  # fmt: skip
@idempotency.http
def redact(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, body: b.RedactIn) -> s.Written:
    answers.within(notebook, request.auth, body.session)
    done = redaction.redact(notebook=notebook, n=n, by=request.auth, why=body.why, seq=body.seq, digest=body.digest)
    return answers.written(done, notebook, request.auth)


@api.post("/notebooks/{notebook}/merge", response={201: s.Merged, **WRITE}, operation_id="mergeLines", tags=LINES,
          summary="Write one line for several and retire them into it, all or nothing.",
          description=GAME_ONLY)  # fmt: skip
@idempotency.http
def merge(request: HttpRequest, notebook: s.Title, body: b.MergeIn) -> Status:
    answers.within(notebook, request.auth, body.session)
    done = services.merge(
        notebook=notebook, numbers=body.numbers, text=body.text, by=request.auth, why=body.why, source=body.source
    )
    return Status(201, answers.merged(done, notebook, request.auth))


@api.post("/notebooks/{notebook}/suggestions", response={201: s.Suggested, 200: s.Suggested, **SUGGEST},
          operation_id="suggestLines", tags=LINES,
          summary="Suggest that lines repeat, contradict each other or stray; Dad decides it, no line changes.",
          description="A suggestion waits in Dad's Similar view until he decides it (merge, keep one, retire, not "
          "alike) or one of its lines stops being live. A line that is not live is refused (404 naming it in "
          "'lines'); the same lines and kind already pending, or lines Dad marked not alike, answer 200 with "
          "'already'; past NOTEBOOK_PENDING_SUGGESTIONS pending on the notebook, 429 too_many_suggestions with "
          "Retry-After. " + GAME_ONLY)  # fmt: skip
@idempotency.http
def suggest(request: HttpRequest, notebook: s.Title, body: b.SuggestIn) -> Status:
    status, answer = answers.suggested(notebook, body.lines, body.kind, body.words, body.keep, body.why, request.auth)
    return Status(status, answer)


@api.get("/sessions", response={200: s.SessionList, **declared(400, 401, 405)}, operation_id="listSessions",
         tags=SESSIONS, summary="The sessions, newest first, each with its events; only an actor's, a notebook's or "
         "those in a state when asked; a page of them.",
         description="Each session names its notebook, actor, plan, base and state (open, landed, no-op, abandoned "
         "or lapsed, with lapsed_at), its events (take, drift, checkpoint, refuse, land, abandon, lapse) and how "
         "many rows its change and its drift hold. Filter with 'state', 'actor' and 'notebook'."
         " " + PAGING)  # fmt: skip
def sessions_(request: HttpRequest, q: Query[queries.SessionsQuery]) -> s.SessionList:
    return answers.session_list(state=q.state, actor=q.actor, notebook=q.notebook, after=q.after, limit=q.limit)


@api.post("/sessions", response={201: s.Taken, **TAKE}, operation_id="takeSession", tags=SESSIONS,
          summary="Take: claim a notebook. Pending drift is recorded first, then base = the notebook's head.",
          description="One open session per notebook and per actor; a second take gets 409 naming the holder. "
          "While it is open, the actor's writes belong to it and its writes under any other title are "
          "refused.")  # fmt: skip
@idempotency.http(joins=True)
def take(request: HttpRequest, body: b.TakeIn) -> Status:
    return idempotency.joined(
        lambda: sessions.take(notebook=answers.title_of(body.notebook), plan=body.plan, by=request.auth),
        lambda taken: Status(201, answers.taken(taken)),
    )


@api.get("/sessions/{session}", response={200: s.SessionRows, **READ}, operation_id="getSession", tags=SESSIONS,
         summary="A session: its events, its own rows (its semantic change) and the drift recorded apart, a page of "
         "its rows at a time (change and drift together, in log order).",
         description="'change' holds the rows the session wrote (its proposals and, once it landed, their landed "
         "copies), 'drift' the rows others wrote since its base, recorded apart; 'change_rows' and 'drift_rows' "
         "are their totals. Any token reads any session; an unknown id is 404."
         " " + PAGING)  # fmt: skip
def session(request: HttpRequest, session: s.PathSessionId, q: Query[queries.SessionQuery]) -> s.SessionRows:
    return answers.session(session, q.after, q.limit)


@api.post("/sessions/{session}/checkpoint", response={200: s.Checkpointed, **WRITE}, operation_id="checkpointSession",
          tags=SESSIONS,
          summary="Record the head as recovery evidence; it moves no base and grants nothing.",
          description="'note' says where the run stands; the answer gives the session's base and the head now. Only "
          "its holder checkpoints a session (403 for anyone else's); a session landed or abandoned answers 409 "
          "conflict, a lapsed one 409 lapsed. Like any call of the holder's, it renews the lease.")  # fmt: skip
@idempotency.http(joins=True)
def checkpoint(request: HttpRequest, session: s.PathSessionId, body: b.CheckpointIn) -> s.Checkpointed:
    return idempotency.joined(
        lambda: sessions.checkpoint(session=session, note=body.note, by=request.auth), answers.checkpointed
    )


@api.post("/sessions/{session}/land", response={200: s.Landed, **WRITE}, operation_id="landSession", tags=SESSIONS,
          summary="Land: the session's rows become one semantic change, others' rows are recorded as drift.",
          description="A session that wrote nothing gives result no-op. The final gates compare with the original "
          "base, never a checkpoint; a failed gate answers 409 gate_refused with its reasons and leaves the session "
          "open.")  # fmt: skip
@idempotency.http(joins=True)
def land(request: HttpRequest, session: s.PathSessionId, body: b.LandIn) -> s.Landed:
    return idempotency.joined(
        lambda: sessions.land(session=session, summary=body.summary, by=request.auth), answers.landed
    )


@api.post("/sessions/{session}/abandon", response={200: s.Abandoned, **WRITE}, operation_id="abandonSession",
          tags=SESSIONS,
          summary="Close a session without a semantic change; its rows stay in the log.",
          description="'why' is required. The holder or the editor abandons a session (403 for anyone else), a "
          "lapsed one too; one landed or abandoned answers 409 conflict. Its proposals never count, drift since its "
          "base is recorded apart, and the notebook is free to take again.")  # fmt: skip
@idempotency.http(joins=True)
def abandon(request: HttpRequest, session: s.PathSessionId, body: b.AbandonIn) -> s.Abandoned:
    return idempotency.joined(
        lambda: sessions.abandon(session=session, why=body.why, by=request.auth), answers.abandoned
    )


@api.post("/sessions/{session}/withdraw", response={200: s.Withdrawn, **WRITE}, operation_id="withdrawProposal",
          tags=SESSIONS,
          summary="Take back one proposal of your open session ('seq'), with a reason; the rest stays to land.",
          description="Nothing is erased: a withdraw event names the proposal, which stays in the log and history "
          "and no longer counts in your view, the final gates or the land. Refused: a seq that is no proposal of the "
          "session (404), one already withdrawn or one a later proposal builds on (409: withdraw that one first), a "
          "session landed, abandoned (409) or lapsed (409 lapsed), another's (403; the editor may).")  # fmt: skip
@idempotency.http(joins=True)
def withdraw(request: HttpRequest, session: s.PathSessionId, body: b.WithdrawIn) -> s.Withdrawn:
    done = lambda: sessions.withdraw(session=session, proposal=body.seq, why=body.why, by=request.auth)  # noqa: E731
    return idempotency.joined(done, answers.withdrawn)


@csrf_exempt
def unknown(request: HttpRequest, rest: str = "") -> JsonResponse:
    return error_response(NotFound(f"No API endpoint at {request.path!r}; see /api/openapi.json."))


@functools.cache
def _query_names() -> dict[tuple[str, str], list[str]]:
    return document.query_names(api.get_openapi_schema())


@functools.cache
def _body_names() -> dict[tuple[str, str], list[str]]:
    return document.body_names(api.get_openapi_schema())


def _json_405(view: Callable, route: str) -> Callable:
    """Ninja answers a wrong method in plain text; the API answers it as JSON, naming the allowed methods. A query
    parameter the operation does not take is refused before the view, as an unknown field of a body is."""

    @csrf_exempt
    def inner(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            given = list(request.GET)
        except SuspiciousOperation as exc:  # too many fields
            return _refused(request, exc)
        request.api_route = "/api/" + route  # the document's path: a refusal names the fields its body takes
        known = _query_names().get((request.api_route, request.method or ""))
        unknown = [name for name in given if known is not None and name not in known]
        if unknown:
            return error_response(refusals.unknown_query(unknown, known or []))
        response = view(request, *args, **kwargs)
        if response.status_code != 405:
            return response
        allowed = ", ".join(m for m in ("GET", "POST") if m in response.get("Allow", ""))
        refused = error_response(MethodNotAllowed(f"{request.method} is not allowed here; use {allowed}."))
        refused["Allow"] = allowed
        return refused

    return inner


@login_required
def docs(request: HttpRequest) -> HttpResponse:
    """The generated document rendered by ninja's Swagger UI, from the app's own static files."""
    return openapi_view(request, api=api)


def urlpatterns() -> list[URLPattern]:
    """Ninja's routes, a wrong method answered as JSON; its root (reversed for the document's paths) a JSON 404."""
    read_only = {"openapi-json"}  # the document is read, never posted to
    views = {p.name: require_safe(p.callback) if p.name in read_only else p.callback for p in api.urls[0]}
    routes = [
        path(
            str(p.pattern), _json_405(views[p.name], re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", str(p.pattern))), name=p.name
        )
        for p in api.urls[0]
        if p.name != "api-root"
    ]
    return [*routes, path("", unknown, name="api-root"), path("docs", docs, name="docs")]
