"""An agent's call (a bearer token on the API or /mcp) is served through settings.AGENT_MIDDLEWARE only
(notebook_site/wsgi.py): the same answer and headers as through the whole chain, and everything else as before."""

import io
import sys

import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from notebook_site import wsgi


@pytest.fixture
def connection_kept(monkeypatch):
    """The test's transaction outlives each request (a request's start and end would close the connection it runs in,
    as Django's test client keeps it)."""
    monkeypatch.setattr(wsgi, "close_old_connections", lambda: None)  # the early 304's own calls of it
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def call(handler, path: str, token: str | None = None, cookie: str | None = None):  # noqa: ANN001, ANN201
    environ = {
        "REQUEST_METHOD": "GET", "SCRIPT_NAME": "", "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "testserver",
        "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1", "HTTP_HOST": "testserver", "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr, "wsgi.url_scheme": "http", "wsgi.version": (1, 0), "wsgi.multithread": True,
        "wsgi.multiprocess": True, "wsgi.run_once": False,
    }  # fmt: skip
    if token:
        environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    if cookie:
        environ["HTTP_COOKIE"] = cookie
    got: dict = {}

    def start_response(status: str, headers: list, exc_info: object = None) -> None:
        got.update(status=status, headers=dict(headers))

    result = handler(environ, start_response)
    try:
        body = b"".join(result)
    finally:
        if hasattr(result, "close"):  # a WSGI answer need not have one
            result.close()
    return got["status"], got["headers"], body


def test_an_agents_call_skips_the_cards_middleware(settings):
    names = {m.rsplit(".", 1)[-1] for m in settings.AGENT_MIDDLEWARE}
    assert "SessionMiddleware" not in names and "CsrfViewMiddleware" not in names
    assert {"SecurityMiddleware", "DatabaseUnavailableMiddleware"} <= names
    assert wsgi.is_agents({"PATH_INFO": "/api/notebooks/zelda/turn", "HTTP_AUTHORIZATION": "Bearer x"})
    assert wsgi.is_agents({"PATH_INFO": "/mcp", "HTTP_AUTHORIZATION": "bearer x"})
    assert not wsgi.is_agents({"PATH_INFO": "/api/notebooks/zelda/turn"})  # no token: the whole chain
    assert not wsgi.is_agents({"PATH_INFO": "/api/docs", "HTTP_AUTHORIZATION": "Bearer x"})  # the card's sign-in
    assert not wsgi.is_agents({"PATH_INFO": "/notebooks/", "HTTP_AUTHORIZATION": "Bearer x"})


@pytest.mark.parametrize("path", ["/api/notebooks/zelda/turn", "/api/notebooks/zelda/lines", "/api/nowhere"])
def test_an_agents_call_answers_as_through_the_whole_chain(zelda, pippa, connection_kept, path):
    lean = call(wsgi.agents, path, pippa.secret)
    full = call(wsgi.everyone, path, pippa.secret)
    assert lean[0] == full[0] and lean[2] == full[2]
    assert lean[0].startswith("404" if path == "/api/nowhere" else "200")
    assert {k: v for k, v in lean[1].items() if k != "Vary"} == {k: v for k, v in full[1].items() if k != "Vary"}
    assert call(wsgi.application, path, pippa.secret)[0] == lean[0]


def test_without_a_token_or_on_the_docs_the_whole_chain_answers(zelda, pippa, connection_kept):
    status, headers, _ = call(wsgi.application, "/api/docs", pippa.secret)
    assert status.startswith("302") and "/login" in headers["Location"]  # the sign-in, not a 500
    status, _, body = call(wsgi.application, "/api/notebooks/zelda/turn")
    assert status.startswith("401") and b"token" in body.lower()


def conditional_call(path: str, token: str, tag: str, **environ: str) -> tuple[str, dict, bytes]:
    """`call` through wsgi.application with If-None-Match (and any other environ given)."""
    original = wsgi.application

    def with_tag(env: dict, start_response):  # noqa: ANN001, ANN202
        env.update(HTTP_IF_NONE_MATCH=tag, **environ)
        if "?" in env["PATH_INFO"]:
            env["PATH_INFO"], env["QUERY_STRING"] = env["PATH_INFO"].split("?", 1)
        return original(env, start_response)

    return call(with_tag, path, token)


@pytest.fixture
def headers_learned(monkeypatch):  # noqa: ANN001, ANN201
    monkeypatch.setattr(wsgi, "_not_modified", {})


@pytest.fixture
def django_refused(monkeypatch):  # noqa: ANN001, ANN201
    """After it is asked for: Django's handler must not run (an answer before it, or an AssertionError)."""

    def refuse() -> None:
        def refused(environ, start_response):  # noqa: ANN001, ANN202
            raise AssertionError(f"Django's handler ran for {environ['PATH_INFO']}")

        monkeypatch.setattr(wsgi, "agents", refused)

    return refuse


