"""An agent's call (a bearer token on the API or /mcp) is served through settings.AGENT_MIDDLEWARE only
(notebook_site/wsgi.py): the same answer and headers as through the whole chain, and everything else as before."""

import io
import sys

import pytest
from django.core.signals import request_finished
from django.db import close_old_connections

from notebook_site import wsgi


@pytest.fixture
def connection_kept():
    """The test's transaction outlives each request (a request's end would close the connection it runs in)."""
    request_finished.disconnect(close_old_connections)
    yield
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
    assert {k: v for k, v in lean[1].items() if k != "Vary"} == {k: v for k, v in full[1].items() if k != "Vary"}
    assert call(wsgi.application, path, pippa.secret)[0] == lean[0]


def test_without_a_token_or_on_the_docs_the_whole_chain_answers(zelda, pippa, connection_kept):
    status, headers, _ = call(wsgi.application, "/api/docs", pippa.secret)
    assert status.startswith("302") and "/login" in headers["Location"]  # the sign-in, not a 500
    status, _, body = call(wsgi.application, "/api/notebooks/zelda/turn")
    assert status.startswith("401") and b"token" in body.lower()
