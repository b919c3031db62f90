"""MCP over Streamable HTTP at /mcp: mcp_server.build's tools for a token's actor, through the SDK's stateless JSON
transport (ASGI) in one event loop per process (an anyio portal), to which each WSGI request hands its exchange."""

import functools
import json
import threading
from typing import Any

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from notebooks.agents import tokens
from notebooks.agents.mcp_server import build
from notebooks.agents.refusals import BAD_TOKEN, NO_TOKEN, MethodNotAllowed, Unauthorized, http_refusal, too_large
from notebooks.log.identity.roles import Actor

_started = threading.Lock()
_portal: BlockingPortal | None = None
_held: list[Any] = []  # the contexts entered for good: dropped, they would be closed and stop the loop


def _loop() -> BlockingPortal:
    """This process's event loop for MCP exchanges, started once and never left."""
    global _portal
    with _started:
        if _portal is None:
            _held.append(start_blocking_portal())
            _portal = _held[-1].__enter__()
        return _portal


@functools.cache
def _manager(name: str, editor: bool) -> StreamableHTTPSessionManager:
    """The actor's tools behind the SDK's transport, in this process's loop."""
    # Django checks the Host header (ALLOWED_HOSTS) and the token stands for the caller: no DNS-rebinding check.
    server = build(Actor(name=name, editor=editor))
    server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    manager = server.session_manager
    _held.append(_loop().wrap_async_context_manager(manager.run()))
    _held[-1].__enter__()
    return manager


def _scope(request: HttpRequest) -> dict[str, Any]:
    headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in request.headers.items()]
    port = int(request.get_port() or 80)
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode(),
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "root_path": "",
        "headers": headers,
        "client": (request.META.get("REMOTE_ADDR", ""), 0),
        "server": (request.get_host().split(":")[0], port),
    }


async def _exchange(manager: StreamableHTTPSessionManager, scope: dict[str, Any], body: bytes) -> HttpResponse:
    """One request through the transport: its body in, the status, headers and body it sends out."""
    answered = anyio.Event()
    given = False
    start: dict[str, Any] = {}
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        await answered.wait()  # the client is still there until its answer is sent
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                answered.set()

    await manager.handle_request(scope, receive, send)
    response = HttpResponse(b"".join(chunks), status=start.get("status", 500))
    for key, value in start.get("headers", []):
        if key.lower() not in (b"content-length", b"connection"):
            response[key.decode("latin-1")] = value.decode("latin-1")
    return response


@csrf_exempt
def endpoint(request: HttpRequest) -> HttpResponse:
    """POST a JSON-RPC message with `Authorization: Bearer <token>`: the MCP tools the token's actor may use."""
    # Stateless: no event stream to GET (it would hold a worker thread), no session to DELETE.
    if request.method != "POST":
        refused = http_refusal(MethodNotAllowed(f"{request.method} is not allowed here; use POST."))
        refused["Allow"] = "POST"
        return refused
    scheme, _, secret = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return http_refusal(Unauthorized(NO_TOKEN))
    actor = tokens.authenticate(secret.strip())
    if actor is None:
        return http_refusal(Unauthorized(BAD_TOKEN))
    try:
        body = request.body
    except RequestDataTooBig:  # as the API answers it (agents/api): a JSON 413, not Django's HTML 400
        return http_refusal(too_large())
    refused = _bad_id(body)
    if refused is not None:
        return refused
    manager = _manager(actor.name, actor.editor)
    return _loop().call(_exchange, manager, _scope(request), body)


def _bad_id(body: bytes) -> JsonResponse | None:
    """A request whose id is no string or whole number (1.5, null, an object): JSON-RPC's -32600, where the SDK would
    take it for a notification, answer 202 with no body and never run it."""
    try:
        message = json.loads(body)
    except ValueError:
        return None  # the SDK's own parse error (-32700)
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return None
    found = message["id"]
    if isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool)):
        return None
    said = "Invalid Request: 'id' must be a string or a whole number (JSON-RPC 2.0); the request was not run."
    return JsonResponse({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": said}}, status=400)