FAST = ["/api/notebooks/zelda/turn", "/api/notebooks/zelda/rows", "/api/notebooks/zelda/lines?limit=2", "spaced"]


@pytest.mark.parametrize("path", FAST)
def test_an_unchanged_read_is_answered_before_djangos_handler_with_djangos_headers(
    zelda, pippa, connection_kept, headers_learned, django_refused, path
):
    if path == "spaced":
        from notebooks.log import services

        services.create_notebook(title="zelda demo+1", by="dad")
        path = "/api/notebooks/zelda demo+1/lines?after=1"  # as a WSGI server hands it: %20 decoded, the query not
    status, headers, _ = conditional_call(path, pippa.secret, '"none yet"')
    tag = headers["ETag"]
    first = conditional_call(path, pippa.secret, tag)  # Django answers it: its headers are kept
    django_refused()
    second = conditional_call(path, pippa.secret, tag)
    assert status.startswith("200") and first[0] == second[0] == "304 Not Modified"
    assert first[1] == second[1] and second[1]["ETag"] == tag and "X-Frame-Options" in second[1]


def test_a_304_is_answered_before_django_only_for_a_host_and_scheme_django_answered(
    zelda, pippa, connection_kept, headers_learned, django_refused
):
    path = "/api/notebooks/zelda/turn"
    tag = conditional_call(path, pippa.secret, '"none yet"')[1]["ETag"]
    assert conditional_call(path, pippa.secret, tag)[0].startswith("304")
    django_refused()
    for other in ({"HTTP_HOST": "evil.example"}, {"wsgi.url_scheme": "https"}, {"HTTP_HOST": "testserver:8000"}):
        with pytest.raises(AssertionError, match="Django's handler ran"):
            conditional_call(path, pippa.secret, tag, **other)


def test_a_bad_host_is_refused_as_before_even_with_a_304_kept(zelda, pippa, connection_kept, headers_learned):
    path = "/api/notebooks/zelda/turn"
    tag = conditional_call(path, pippa.secret, '"none yet"')[1]["ETag"]
    assert conditional_call(path, pippa.secret, tag)[0].startswith("304")
    assert conditional_call(path, pippa.secret, tag, HTTP_HOST="evil.example")[0].startswith("400")


NOT_FAST = ["/api/notebooks/zelda/turn?until=2020-01-01T00:00:00Z", "/api/notebooks/zelda/lines/2/history"]


@pytest.mark.parametrize("path", NOT_FAST)
def test_a_frozen_read_or_a_history_goes_to_django(
    zelda, pippa, connection_kept, headers_learned, django_refused, path
):
    live = "/api/notebooks/zelda/turn"
    tag = conditional_call(live, pippa.secret, '"none yet"')[1]["ETag"]
    assert conditional_call(live, pippa.secret, tag)[0].startswith("304")  # the headers are kept
    tag = conditional_call(path, pippa.secret, '"none yet"')[1]["ETag"]
    django_refused()
    with pytest.raises(AssertionError, match="Django's handler ran"):
        conditional_call(path, pippa.secret, tag)


def test_a_changed_notebook_or_a_refused_token_goes_to_django(
    zelda, pippa, connection_kept, headers_learned, django_refused
):
    path = "/api/notebooks/zelda/turn"
    tag = conditional_call(path, pippa.secret, '"none yet"')[1]["ETag"]
    assert conditional_call(path, pippa.secret, tag)[0].startswith("304")
    assert conditional_call(path, "not-a-token", tag)[0].startswith("401")
    from notebooks.log import services

    services.add(notebook="zelda", text="a new line", source="seen", why="x", by="pippa")
    django_refused()
    with pytest.raises(AssertionError, match="Django's handler ran"):
        conditional_call(path, pippa.secret, tag)


def test_an_early_304_checks_the_connection_at_its_start_and_end_as_djangos_handler_does(
    zelda, pippa, connection_kept, headers_learned, django_refused, monkeypatch
):
    path = "/api/notebooks/zelda/turn"
    tag = conditional_call(path, pippa.secret, '"none yet"')[1]["ETag"]
    assert conditional_call(path, pippa.secret, tag)[0].startswith("304")  # Django's: its headers are kept
    django_refused()
    checks: list[str] = []
    monkeypatch.setattr(wsgi, "close_old_connections", lambda: checks.append("checked"))  # CONN_MAX_AGE, errors
    assert conditional_call(path, pippa.secret, tag)[0].startswith("304")
    assert checks == ["checked", "checked"]
