"""The server's floor for `make bench-serve --compare`: a bare WSGI app that answers the load's requests with the
bytes the app answered them with (captured once from the app, BARE_DIR), touching no database and no Django. Served
by the same server with the same workers and load, it is what that server costs before any code of ours runs, so
the app's figures read as a ratio to it, measured in the same run.

    granian --interface wsgi bench.serve_floor:application   (BARE_DIR names the captured answers)
"""

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

_DIR = Path(os.environ.get("BARE_DIR", "."))
ANSWERS = ("turn", "lines", "card", "add")
_BODY = {name: (_DIR / f"{name}.bin").read_bytes() if (_DIR / f"{name}.bin").exists() else b"{}" for name in ANSWERS}
ETAG = '"bare-floor"'


def answer_for(method: str, path: str) -> str:
    if method == "POST":
        return "add"
    if path.endswith("/turn"):
        return "turn"
    if path.endswith("/lines"):
        return "lines"
    return "card"


def application(environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
    path, method = environ.get("PATH_INFO", ""), environ.get("REQUEST_METHOD", "GET")
    if path == "/healthz":
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]
    if method == "POST":
        stream, length = environ["wsgi.input"], int(environ.get("CONTENT_LENGTH") or 0)
        stream.read(length)
    name = answer_for(method, path)
    if name == "turn" and environ.get("HTTP_IF_NONE_MATCH") == ETAG:
        start_response("304 Not Modified", [("ETag", ETAG)])
        return [b""]
    body = _BODY[name]
    status = "201 Created" if name == "add" else "200 OK"
    kind = "text/html; charset=utf-8" if name == "card" else "application/json"
    start_response(status, [("Content-Type", kind), ("Content-Length", str(len(body))), ("ETag", ETAG)])
    return [body]


def capture(base: str, reader_token: str, writer_token: str, dad_session: str, into: Path) -> None:
    """The app's own answers to the load's four requests, as the bare app will give them."""
    import urllib.request

    into.mkdir(parents=True, exist_ok=True)
    bearer = {"Authorization": f"Bearer {reader_token}"}
    asks = {
        "turn": urllib.request.Request(f"{base}/api/notebooks/agent-0/turn", headers=bearer),
        "lines": urllib.request.Request(f"{base}/api/notebooks/agent-0/lines", headers=bearer),
        "card": urllib.request.Request(f"{base}/notebooks/card/", headers={"Cookie": f"sessionid={dad_session}"}),
        "add": urllib.request.Request(
            f"{base}/api/notebooks/agent-0/lines",
            data=b'{"text": "a line for the floor", "source": "seen", "why": "bench"}',
            headers={"Authorization": f"Bearer {writer_token}", "Content-Type": "application/json"},
        ),
    }
    for name, request in asks.items():
        with urllib.request.urlopen(request, timeout=60) as response:
            (into / f"{name}.bin").write_bytes(response.read())
