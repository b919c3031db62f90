"""The agent's JSON API on django-ninja: its bearer token, every refusal as {"error": {...}}, and its URLs (a wrong
method, an unknown query parameter or path answered as JSON); the operations are on each resource's router."""

import functools
import re
import sys
from collections.abc import Callable
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import URLPattern, path
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.openapi.views import openapi_view
from ninja.security import HttpBearer

from notebooks.agents import document, refusals, tokens
from notebooks.agents.api import lines, notebooks, sessions
from notebooks.agents.refusals import BAD_TOKEN, NO_TOKEN, MethodNotAllowed, Unauthorized, http_refusal
from notebooks.log.files.rowformat import GAME_ONLY
from notebooks.log.identity.roles import Actor
from notebooks.log.rules.errors import Invalid, NotebookError, NotFound
from notebooks.version import VERSION


class Bearer(HttpBearer):
    """Authorization: Bearer <token>, a token of tokens.py; the actor it speaks for becomes request.auth."""

    def authenticate(self, request: HttpRequest, token: str) -> Actor:
        actor = tokens.caller(token)  # any call of a session's holder renews its lease
        if actor is None:
            raise Unauthorized(BAD_TOKEN)
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


def _refused(request: HttpRequest, exc: Exception) -> JsonResponse:
    if isinstance(exc, ValidationError):
        route = getattr(request, "api_route", None)
        known = _taken().body.get((route, request.method or "")) if route else None
        given = request.resolver_match.kwargs if request.resolver_match else {}
        exc = refusals.invalid_request(exc.errors, given, known)
    elif isinstance(exc, AuthenticationError):
        exc = Unauthorized(NO_TOKEN)
    elif isinstance(exc, HttpError):  # ninja's own 400: a body that is not JSON
        exc = Invalid(_unparsed(exc.__cause__) if exc.status_code == 400 else str(exc))
    elif isinstance(exc, RequestDataTooBig):
        exc = refusals.too_large()
    elif isinstance(exc, SuspiciousOperation):  # e.g. too many query fields: Django's own 400, as JSON
        exc = Invalid(f"The request was refused: {exc}")
    return http_refusal(exc)


def _unparsed(cause: BaseException | None) -> str:
    if isinstance(cause, ValueError) and "integer string conversion" in str(cause):  # valid JSON, past Python's limit
        return f"A number in the body has more than {sys.get_int_max_str_digits()} digits: no field takes one so long."
    return "The body is not valid JSON."


for _kind in (NotebookError, ValidationError, HttpError, RequestDataTooBig, SuspiciousOperation):
    api.add_exception_handler(_kind, _refused)


# Each resource's operations on a router of its own, mounted at the API's root (an operation's path is its own).
for routes in (notebooks.router, lines.router, sessions.router):
    api.add_router("", routes)


@csrf_exempt
def unknown(request: HttpRequest, rest: str = "") -> JsonResponse:
    return http_refusal(NotFound(f"No API endpoint at {request.path!r}; see /api/openapi.json."))


@functools.cache
def _taken() -> document.Taken:
    """The query parameters and the body's fields each operation takes, read from the document once."""
    return document.taken(api.get_openapi_schema())


def warm() -> None:
    """Read the fields each operation takes at start: on a first call it held that worker for about a second."""
    _taken()


def _json_405(view: Callable, route: str) -> Callable:
    """A wrong method answered as JSON (ninja's is plain text), an unknown query parameter refused before the view."""

    @csrf_exempt
    def inner(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            given = list(request.GET)
        except SuspiciousOperation as exc:  # too many fields
            return _refused(request, exc)
        request.api_route = "/api/" + route  # the document's path: a refusal names the fields its body takes
        known = _taken().query.get((request.api_route, request.method or ""))
        unknown = [name for name in given if known is not None and name not in known]
        if unknown:
            return http_refusal(refusals.unknown_query(unknown, known or []))
        twice = sorted({name for name in given if len(request.GET.getlist(name)) > 1})
        if twice:  # which one would count is a guess: refused, as an unknown one is
            said = "; ".join(f"'{name}': given {len(request.GET.getlist(name))} times" for name in twice)
            return http_refusal(Invalid(f"{said}: send each query parameter once.", fields=twice))
        response = view(request, *args, **kwargs)
        if response.status_code != 405:
            return response
        allowed = ", ".join(m for m in ("GET", "POST") if m in response.get("Allow", ""))
        refused = http_refusal(MethodNotAllowed(f"{request.method} is not allowed here; use {allowed}."))
        refused["Allow"] = allowed
        return refused

    return inner


@login_required
def docs(request: HttpRequest) -> HttpResponse:
    """The generated document rendered by ninja's Swagger UI, from the app's own static files."""
    return openapi_view(request, api=api)


def urlpatterns() -> list[URLPattern]:
    """Ninja's routes through _json_405; its root (reversed for the document's paths) a JSON 404."""
    routes = []
    for p in api.urls[0]:
        if p.name == "api-root":
            continue
        view = require_safe(p.callback) if p.name == "openapi-json" else p.callback  # the document is only read
        route = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", str(p.pattern))  # the document's path of the pattern
        routes.append(path(str(p.pattern), _json_405(view, route), name=p.name))
    return [*routes, path("", unknown, name="api-root"), path("docs", docs, name="docs")]
