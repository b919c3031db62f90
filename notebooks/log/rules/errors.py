"""Refusals, each with a stable code, an HTTP status and a message a person can act on. Pure Python."""

from typing import Any


class NotebookError(Exception):
    code = "invalid"
    status = 400
    retry_after: int | None = None  # whole seconds after which the same call may succeed (answered as Retry-After)

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def retrying_after(self, seconds: int) -> "NotebookError":
        self.retry_after = seconds
        return self

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.details}


class Invalid(NotebookError):
    """Bad input (the code and status every refusal has unless it says otherwise)."""


class Unchanged(Invalid):
    """An edit to the words the line already says: nothing to write (a retried edit without a key gets this)."""

    code = "unchanged"


class Redacted(Invalid):
    """Words a redact row of the notebook names, written again: refused (the same code as any bad input)."""


class NotFound(NotebookError):
    code = "not_found"
    status = 404


class Forbidden(NotebookError):
    code = "forbidden"
    status = 403


class Conflict(NotebookError):
    code = "conflict"
    status = 409


class LooksAlike(Conflict):
    """A new title that reads like an existing one once case, separators and trailing punctuation are ignored."""

    code = "title_looks_alike"


class TooMany(NotebookError):
    """More new notebooks from one actor within the window than the limit allows (Retry-After says when)."""

    code = "too_many_notebooks"
    status = 429
