"""The API's OpenAPI 3 description, written by hand beside the views (api.py) it describes: its paths here, the
shapes of its answers in openapi_schemas.py."""

from typing import Any

from django.conf import settings

from notebooks.agents.openapi_schemas import ref as _ref
from notebooks.agents.openapi_schemas import schemas as _schemas
from notebooks.log.checks import MAX_ID, MAX_NUMBER
from notebooks.log.rowformat import GAME_ONLY
from notebooks.models import TITLE_PATTERN, Source


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
    said = {
        400: "Bad input (malformed JSON, a wrong type, an unknown field, a missing reason…); nothing is written.",
        401: "No token, or an unknown or revoked one.",
        403: "The token's role may not do this (an agent writes only seen or guessed lines, never Dad's).",
        404: "Unknown notebook, line or session.",
        409: "Conflict: a stale edit, a notebook claimed by another session, a write outside the session's title, "
        "a retired line, a session already closed, or a land refused by a final gate (code gate_refused, reasons).",
        413: "The request body is too large.",
    }
    return {str(s): _json(_ref("Error"), said[s]) for s in statuses}


def _body(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _text(description: str, limit: int) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": limit, "description": description}


def _op(op_id: str, summary: str, responses: dict[str, Any], description: str = "", **extra: Any) -> dict[str, Any]:
    out = {"operationId": op_id, "summary": summary, "responses": responses, **extra}
    if description:
        out["description"] = description
    return out


def document() -> dict[str, Any]:
    words = settings.NOTEBOOK_MAX_WORDS
    reason = settings.NOTEBOOK_MAX_REASON
    title = {"name": "title", "in": "path", "required": True, "schema": {"type": "string", "pattern": TITLE_PATTERN}}
    n = {
        "name": "n",
        "in": "path",
        "required": True,
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_NUMBER},
    }
    sid = {
        "name": "id",
        "in": "path",
        "required": True,
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_ID},
    }
    until = {
        "name": "until",
        "in": "query",
        "required": False,
        "description": "Read the notebook as it stood then: ISO 8601 (UTC unless it says) or epoch seconds.",
        "schema": {"type": "string"},
    }
    why = _text("Why, in a few words.", reason)
    line_number = {"type": "integer", "minimum": 1, "maximum": MAX_NUMBER}
    seq = {"type": "integer", "minimum": 1, "maximum": MAX_ID}
    written = _ref("Written")
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "Notebooks API",
            "version": "1",
            "description": "An append-only notebook per game for an agent: lines are added, edited, retired and "
            "merged as new rows; history and any past state are read back. Authenticate with "
            "'Authorization: Bearer <token>' (python manage.py notebook token NAME). " + GAME_ONLY,
        },
        "servers": [{"url": "/"}],
        "security": [{"bearer": []}],
        "paths": {
            "/api/notebooks": {
                "get": _op(
                    "listNotebooks",
                    "The notebooks, each with its head seq and the session that claims it, if any.",
                    {"200": _json(_ref("NotebookList"), "The notebooks."), **_errors(401)},
                )
            },
            "/api/notebooks/{title}/lines": {
                "parameters": [title],
                "get": _op(
                    "listLines",
                    "The live lines, in number order; with 'until', as they stood then.",
                    {"200": _json(_ref("Lines"), "The live lines."), **_errors(400, 401, 404)},
                    "The answer names the seq and hash of the last row read, so a frozen reader can prove what "
                    "it read.",
                    parameters=[until],
                ),
                "post": _op(
                    "addLine",
                    "Add a line to the notebook.",
                    {
                        "201": _json(written, "The new line's number and its row's seq."),
                        **_errors(400, 401, 403, 404, 409, 413),
                    },
                    "Add a line (source seen or guessed for an agent; dad or dad_correction only for the human "
                    f"editor). {GAME_ONLY}",
                    requestBody=_body(
                        {
                            "text": _text("The line's words.", words),
                            "source": {"type": "string", "enum": list(Source.values)},
                            "why": why,
                        },
                        ["text", "source", "why"],
                    ),
                ),
            },
            "/api/notebooks/{title}/turn": {
                "parameters": [title],
                "get": _op(
                    "getTurn",
                    "The text a play turn carries: a header naming the notebook and the time it stands at, Dad's "
                    "corrections, his other lines, then hers, each tagged.",
                    {"200": _json(_ref("Turn"), "The turn text."), **_errors(400, 401, 404)},
                    parameters=[until],
                ),
            },
            "/api/notebooks/{title}/lines/{n}/history": {
                "parameters": [title, n],
                "get": _op(
                    "getHistory",
                    "Every text line n has had, who changed it, when and why (adopted words first).",
                    {"200": _json(_ref("History"), "The line's history."), **_errors(400, 401, 404)},
                ),
            },
            "/api/notebooks/{title}/rows": {
                "parameters": [title],
                "get": _op(
                    "listRows",
                    "Raw rows after a seq, in the export format (JSON Lines objects), for followers.",
                    {"200": _json(_ref("Rows"), "A page of rows."), **_errors(400, 401, 404)},
                    parameters=[
                        {
                            "name": "after",
                            "in": "query",
                            "schema": {"type": "integer", "minimum": 0, "maximum": MAX_ID},
                        },
                        {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 5000}},
                    ],
                ),
            },
            "/api/notebooks/{title}/lines/{n}/edit": {
                "parameters": [title, n],
                "post": _op(
                    "editLine",
                    "New words for line n under the same number (the editor's edit makes it a dad_correction).",
                    {"200": _json(written, "The line and its new row's seq."), **_errors(400, 401, 403, 404, 409, 413)},
                    "'expected' is the seq of the line's last row as you read it: a stale edit is refused. "
                    + GAME_ONLY,
                    requestBody=_body(
                        {"to": _text("The new words.", words), "why": why, "expected": seq}, ["to", "why"]
                    ),
                ),
            },
            "/api/notebooks/{title}/lines/{n}/retire": {
                "parameters": [title, n],
                "post": _op(
                    "retireLine",
                    "Take line n out of view with a strike row; 'into' names the line that now says it.",
                    {
                        "200": _json(written, "The line and its strike row's seq."),
                        **_errors(400, 401, 403, 404, 409, 413),
                    },
                    requestBody=_body({"why": why, "into": line_number, "expected": seq}, ["why"]),
                ),
            },
            "/api/notebooks/{title}/lines/{n}/redact": {
                "parameters": [title, n],
                "post": _op(
                    "redactWords",
                    "Remove words of line n from the database for good (the human editor only).",
                    {
                        "200": _json(written, "The line and its redact row's seq."),
                        **_errors(400, 401, 403, 404, 409, 413),
                    },
                    "The words are those of row 'seq' of the line, or those with sha256 'digest', or else the "
                    "line's current words. A redact row naming their digest is appended and the words are deleted "
                    "in the same transaction; every row that carried them then reads '[redacted: why]', and the "
                    "hash chain still verifies. Redacted words cannot be written into the notebook again.",
                    requestBody=_body(
                        {"why": why, "seq": seq, "digest": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}, ["why"]
                    ),
                ),
            },
            "/api/notebooks/{title}/merge": {
                "parameters": [title],
                "post": _op(
                    "mergeLines",
                    "Write one line for several and retire them into it, all or nothing.",
                    {
                        "201": _json(_ref("Merged"), "The new line and the rows' seqs."),
                        **_errors(400, 401, 403, 404, 409, 413),
                    },
                    GAME_ONLY,
                    requestBody=_body(
                        {
                            "numbers": {"type": "array", "items": line_number, "minItems": 2, "maxItems": 1000},
                            "text": _text("The merged line's words.", words),
                            "why": why,
                            "source": {"type": "string", "enum": list(Source.values)},
                        },
                        ["numbers", "text", "why"],
                    ),
                ),
            },
            "/api/sessions": {
                "get": _op(
                    "listSessions",
                    "The latest sessions, each with its events.",
                    {"200": _json(_ref("SessionList"), "Sessions, newest first."), **_errors(400, 401)},
                    parameters=[
                        {
                            "name": "state",
                            "in": "query",
                            "schema": {"type": "string", "enum": ["open", "landed", "no-op", "abandoned"]},
                        }
                    ],
                ),
                "post": _op(
                    "takeSession",
                    "Take: claim a notebook. Pending drift is recorded first, then base = the notebook's head.",
                    {"201": _json(_ref("Taken"), "The session and its base."), **_errors(400, 401, 404, 409, 413)},
                    "One open session per notebook and per actor; a second take gets 409 naming the holder. While "
                    "it is open, the actor's writes belong to it and its writes under any other title are refused.",
                    requestBody=_body(
                        {"notebook": {"type": "string", "pattern": TITLE_PATTERN}, "plan": _text("The plan.", words)},
                        ["notebook", "plan"],
                    ),
                ),
            },
            "/api/sessions/{id}": {
                "parameters": [sid],
                "get": _op(
                    "getSession",
                    "A session: its events, its own rows (its semantic change) and the drift recorded apart.",
                    {"200": _json(_ref("Session"), "The session."), **_errors(400, 401, 404)},
                ),
            },
            "/api/sessions/{id}/checkpoint": {
                "parameters": [sid],
                "post": _op(
                    "checkpointSession",
                    "Record the head as recovery evidence; it moves no base and grants nothing.",
                    {"200": _json(_ref("Checkpointed"), "Recorded."), **_errors(400, 401, 403, 404, 409, 413)},
                    requestBody=_body({"note": _text("What stands so far.", reason)}, ["note"]),
                ),
            },
            "/api/sessions/{id}/land": {
                "parameters": [sid],
                "post": _op(
                    "landSession",
                    "Land: the session's rows become one semantic change, others' rows are recorded as drift.",
                    {"200": _json(_ref("Landed"), "Landed, or a no-op."), **_errors(400, 401, 403, 404, 409, 413)},
                    "A session that wrote nothing gives result no-op. The final gates compare with the original "
                    "base, never a checkpoint; a failed gate answers 409 gate_refused with its reasons and leaves "
                    "the session open.",
                    requestBody=_body({"summary": _text("What the session changed.", words)}, []),
                ),
            },
            "/api/sessions/{id}/abandon": {
                "parameters": [sid],
                "post": _op(
                    "abandonSession",
                    "Close a session without a semantic change; its rows stay in the log.",
                    {"200": _json(_ref("Abandoned"), "Abandoned."), **_errors(400, 401, 403, 404, 409, 413)},
                    requestBody=_body({"why": why}, ["why"]),
                ),
            },
            "/api/openapi.json": {
                "get": _op(
                    "getOpenApi",
                    "This document.",
                    {"200": {"description": "The OpenAPI document.", "content": {"application/json": {}}}},
                    security=[],
                )
            },
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": _schemas(),
        },
    }
