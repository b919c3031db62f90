"""The agent's JSON API: bearer tokens, JSON in and out, every refusal as {"error": {"code", "message"}}.

Views check access, validate, call a service or a selector, and answer; bad input never reaches the database.
"""

import functools
import json
import math
import re
from collections.abc import Callable
from typing import Any

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from notebooks.agents import tokens
from notebooks.agents.openapi import document
from notebooks.log import checks, selectors, services
from notebooks.log.checks import MAX_ID, MAX_NUMBER, is_storable
from notebooks.log.errors import Invalid, NotebookError, NotFound
from notebooks.log.roles import Actor
from notebooks.models import TITLE_PATTERN, Notebook
from notebooks.sessions import claims as session_claims
from notebooks.sessions import selectors as session_selectors
from notebooks.sessions import services as sessions

MAX_MERGE = 1000
DIGEST = re.compile(r"[0-9a-f]{64}")  # a sha256 in hex, as rows name words
ROWS_PAGE = 1000
ROWS_PAGE_MAX = 5000
_TITLE = re.compile(TITLE_PATTERN)


class Unauthorized(NotebookError):
    code = "unauthorized"
    status = 401


class MethodNotAllowed(NotebookError):
    code = "method_not_allowed"
    status = 405


class TooLarge(NotebookError):
    code = "too_large"
    status = 413


def error_response(exc: NotebookError) -> JsonResponse:
    response = JsonResponse({"error": exc.as_dict()}, status=exc.status)
    if exc.status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="notebooks"'
    return response


