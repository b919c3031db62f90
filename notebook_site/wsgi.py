import os
from collections.abc import Callable, Iterable
from typing import Any

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notebook_site.settings")
everyone = get_wsgi_application()

from django.conf import settings  # noqa: E402 - after the setup above
from django.core.handlers.wsgi import WSGIHandler, get_path_info, get_script_name  # noqa: E402
from django.db import close_old_connections, reset_queries  # noqa: E402
from django.utils.encoding import escape_uri_path, iri_to_uri  # noqa: E402

from notebooks.agents.api import warm as warm_api  # noqa: E402
from notebooks.agents.conditional import asks_until, unchanged_tag  # noqa: E402


class AgentHandler(WSGIHandler):
    """The app with settings.AGENT_MIDDLEWARE only, for an agent's calls (bench/NOTES.md: 0.73 -> 0.58 ms of CPU)."""

    def load_middleware(self, is_async: bool = False) -> None:
        full = settings.MIDDLEWARE
        settings.MIDDLEWARE = settings.AGENT_MIDDLEWARE  # read once, here, while the process starts
        try:
            super().load_middleware(is_async)
        finally:
            settings.MIDDLEWARE = full


agents = AgentHandler()
warm_api()

# What Django checks of a request beside its path and token (its host, https) decides the headers of its answer.
HEADERS_KEPT = 64  # hosts and schemes whose 304 headers are kept (ALLOWED_HOSTS may be "*")
_not_modified: dict[tuple, list[tuple[str, str]]] = {}
_HOST_AND_SCHEME = ("wsgi.url_scheme", "HTTP_HOST", "SERVER_NAME", "SERVER_PORT", "HTTP_X_FORWARDED_HOST",
                    "HTTP_X_FORWARDED_PORT", *(settings.SECURE_PROXY_SSL_HEADER or ())[:1])  # fmt: skip


def not_modified_key(environ: dict[str, Any]) -> tuple:
    return tuple(environ.get(name) for name in _HOST_AND_SCHEME)


def full_path(environ: dict[str, Any], path_info: str) -> str:
    """request.get_full_path() of the request Django would make of `environ` (whose path_info is given)."""
    path = get_script_name(environ).rstrip("/") + "/" + (path_info or "/").replace("/", "", 1)
    query = environ.get("QUERY_STRING", "")
    return escape_uri_path(path) + ("?" + iri_to_uri(query) if query else "")


def unchanged(environ: dict[str, Any], start_response: Callable) -> Iterable[bytes] | None:
    """An agent's unchanged live read answered 304 before Django's handler (bench/NOTES.md: 0.35 -> 0.18 ms of CPU),
    with the headers Django's own 304 (UnchangedMiddleware) carried for the same host and scheme."""
    headers = _not_modified.get(not_modified_key(environ))
    if headers is None or environ.get("REQUEST_METHOD") != "GET" or "HTTP_IF_NONE_MATCH" not in environ:
        return None
    if asks_until(environ.get("QUERY_STRING", "")):
        return None
    path_info = get_path_info(environ)
    # request_started's and request_finished's receivers, called, not sent (bench/NOTES.md: 0.147 -> 0.119 ms a 304).
    reset_queries()
    close_old_connections()
    try:
        tag = unchanged_tag(
            path_info, environ.get("HTTP_AUTHORIZATION", ""), environ["HTTP_IF_NONE_MATCH"],
            full_path(environ, path_info),
        )  # fmt: skip
    finally:
        close_old_connections()
    if tag is None:
        return None
    start_response("304 Not Modified", [*headers, ("ETag", tag)])
    return []


def learning(environ: dict[str, Any], start_response: Callable) -> Callable:
    """start_response, keeping the headers of a 304 Django answered (its ETag aside) for `unchanged`."""
    key = not_modified_key(environ)

    def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        if status.startswith("304 ") and key not in _not_modified and len(_not_modified) < HEADERS_KEPT:
            _not_modified.setdefault(key, [(k, v) for k, v in headers if k.lower() != "etag"])
        return start_response(status, headers, exc_info) if exc_info is not None else start_response(status, headers)

    return start


def is_agents(environ: dict[str, Any]) -> bool:
    """A call with a bearer token to the API (its docs page aside: it needs the card's sign-in) or to /mcp."""
    path = environ.get("PATH_INFO", "")
    bearer = environ.get("HTTP_AUTHORIZATION", "")[:7].lower() == "bearer "
    return bearer and (path == "/mcp" or (path.startswith("/api/") and not path.startswith("/api/docs")))


def application(environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
    if not is_agents(environ):
        return everyone(environ, start_response)
    if "HTTP_IF_NONE_MATCH" not in environ:
        return agents(environ, start_response)
    early = unchanged(environ, start_response)
    return early if early is not None else agents(environ, learning(environ, start_response))
