"""The shapes of the API's answers in its OpenAPI document (openapi.py): lines, history, sessions, errors."""

from typing import Any


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _obj(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required or list(properties)}


def schemas() -> dict[str, Any]:
    """The components' schemas: every answer's shape, and the error's."""
    s, i, num = {"type": "string"}, {"type": "integer"}, {"type": "number"}
    ns, ni, nn = (
        {"type": "string", "nullable": True},
        {"type": "integer", "nullable": True},
        {"type": "number", "nullable": True},
    )
    event = _obj({"seq": i, "kind": s, "by": s, "at": num, "head": i, "after": ni, "note": s, "result": s, "rows": i})
    row = {
        "type": "object",
        "properties": {"op": s, "n": i, "seq": i, "hash": s, "at": num},
        "required": ["op", "n", "seq", "hash", "at"],
    }
    session = _obj(
        {
            "id": i,
            "notebook": s,
            "actor": s,
            "role": s,
            "plan": s,
            "base": i,
            "at": num,
            "state": {"type": "string", "enum": ["open", "landed", "no-op", "abandoned"]},
            "events": {"type": "array", "items": event},
            "change_rows": i,
            "drift_rows": i,
        }
    )
    return {
        "Error": _obj(
            {"error": _obj({"code": s, "message": s}) | {"additionalProperties": True}},
        ),
        "NotebookList": _obj(
            {
                "notebooks": {
                    "type": "array",
                    "items": _obj(
                        {
                            "title": s,
                            "head": i,
                            "session": {**_obj({"id": i, "actor": s}), "nullable": True},
                        }
                    ),
                }
            }
        ),
        "Line": _obj({"n": i, "text": s, "source": s, "by": s, "at": num, "seq": i}),
        "Lines": _obj(
            {
                "notebook": s,
                "until": nn,
                "seq": i,
                "hash": ns,
                "lines": {"type": "array", "items": ref("Line")},
            }
        ),
        "Turn": _obj({"notebook": s, "until": nn, "text": s}),
        "History": _obj(
            {
                "notebook": s,
                "n": i,
                "entries": {
                    "type": "array",
                    "items": _obj(
                        {
                            "seq": i,
                            "op": s,
                            "text": ns,
                            "source": s,
                            "by": s,
                            "at": num,
                            "why": s,
                            "how": s,
                            "into": ni,
                            "adopted": {"type": "boolean"},
                            "was_at": nn,
                            "was_by": s,
                        }
                    ),
                },
            }
        ),
        "Rows": _obj(
            {"notebook": s, "after": i, "rows": {"type": "array", "items": row}, "next": i, "more": {"type": "boolean"}}
        ),
        "Written": _obj({"n": i, "seq": i}),
        "Merged": _obj({"n": i, "seqs": {"type": "array", "items": i}}),
        "Taken": _obj({"id": i, "notebook": s, "base": i, "drift": i}),
        "Checkpointed": _obj({"id": i, "base": i, "head": i}),
        "Landed": _obj(
            {
                "id": i,
                "result": {"type": "string", "enum": ["landed", "no-op"]},
                "base": i,
                "head": i,
                "rows": i,
                "drift": i,
            }
        ),
        "Abandoned": _obj({"id": i, "result": s, "head": i, "rows": i, "drift": i}),
        "SessionList": _obj({"sessions": {"type": "array", "items": session}}),
        "Session": {
            **session,
            "properties": {
                **session["properties"],
                "change": {"type": "array", "items": row},
                "drift": {"type": "array", "items": row},
            },
        },
    }
