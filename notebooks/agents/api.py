"""The agent's JSON API on django-ninja: bearer tokens, the models of schemas.py in and out (the document at
/api/openapi.json is generated from them), every refusal as {"error": {"code", "message", ...}}. Views check access,
let ninja validate, call a service or a selector, and answer; bad input never reaches the database."""

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

from notebooks.agents import answers, idempotency, tokens
from notebooks.agents import schemas as s
from notebooks.log import selectors, services
from notebooks.log.errors import Invalid, NotebookError, NotFound
from notebooks.log.roles import Actor
from notebooks.log.rowformat import GAME_ONLY
from notebooks.sessions import leases
from notebooks.sessions import selectors as session_selectors
from notebooks.sessions import services as sessions

SAID = {
    400: "Bad input (malformed JSON, a wrong type, an unknown field, a number out of range, words too long…); "
    "nothing is written.",
    401: "No token, or an unknown or revoked one.",
    403: "The token's role may not do this (an agent writes only seen or guessed lines, never Dad's).",
    404: "Unknown notebook, line or session.",
    409: "Conflict: a stale edit, a notebook claimed by another session, a write outside the session's title, a "
    "retired line, a session already closed, a session lapsed (code lapsed), or a land refused by a final gate "
    "(code gate_refused, reasons). A take of a claimed notebook names the holder and session, with Retry-After: "
    "the seconds until the holder's lease would lapse.",
    413: "The request body is too large.",
}


class Unauthorized(NotebookError):
    code, status = "unauthorized", 401


class MethodNotAllowed(NotebookError):
    code, status = "method_not_allowed", 405


class TooLarge(NotebookError):
    code, status = "too_large", 413


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
        """Ninja's document, each refusal described in the API's words and every operation behind the token."""
        doc = super().get_openapi_schema(**kwargs)
        for operation in (op for methods in doc["paths"].values() for op in methods.values()):
            for status, said in SAID.items():
                if str(status) in operation["responses"]:
                    operation["responses"][str(status)]["description"] = said
        doc["security"] = [{"Bearer": []}]
        idempotency.document(doc)  # the Idempotency-Key header and its 422 on every write
        return doc


api = Api(
    title="Notebooks API",
    version="1",
    description="An append-only notebook per game for an agent: lines are added, edited, retired and merged as new "
    "rows; history and any past state are read back. Authenticate with 'Authorization: Bearer <token>' (python "
    "manage.py notebook token NAME). " + GAME_ONLY,
    auth=Bearer(),
    urls_namespace="api",
    docs_url=None,  # served by docs() below, behind the card's sign-in
    servers=[{"url": "/"}],
)


def refusals(*statuses: int) -> dict[int, Any]:
    return {status: s.Error for status in statuses}


READ = refusals(400, 401, 404)
WRITE = refusals(400, 401, 403, 404, 409, 413)


def error_response(exc: NotebookError) -> JsonResponse:
    response = JsonResponse({"error": exc.as_dict()}, status=exc.status)
    if exc.status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="notebooks"'
    if exc.retry_after is not None:  # a take of a claimed notebook: the seconds until its holder's lease would lapse
        response["Retry-After"] = str(exc.retry_after)
    return response


def _refused(request: HttpRequest, exc: Exception) -> JsonResponse:
    if isinstance(exc, ValidationError):
        return error_response(_invalid(request, exc.errors))
    if isinstance(exc, AuthenticationError):
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


def _invalid(request: HttpRequest, errors: list[dict[str, Any]]) -> NotebookError:
    """Ninja's validation errors as one refusal: a path naming nothing is 404, anything else 400."""
    first, given = errors[0], request.resolver_match.kwargs if request.resolver_match else {}
    where, *name = [str(part) for part in first["loc"]]
    if where == "path" and first["type"] == "string_pattern_mismatch":
        return NotFound(f"No notebook is titled {given.get('title', '')!r}.")
    if where == "path" and first["type"] in ("less_than_equal", "greater_than_equal"):
        what = "line number" if name[-1] == "n" else "session"
        return NotFound(f"There is no {what} {str(given.get(name[-1], ''))[:40]}.")
    said, fields = [], set()
    for e in errors:
        field = [str(part) for part in e["loc"][2 if e["loc"][0] == "body" else 1 :]]
        said.append(f"'{'.'.join(field)}': {e['msg']}" if field else f"the body: {e['msg']} (send a JSON object)")
        fields.update(field[:1])
    fields = sorted(fields)
    return Invalid("Bad input: " + "; ".join(said) + ".", fields=fields)


# ----- reads -------------------------------------------------------------------------------------------------------


@api.get("/notebooks", response={200: s.NotebookList, **refusals(400, 401)}, operation_id="listNotebooks",
         summary="The notebooks, each with its head seq and the session that claims it, if any.")  # fmt: skip
