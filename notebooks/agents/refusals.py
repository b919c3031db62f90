"""Every refusal the API and MCP answer, in the project's words: the codes, their statuses, a refusal over HTTP, and bad
input described field by field."""

from typing import Any

from django.http import JsonResponse

from notebooks.log.rules import checks
from notebooks.log.rules.errors import Invalid, NotebookError, NotFound

# Every code a refusal can carry; tests/agents/test_openapi.py checks it against every NotebookError the code defines.
CODES = (
    "invalid",  # 400: bad input; nothing is written
    "unchanged",  # 400: an edit to the words the line already says (a retried edit without a key)
    "unauthorized",  # 401
    "forbidden",  # 403
    "not_found",  # 404
    "method_not_allowed",  # 405
    "conflict",  # 409
    "title_looks_alike",  # 409: a new title reads like an existing one (its title in `existing`: did you mean it?)
    "gate_refused",  # 409: a land refused by a final gate, with reasons
    "lapsed",  # 409: the session lapsed (no call of its holder for NOTEBOOK_SESSION_TTL seconds)
    "idempotency_in_progress",  # 409: the Idempotency-Key's first request is still being answered
    "too_large",  # 413
    "idempotency_mismatch",  # 422: the Idempotency-Key was used for another request
    "too_many_notebooks",  # 429: this actor created their limit of notebooks within the window (Retry-After)
    "too_many_suggestions",  # 429: the notebook has its bound of suggestions pending for Dad (Retry-After)
    "unavailable",  # 503: the database's disk is full (Retry-After)
    "vault_unavailable",  # 503: a take or land refused whole: the vault's git failed or its directory is unwritable
    "vault_git",  # 500: the vault's git could not be run (the CLI's vault commands; a take or land answers 503)
)

SAID = {
    400: "Bad input (malformed JSON, a wrong type, an unknown field, an unknown or repeated query parameter, a number "
    "out of range, words too long…); nothing is written.",
    401: "No token, or an unknown or revoked one.",
    403: "The token's role may not do this (an agent writes only seen or guessed lines, never Dad's).",
    404: "Unknown notebook, line or session.",
    405: "The method is not allowed on this path (the Allow header names those that are).",
    409: "Conflict: a stale edit (current, current_seq), a notebook claimed by another session (holder, session), a "
    "write outside the session's title (session, notebook), a retired line, a session already closed (state), a title "
    "taken, a session lapsed (code lapsed, lapsed_at), or a land refused by a final gate (code gate_refused, "
    "reasons). A take of a claimed notebook names the holder and session, with Retry-After: the seconds until the "
    "holder's lease would lapse.",
    413: "The request body is too large.",
    429: "Too many new notebooks: this actor created NOTEBOOK_NEW_NOTEBOOKS within NOTEBOOK_NEW_NOTEBOOKS_WINDOW "
    "seconds (code too_many_notebooks, limit, window); or too many suggestions: the notebook has "
    "NOTEBOOK_PENDING_SUGGESTIONS waiting for Dad (code too_many_suggestions, limit). Try again after Retry-After "
    "seconds.",
    503: "The database's disk is full (unavailable), or a take or land could not use the vault's git "
    "(vault_unavailable): nothing was written; try again after Retry-After seconds.",
}


NO_TOKEN = "Send a token: Authorization: Bearer <token> (python manage.py notebook token NAME)."
BAD_TOKEN = "The token is unknown or revoked."


class Unauthorized(NotebookError):
    code, status = "unauthorized", 401


class MethodNotAllowed(NotebookError):
    code, status = "method_not_allowed", 405


class TooLarge(NotebookError):
    code, status = "too_large", 413


def too_large() -> TooLarge:
    """A body past DATA_UPLOAD_MAX_MEMORY_SIZE, said alike by the API and MCP."""
    return TooLarge(SAID[413])


def http_refusal(exc: NotebookError) -> JsonResponse:
    """A refusal over HTTP: {"error": ...}, its status, WWW-Authenticate on a 401, Retry-After when it has one."""
    response = JsonResponse({"error": exc.as_dict()}, status=exc.status)
    if exc.status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="notebooks"'
    if exc.retry_after is not None:
        response["Retry-After"] = str(exc.retry_after)
    return response


def bad_input(errors: list[dict[str, Any]], *, skip: int = 0, known: list[str] | None = None) -> Invalid:
    """Validation errors as one refusal naming each field; `skip` drops ninja's "body", "payload" from locations."""
    said, fields = [], set()
    for e in errors:
        field = [str(part) for part in e["loc"][skip:]]
        name = ".".join(field)
        said_of = "unknown field" if e["type"] == "extra_forbidden" else e["msg"]
        line = f"'{name}': {said_of}" if field else f"the body: {e['msg']} (send a JSON object)"
        if e["type"] == "extra_forbidden" and known is not None:
            line += f" (it takes {', '.join(known)})"
        said.append(line)
        fields.update(field[:1])
    return Invalid("; ".join(said) + ".", fields=sorted(fields))


def unknown_query(unknown: list[str], known: list[str]) -> Invalid:
    takes = f"it takes {', '.join(known)}" if known else "it takes none"
    said = "; ".join(f"'{name}': unknown query parameter" for name in unknown)
    return Invalid(f"{said} ({takes}).", fields=unknown)


def invalid_request(
    errors: list[dict[str, Any]], given: dict[str, Any], known: list[str] | None = None
) -> NotebookError:
    """Ninja's validation errors as one refusal: a path naming nothing is 404, anything else 400."""
    first = errors[0]
    where, *name = [str(part) for part in first["loc"]]
    if where != "path" or first["type"] not in (
        "string_pattern_mismatch",
        "less_than_equal",
        "greater_than_equal",
        "int_parsing_size",
    ):
        return bad_input(errors, skip=2 if where == "body" else 1, known=known if where == "body" else None)
    value = given.get(name[-1], "")
    if first["type"] == "string_pattern_mismatch":
        return NotFound(f"No notebook is titled {checks.quoted(value)}.")
    return NotFound(f"There is no {'line number' if name[-1] == 'n' else 'session'} {str(value)[:40]}.")
