"""The API's OpenAPI document, as ninja generates it from schemas.py, finished in one place: each refusal described
in the API's words, the full disk's Retry-After declared, the token required everywhere, the project's version, and
no component that no operation uses (ninja lists each query model, which the document flattens into parameters)."""

from typing import Any

from notebooks.agents.refusals import SAID
from notebooks.version import VERSION

RETRY_AFTER = {
    "description": "Seconds to wait before trying the same write again.",
    "schema": {"type": "integer", "minimum": 1},
}
TAGS = [
    {"name": "notebooks", "description": "The notebooks: list, create, the turn, the raw rows."},
    {"name": "lines", "description": "A notebook's lines: read, history, add, edit, retire, redact, merge."},
    {"name": "sessions", "description": "Take, checkpoint, land and abandon a session; read sessions."},
]


LEASE_RETRY_AFTER = {
    "description": "A notebook claimed by another session: the seconds until its holder's lease would lapse.",
    "schema": {"type": "integer", "minimum": 1},
}

NEW_NOTEBOOKS_RETRY_AFTER = {
    "description": "Too many new notebooks: the seconds until this actor may create one again.",
    "schema": {"type": "integer", "minimum": 1},
}


def finish(doc: dict[str, Any]) -> dict[str, Any]:
    for operation in (op for methods in doc["paths"].values() for op in methods.values()):
        for status, answer in operation["responses"].items():
            if int(status) in SAID:
                answer["description"] = SAID[int(status)]
            if str(status) == "503":  # ninja keys the answers by int
                answer["headers"] = {"Retry-After": RETRY_AFTER}
            if str(status) == "429":
                answer["headers"] = {"Retry-After": NEW_NOTEBOOKS_RETRY_AFTER}
            if str(status) == "409" and operation.get("operationId") == "takeSession":
                answer["headers"] = {"Retry-After": LEASE_RETRY_AFTER}
    doc["info"]["version"] = VERSION
    doc["tags"] = TAGS
    doc["security"] = [{"Bearer": []}]
    _drop_unused(doc)
    return doc


def _refs(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            found.add(ref.rsplit("/", 1)[1])
        for value in node.values():
            _refs(value, found)
    elif isinstance(node, list):
        for value in node:
            _refs(value, found)


def _drop_unused(doc: dict[str, Any]) -> None:
    schemas = doc.get("components", {}).get("schemas", {})
    used: set[str] = set()
    _refs(doc["paths"], used)
    todo = list(used)
    while todo:  # what the used components use in turn
        inner: set[str] = set()
        _refs(schemas.get(todo.pop(), {}), inner)
        todo.extend(inner - used)
        used |= inner
    for name in set(schemas) - used:
        del schemas[name]


def query_names(doc: dict[str, Any]) -> dict[tuple[str, str], list[str]]:
    """The query parameters each operation takes, by (path, method): any other is refused."""
    return {
        (path, method.upper()): sorted(p["name"] for p in op.get("parameters", []) if p["in"] == "query")
        for path, methods in doc["paths"].items()
        for method, op in methods.items()
    }