def notebooks(request: HttpRequest) -> s.NotebookList:
    return answers.notebook_list()


@api.get("/notebooks/{title}/lines", response={200: s.Lines, **READ}, operation_id="listLines",
         summary="The live lines, in number order; with 'until', as they stood then.",
         description="The answer names the seq and hash of the last row read, so a frozen reader can prove what it "
         "read.")  # fmt: skip
def lines(request: HttpRequest, title: s.Title, q: Query[s.UntilQuery]) -> s.Lines | HttpResponse:
    if q.until is None:  # the live lines: the same JSON, kept with the notebook's view until its head moves
        return HttpResponse(answers.live_lines_json(title), content_type=api.get_content_type())
    return answers.lines(title, q.until)


@api.get("/notebooks/{title}/turn", response={200: s.Turn, **READ}, operation_id="getTurn",
         summary="The text a play turn carries: a header naming the notebook and the time it stands at, Dad's "
         "corrections, his other lines, then hers, each tagged.")  # fmt: skip
def turn(request: HttpRequest, title: s.Title, q: Query[s.UntilQuery]) -> s.Turn:
    return answers.turn(title, q.until, request.auth)


@api.get("/notebooks/{title}/lines/{n}/history", response={200: s.History, **READ}, operation_id="getHistory",
         summary="Every text line n has had, who changed it, when and why (adopted words first).")  # fmt: skip
def history(request: HttpRequest, title: s.Title, n: s.LineNumber) -> s.History:
    return answers.history(title, n)


@api.get("/notebooks/{title}/rows", response={200: s.Rows, **READ}, operation_id="listRows",
         summary="Raw rows after a seq, in the export format (JSON Lines objects), for followers.")  # fmt: skip
def rows(request: HttpRequest, title: s.Title, q: Query[s.RowsQuery]) -> dict[str, Any]:
    nb = selectors.get_notebook(title)
    found = list(selectors.rows(nb, after=min(q.after, selectors.ALL), limit=q.limit + 1))
    more, found = len(found) > q.limit, found[: q.limit]
    last = found[-1]["seq"] if found else q.after
    return {"notebook": nb.title, "after": q.after, "rows": found, "next": last, "more": more}


# ----- writes ------------------------------------------------------------------------------------------------------


@api.post("/notebooks/{title}/lines", response={201: s.Added, **WRITE}, operation_id="addLine",
          summary="Add a line to the notebook.",
          description="Add a line (source seen or guessed for an agent; dad or dad_correction only for the human "
          f"editor). {GAME_ONLY}")  # fmt: skip
@idempotency.http
def add(request: HttpRequest, title: s.Title, body: s.AddIn) -> Status:
    written = services.add(notebook=title, text=body.text, source=body.source, by=request.auth, why=body.why)
    return Status(201, answers.added(title, written.n, written.seq, body.text))


@api.post("/notebooks/{title}/lines/{n}/edit", response={200: s.Written, **WRITE}, operation_id="editLine",
          summary="New words for line n under the same number (the editor's edit makes it a dad_correction).",
          description="'expected' is the seq of the line's last row as you read it: a stale edit is refused. "
          + GAME_ONLY)  # fmt: skip
@idempotency.http
def edit(request: HttpRequest, title: s.Title, n: s.LineNumber, body: s.EditIn) -> s.Written:
    done = services.edit(notebook=title, n=n, to=body.to, by=request.auth, why=body.why, expected=body.expected)
    return s.Written(n=done.n, seq=done.seq)


@api.post("/notebooks/{title}/lines/{n}/retire", response={200: s.Written, **WRITE}, operation_id="retireLine",
          summary="Take line n out of view with a strike row; 'into' names the line that now says it.")  # fmt: skip
@idempotency.http
def retire(request: HttpRequest, title: s.Title, n: s.LineNumber, body: s.RetireIn) -> s.Written:
    done = services.retire(notebook=title, n=n, by=request.auth, why=body.why, into=body.into, expected=body.expected)
    return s.Written(n=done.n, seq=done.seq)


@api.post("/notebooks/{title}/lines/{n}/redact", response={200: s.Written, **WRITE}, operation_id="redactWords",
          summary="Remove words of line n from the database for good (the human editor only).",
          description="The words are those of row 'seq' of the line, or those with sha256 'digest', or else the "
          "line's current words. A redact row naming their digest is appended and the words are deleted in the same "
          "transaction; every row that carried them then reads '[redacted: why]', and the hash chain still "
          "verifies. Redacted words cannot be written into the notebook again.")  # fmt: skip
@idempotency.http
def redact(request: HttpRequest, title: s.Title, n: s.LineNumber, body: s.RedactIn) -> s.Written:
    done = services.redact(notebook=title, n=n, by=request.auth, why=body.why, seq=body.seq, digest=body.digest)
    return s.Written(n=done.n, seq=done.seq)


