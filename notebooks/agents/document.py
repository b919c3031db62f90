"""The OpenAPI document ninja generates, finished: refusals in the API's words, Retry-After, the Idempotency-Key, the
token, version and contact, ETag and 304, and no unused component (ninja lists each query model)."""

import json
import re
from typing import Any, NamedTuple

from notebooks.agents.idempotency import HEADER, KEY_PATTERN, MAX_KEY, SAID
from notebooks.agents.refusals import SAID as REFUSALS_SAID
from notebooks.version import VERSION

TAGS = [
    {"name": "notebooks", "description": "The notebooks: list, create, the turn, the raw rows."},
    {"name": "lines", "description": "A notebook's lines: read, history, add, edit, retire, redact, merge, suggest."},
    {"name": "sessions", "description": "Take, checkpoint, land and abandon a session; read sessions."},
]
CONTACT = {"name": "The editor of this instance, who gives out its tokens (python manage.py notebook token NAME)"}
LEASE = "A notebook claimed by another session: the seconds until its holder's lease would lapse."
IN_PROGRESS = (
    f"A request with the same {HEADER} still being answered (idempotency_in_progress): the seconds to wait before "
    "sending it again."
)
SUGGEST_RETRY = "Too many suggestions pending on the notebook: the seconds to wait before suggesting again."
RETRY_AFTER = {
    503: "Seconds to wait before trying the same write again.",
    429: "Too many new notebooks: the seconds until this actor may create one again.",
}
KEY_PARAMETER = {
    "name": HEADER, "in": "header", "required": False,
    "description": f"Makes a retry safe: {SAID} A refusal is not kept: its retry runs again.",
    "schema": {"type": "string", "minLength": 1, "maxLength": MAX_KEY, "pattern": KEY_PATTERN},
}  # fmt: skip


ETAG = {
    "ETag": {
        "description": "Names this answer: the notebook's head, the reader's view (a session's holder reads her own) "
        "and the request. Send it back as If-None-Match to be answered 304 while it still stands.",
        "schema": {"type": "string"},
    }
}
IF_NONE_MATCH = {
    "name": "If-None-Match", "in": "header", "required": False,
    "description": "The ETag of an answer read before: while it still stands the answer is 304, with no body.",
    "schema": {"type": "string"},
}  # fmt: skip
UNCHANGED = (
    "Not modified: the If-None-Match names this answer's ETag, which still stands (no row written since, the "
    "reader's session as it was). No body: use the answer read before."
)


def _retry_after(description: str) -> dict[str, Any]:
    return {"Retry-After": {"description": description, "schema": {"type": "integer", "minimum": 1}}}


def finish(doc: dict[str, Any]) -> dict[str, Any]:
    for path_methods in doc["paths"].values():
        for method, operation in path_methods.items():
            responses = operation["responses"]  # keyed by int, as ninja makes them
            for status, answer in responses.items():
                if status in REFUSALS_SAID:
                    answer["description"] = REFUSALS_SAID[status]
                if status in RETRY_AFTER:
                    said = SUGGEST_RETRY if (operation.get("operationId"), status) == ("suggestLines", 429) else None
                    answer["headers"] = _retry_after(said or RETRY_AFTER[status])
            if method == "post":
                _keyed(operation)
            if 304 in responses:
                _conditional(operation)
    doc["info"]["version"] = VERSION
    doc["info"]["contact"] = dict(CONTACT)
    doc["tags"] = TAGS
    doc["security"] = [{"Bearer": []}]
    _drop_unused(doc)
    return doc


def _keyed(write: dict[str, Any]) -> None:
    """The Idempotency-Key header on a write, its 422, and its 409 while the key's first request runs."""
    write.setdefault("parameters", []).append(dict(KEY_PARAMETER))
    responses = write["responses"]
    responses[422] = {
        "description": f"The {HEADER} was already used for another request (code idempotency_mismatch); "
        "nothing is written.",
        "content": responses[400]["content"],
    }
    if 409 in responses:
        responses[409]["description"] += (
            f" Or a request with the same {HEADER} is still being answered (code idempotency_in_progress): "
            "send it again after its Retry-After."
        )
        # A take's 409 may also be a claimed notebook, whose lease its Retry-After counts down.
        said = f"{LEASE} {IN_PROGRESS}" if write.get("operationId") == "takeSession" else IN_PROGRESS
        responses[409]["headers"] = _retry_after(said)


def _conditional(read: dict[str, Any]) -> None:
    """A conditional read (agents/conditional.py): its If-None-Match, its answer's ETag, and its 304."""
    read.setdefault("parameters", []).append(dict(IF_NONE_MATCH))
    read["responses"][200]["headers"] = dict(ETAG)
    read["responses"][304] = {"description": UNCHANGED, "headers": dict(ETAG)}


def _refs(node: Any) -> set[str]:
    return set(re.findall(r'"#/components/schemas/([^"]+)"', json.dumps(node)))


def _drop_unused(doc: dict[str, Any]) -> None:
    schemas = doc.get("components", {}).get("schemas", {})
    used = _refs(doc["paths"])
    todo = list(used)
    while todo:  # what the used components use in turn
        inner = _refs(schemas.get(todo.pop(), {}))
        todo.extend(inner - used)
        used |= inner
    for name in set(schemas) - used:
        del schemas[name]


class Taken(NamedTuple):
    """What each operation takes, by (path, method): its query parameters (any other is refused) and its JSON body's
    fields (named when an unknown one is refused)."""

    query: dict[tuple[str, str], list[str]]
    body: dict[tuple[str, str], list[str]]


def taken(doc: dict[str, Any]) -> Taken:
    schemas = doc.get("components", {}).get("schemas", {})
    query, body = {}, {}
    for path, methods in doc["paths"].items():
        for method, op in methods.items():
            key = (path, method.upper())
            query[key] = sorted(p["name"] for p in op.get("parameters", []) if p["in"] == "query")
            sent = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
            ref = sent.get("$ref", "")
            model = schemas.get(ref.rsplit("/", 1)[-1], sent) if ref else sent
            if model.get("properties"):
                body[key] = sorted(model["properties"])
    return Taken(query, body)
