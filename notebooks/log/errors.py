"""Refusals. Each carries a stable code, an HTTP status and a message a person can act on."""

from typing import Any


class NotebookError(Exception):
    code = "invalid"
    status = 400

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.details}


class Invalid(NotebookError):
    code = "invalid"
    status = 400


class NotFound(NotebookError):
    code = "not_found"
    status = 404


class Forbidden(NotebookError):
    code = "forbidden"
    status = 403


class Conflict(NotebookError):
    code = "conflict"
    status = 409