@api.post("/notebooks/{title}/merge", response={201: s.Merged, **WRITE}, operation_id="mergeLines",
          summary="Write one line for several and retire them into it, all or nothing.",
          description=GAME_ONLY)  # fmt: skip
@idempotency.http
def merge(request: HttpRequest, title: s.Title, body: s.MergeIn) -> Status:
    done = services.merge(
        notebook=title, numbers=body.numbers, text=body.text, by=request.auth, why=body.why, source=body.source
    )
    return Status(201, s.Merged(n=done.n, seqs=list(done.seqs)))


# ----- sessions ----------------------------------------------------------------------------------------------------


@api.get("/sessions", response={200: s.SessionList, **refusals(400, 401)}, operation_id="listSessions",
         summary="The latest sessions, each with its events.")  # fmt: skip
def sessions_(request: HttpRequest, q: Query[s.StateQuery]) -> dict[str, Any]:
    return {"sessions": [v.as_dict() for v in session_selectors.recent(limit=100, state=q.state)]}


@api.post("/sessions", response={201: s.Taken, **refusals(400, 401, 404, 409, 413)}, operation_id="takeSession",
          summary="Take: claim a notebook. Pending drift is recorded first, then base = the notebook's head.",
          description="One open session per notebook and per actor; a second take gets 409 naming the holder. "
          "While it is open, the actor's writes belong to it and its writes under any other title are "
          "refused.")  # fmt: skip
@idempotency.http(joins=True)
def take(request: HttpRequest, body: s.TakeIn) -> Status:
    return idempotency.joined(
        lambda: sessions.take(notebook=answers.title_of(body.notebook), plan=body.plan, by=request.auth),
        lambda taken: Status(201, s.Taken(id=taken.id, notebook=taken.notebook, base=taken.base, drift=taken.drift)),
    )


@api.get("/sessions/{id}", response={200: s.SessionRows, **READ}, operation_id="getSession",
         summary="A session: its events, its own rows (its semantic change) and the drift recorded apart.")  # fmt: skip
def session(request: HttpRequest, id: s.SessionId) -> s.SessionRows:  # noqa: A002 - the documented path's name
    return answers.session(id)


@api.post("/sessions/{id}/checkpoint", response={200: s.Checkpointed, **WRITE}, operation_id="checkpointSession",
          summary="Record the head as recovery evidence; it moves no base and grants nothing.")  # fmt: skip
@idempotency.http(joins=True)
def checkpoint(request: HttpRequest, id: s.SessionId, body: s.CheckpointIn) -> s.Checkpointed:  # noqa: A002
    return idempotency.joined(
        lambda: sessions.checkpoint(session=id, note=body.note, by=request.auth),
        lambda done: s.Checkpointed(id=done.id, base=done.base, head=done.head),
    )


@api.post("/sessions/{id}/land", response={200: s.Landed, **WRITE}, operation_id="landSession",
          summary="Land: the session's rows become one semantic change, others' rows are recorded as drift.",
          description="A session that wrote nothing gives result no-op. The final gates compare with the original "
          "base, never a checkpoint; a failed gate answers 409 gate_refused with its reasons and leaves the session "
          "open.")  # fmt: skip
@idempotency.http(joins=True)
def land(request: HttpRequest, id: s.SessionId, body: s.LandIn) -> s.Landed:  # noqa: A002
    return idempotency.joined(
        lambda: sessions.land(session=id, summary=body.summary, by=request.auth),
        lambda done: s.Landed.model_validate(done, from_attributes=True),
    )


@api.post("/sessions/{id}/abandon", response={200: s.Abandoned, **WRITE}, operation_id="abandonSession",
          summary="Close a session without a semantic change; its rows stay in the log.")  # fmt: skip
@idempotency.http(joins=True)
def abandon(request: HttpRequest, id: s.SessionId, body: s.AbandonIn) -> s.Abandoned:  # noqa: A002
    return idempotency.joined(
        lambda: sessions.abandon(session=id, why=body.why, by=request.auth),
        lambda done: s.Abandoned(id=done.id, result="abandoned", head=done.head, rows=done.rows, drift=done.drift),
    )


# ----- the URLs: ninja's, every refusal as JSON, the docs behind the sign-in -----------------------------------------


@csrf_exempt
def unknown(request: HttpRequest, rest: str = "") -> JsonResponse:
    return error_response(NotFound(f"No API endpoint at {request.path!r}; see /api/openapi.json."))


def _json_405(view: Callable) -> Callable:
    """Ninja answers a wrong method in plain text; the API answers it as JSON, naming the allowed methods."""

    @csrf_exempt
    def inner(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
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
    routes = [path(str(p.pattern), _json_405(views[p.name]), name=p.name) for p in api.urls[0] if p.name != "api-root"]
    return [*routes, path("", unknown, name="api-root"), path("docs", docs, name="docs")]