def endpoint(*methods: str, auth: bool = True) -> Callable:
    """A JSON endpoint: allowed methods, a bearer token (csrf_exempt: no cookie is ever read), errors as JSON."""

    def wrap(view: Callable) -> Callable:
        @csrf_exempt
        @functools.wraps(view)
        def inner(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
            try:
                if request.method not in methods:
                    raise MethodNotAllowed(f"{request.method} is not allowed here; use {' or '.join(methods)}.")
                actor = _actor(request) if auth else None
                return view(request, actor, *args, **kwargs)
            except NotebookError as exc:
                response = error_response(exc)
                if exc.status == 405:
                    response["Allow"] = ", ".join(methods)
                return response
            except RequestDataTooBig:
                return error_response(TooLarge("The request body is too large."))
            except SuspiciousOperation as exc:  # e.g. too many query fields: Django's own 400, as JSON
                return error_response(Invalid(f"The request was refused: {exc}"))

        return inner

    return wrap


def _actor(request: HttpRequest) -> Actor:
    header = request.headers.get("Authorization", "")
    scheme, _, secret = header.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise Unauthorized("Send a token: Authorization: Bearer <token> (python manage.py notebook token NAME).")
    actor = tokens.authenticate(secret.strip())
    if actor is None:
        raise Unauthorized("The token is unknown or revoked.")
    return actor


# ----- input -------------------------------------------------------------------------------------


def _text_ok(value: str, name: str) -> str:
    if not is_storable(value):
        raise Invalid(f"'{name}' is not valid Unicode text (a lone surrogate).")
    return value


def _whole(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid(f"'{name}' must be a whole number, not {type(value).__name__}.")
    if not low <= value <= high:
        raise Invalid(f"'{name}' must be between {low} and {high}.")
    return value


KINDS: dict[str, Callable[[Any, str], Any]] = {
    "text": lambda v, k: _text_ok(v, k) if isinstance(v, str) else _fail(f"'{k}' must be a string."),
    "line": lambda v, k: _whole(v, k, 1, MAX_NUMBER),
    "seq": lambda v, k: _whole(v, k, 1, MAX_ID),
    "lines": lambda v, k: _lines(v, k),
    "digest": lambda v, k: v if isinstance(v, str) and DIGEST.fullmatch(v) else _fail(f"'{k}' must be a sha256 hex."),
}


def _fail(message: str) -> Any:
    raise Invalid(message)


def _lines(value: Any, name: str) -> list[int]:
    if not isinstance(value, list) or not 2 <= len(value) <= MAX_MERGE:
        raise Invalid(f"'{name}' must be a list of 2 to {MAX_MERGE} line numbers.")
    return [_whole(x, f"{name}[{i}]", 1, MAX_NUMBER) for i, x in enumerate(value)]


def _body(request: HttpRequest, required: dict[str, str], optional: dict[str, str] | None = None) -> dict[str, Any]:
    """The JSON object sent, checked field by field: unknown fields, wrong types and missing fields are refused."""
    optional = optional or {}
    try:
        data = json.loads(request.body or b"null")
    except (ValueError, RecursionError):
        raise Invalid("The body is not valid JSON.") from None
    if not isinstance(data, dict):
        raise Invalid("The body must be a JSON object.")
    unknown = sorted(set(data) - set(required) - set(optional))
    if unknown:
        raise Invalid(f"Unknown field(s): {', '.join(map(repr, unknown))}.", fields=unknown)
    missing = [k for k in required if k not in data or data[k] is None]
    if missing:
        raise Invalid(f"Missing field(s): {', '.join(map(repr, missing))}.", fields=missing)
    out: dict[str, Any] = {}
    for key, kind in {**required, **optional}.items():
        value = data.get(key)
        out[key] = None if value is None else KINDS[kind](value, key)
    return out


def _query_int(request: HttpRequest, name: str, default: int, low: int, high: int) -> int:
    raw = request.GET.get(name)
    if raw is None or raw == "":
        return default
    if not re.fullmatch(r"[0-9]{1,19}", raw.strip()):
        raise Invalid(f"'{name}' must be a whole number from {low} to {high}.")
    return _whole(int(raw), name, low, high)


def _until(request: HttpRequest) -> float | None:
    raw = request.GET.get("until")
    if raw is None or raw == "":
        return None
    try:
        value = checks.parse_when(raw)
    except (OverflowError, ValueError, OSError):
        raise Invalid(f"{raw!r} is not a time: give ISO 8601 (2026-11-12T09:30) or epoch seconds.") from None
    if not math.isfinite(value):
        raise Invalid(f"{raw!r} is not a time.")
    return value


def _notebook(title: str) -> Notebook:
    if not _TITLE.fullmatch(title):
        raise NotFound(f"No notebook is titled {title!r}.")
    return selectors.get_notebook(title)


def _number(raw: str, what: str = "line number") -> int:
    if not re.fullmatch(r"[0-9]+", raw):
        raise Invalid(f"The {what} {raw!r} is not a positive whole number.")
    if len(raw) > 20 or not 1 <= int(raw) <= (MAX_NUMBER if what == "line number" else MAX_ID):
        raise NotFound(f"There is no {what} {raw[:40]}.")
    return int(raw)


def _title_field(value: str) -> str:
    if not _TITLE.fullmatch(value):
        raise NotFound(f"No notebook is titled {value!r}.")
    return value


# ----- reads -------------------------------------------------------------------------------------


@endpoint("GET")
def notebooks(request: HttpRequest, actor: Actor) -> JsonResponse:
    claims = {s.notebook_id: s for s in session_claims.open_sessions()}
    heads = session_selectors.heads()
    found = []
    for nb in Notebook.objects.order_by("title"):
        claim = claims.get(nb.pk)
        found.append(
            {
                "title": nb.title,
                "head": heads.get(nb.pk, 0),
                "session": {"id": claim.pk, "actor": claim.actor} if claim else None,
            }
        )
    return JsonResponse({"notebooks": found})


@endpoint("GET", "POST")
def lines(request: HttpRequest, actor: Actor, title: str) -> JsonResponse:
    if request.method == "POST":
        return _add(request, actor, title)
    nb = _notebook(title)
    until = _until(request)
    read = selectors.pinned_view(nb, until=until)
    lines = [line.as_dict() for line in read.lines]
    return JsonResponse({"notebook": nb.title, "until": until, "seq": read.seq, "hash": read.hash, "lines": lines})


@endpoint("GET")
def turn(request: HttpRequest, actor: Actor, title: str) -> JsonResponse:
    nb = _notebook(title)
    until = _until(request)
    return JsonResponse({"notebook": nb.title, "until": until, "text": selectors.turn(nb, until=until)})


@endpoint("GET")
def history(request: HttpRequest, actor: Actor, title: str, n: str) -> JsonResponse:
    nb = _notebook(title)
    number = _number(n)
    entries = selectors.history(nb, number)
    return JsonResponse({"notebook": nb.title, "n": number, "entries": [e.as_dict() for e in entries]})


@endpoint("GET")
def rows(request: HttpRequest, actor: Actor, title: str) -> JsonResponse:
    nb = _notebook(title)
    after = _query_int(request, "after", 0, 0, MAX_ID)
    limit = _query_int(request, "limit", ROWS_PAGE, 1, ROWS_PAGE_MAX)
    found = list(selectors.rows(nb, after=min(after, selectors.ALL), limit=limit + 1))
    more = len(found) > limit
    found = found[:limit]
    after_last = found[-1]["seq"] if found else after
    return JsonResponse({"notebook": nb.title, "after": after, "rows": found, "next": after_last, "more": more})


# ----- writes ------------------------------------------------------------------------------------


def _add(request: HttpRequest, actor: Actor, title: str) -> JsonResponse:
    body = _body(request, {"text": "text", "source": "text", "why": "text"})
    written = services.add(
        notebook=_title_field(title), text=body["text"], source=body["source"], by=actor, why=body["why"]
    )
    return JsonResponse({"n": written.n, "seq": written.seq}, status=201)


@endpoint("POST")
def edit(request: HttpRequest, actor: Actor, title: str, n: str) -> JsonResponse:
    number = _number(n)
    body = _body(request, {"to": "text", "why": "text"}, {"expected": "seq"})
    written = services.edit(
        notebook=_title_field(title), n=number, to=body["to"], by=actor, why=body["why"], expected=body["expected"]
    )
    return JsonResponse({"n": written.n, "seq": written.seq})


@endpoint("POST")
def retire(request: HttpRequest, actor: Actor, title: str, n: str) -> JsonResponse:
    number = _number(n)
    body = _body(request, {"why": "text"}, {"into": "line", "expected": "seq"})
    written = services.retire(
        notebook=_title_field(title),
        n=number,
        by=actor,
        why=body["why"],
        into=body["into"],
        expected=body["expected"],
    )
    return JsonResponse({"n": written.n, "seq": written.seq})


@endpoint("POST")
def redact(request: HttpRequest, actor: Actor, title: str, n: str) -> JsonResponse:
    number = _number(n)
    body = _body(request, {"why": "text"}, {"seq": "seq", "digest": "digest"})
    written = services.redact(
        notebook=_title_field(title), n=number, by=actor, why=body["why"], seq=body["seq"], digest=body["digest"]
    )
    return JsonResponse({"n": written.n, "seq": written.seq})


@endpoint("POST")
def merge(request: HttpRequest, actor: Actor, title: str) -> JsonResponse:
    body = _body(request, {"numbers": "lines", "text": "text", "why": "text"}, {"source": "text"})
    written = services.merge(
        notebook=_title_field(title),
        numbers=body["numbers"],
        text=body["text"],
        by=actor,
        why=body["why"],
        source=body["source"],
    )
    return JsonResponse({"n": written.n, "seqs": list(written.seqs)}, status=201)


# ----- sessions ----------------------------------------------------------------------------------


@endpoint("GET", "POST")
def sessions_(request: HttpRequest, actor: Actor) -> JsonResponse:
    if request.method == "POST":
        body = _body(request, {"notebook": "text", "plan": "text"})
        taken = sessions.take(notebook=_title_field(body["notebook"]), plan=body["plan"], by=actor)
        return JsonResponse(
            {"id": taken.id, "notebook": taken.notebook, "base": taken.base, "drift": taken.drift}, status=201
        )
    state = request.GET.get("state") or None
    if state not in (None, "open", "landed", "no-op", "abandoned"):
        raise Invalid("'state' is one of open, landed, no-op, abandoned.")
    views = session_selectors.recent(limit=100, state=state)
    return JsonResponse({"sessions": [v.as_dict() for v in views]})


@endpoint("GET")
def session(request: HttpRequest, actor: Actor, session_id: str) -> JsonResponse:
    found = session_selectors.get_session(_number(session_id, "session"))
    return JsonResponse(session_selectors.describe(found, rows=True).as_dict(rows=True))


@endpoint("POST")
def checkpoint(request: HttpRequest, actor: Actor, session_id: str) -> JsonResponse:
    number = _number(session_id, "session")
    body = _body(request, {"note": "text"})
    done = sessions.checkpoint(session=number, note=body["note"], by=actor)
    return JsonResponse({"id": done.id, "base": done.base, "head": done.head})


@endpoint("POST")
def land(request: HttpRequest, actor: Actor, session_id: str) -> JsonResponse:
    number = _number(session_id, "session")
    body = _body(request, {}, {"summary": "text"})
    done = sessions.land(session=number, summary=body["summary"], by=actor)
    return JsonResponse(
        {
            "id": done.id,
            "result": done.result,
            "base": done.base,
            "head": done.head,
            "rows": done.rows,
            "drift": done.drift,
        }
    )


@endpoint("POST")
def abandon(request: HttpRequest, actor: Actor, session_id: str) -> JsonResponse:
    number = _number(session_id, "session")
    body = _body(request, {"why": "text"})
    done = sessions.abandon(session=number, why=body["why"], by=actor)
    return JsonResponse(
        {"id": done.id, "result": "abandoned", "head": done.head, "rows": done.rows, "drift": done.drift}
    )


# ----- the description and the rest ------------------------------------------------------------------


@endpoint("GET", auth=False)
def openapi(request: HttpRequest, actor: None) -> JsonResponse:
    return JsonResponse(document())


@endpoint("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", auth=False)
def unknown(request: HttpRequest, actor: None, rest: str = "") -> JsonResponse:
    raise NotFound(f"No API endpoint at {request.path!r}; see /api/openapi.json.")
