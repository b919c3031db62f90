"""Every list (API, MCP, CLI) pages alike: `after` (a cursor) and `limit` in; `after`, `next` and `more` out. A cursor
is "~" and the unpadded base64url of [version, list, position] (no title has a "~"); a plain position is still read."""

import base64
import binascii
import json
from typing import Annotated, Any

from pydantic import AfterValidator, Field, TypeAdapter
from pydantic import ValidationError as PydanticError
from pydantic_core import PydanticCustomError

from notebooks.agents.schemas import UrlDigits
from notebooks.log.rules.checks import MAX_ID, MAX_NUMBER, is_storable
from notebooks.log.rules.errors import Invalid

# 100 as /sessions (the costliest list) always answered; 1000 at most keeps the largest page a few megabytes.
PAGE, PAGE_MAX = 100, 1000
VERSION = 1
MARK = "~"
LONGEST = 200  # characters of a cursor: a title's (80) in its array, as base64url, is well under it

# Each list: the position its cursor holds (a title, a line number, a seq, a session id) and a plain one's range.
LISTS: dict[str, tuple[type, int, int]] = {
    "notebooks": (str, 0, 0),
    "lines": (int, 0, MAX_NUMBER),
    "rows": (int, 0, MAX_ID),
    "sessions": (int, 1, MAX_ID),
    "session": (int, 0, MAX_ID),
}
NAMES = {kind: kind for kind in LISTS} | {"session": "a session's rows"}
RESEND = "send back the `next` of the page before as it came, or no `after` for the first page"

Position = int | str | None


def encode(kind: str, position: Position) -> str | None:
    """The cursor of a position in list `kind`; none for the start of the list (a first page has no `after`)."""
    if position is None or position == 0 or position == "":
        return None
    payload = json.dumps([VERSION, kind, position], separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return MARK + base64.urlsafe_b64encode(payload).decode("ascii").rstrip("=")


def _refused(message: str) -> PydanticCustomError:
    return PydanticCustomError("cursor", message)


def _unpacked(raw: str) -> Any:
    body = raw[len(MARK) :]
    try:
        text = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode("utf-8")
        found = json.loads(text)
    except (binascii.Error, ValueError):
        raise _refused(f"not a cursor: {RESEND}") from None
    if not (isinstance(found, list) and len(found) == 3 and isinstance(found[1], str)):
        raise _refused(f"not a cursor: {RESEND}")
    if found[0] != VERSION:
        raise _refused(f"a cursor of another version of the API: {RESEND}")
    return found


def decode(kind: str, raw: Any) -> Position:
    """The position `raw` names in list `kind` (a cursor, or a plain position); anything else is a validation error."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, bool) or (isinstance(raw, str) and len(raw) > LONGEST):
        raise _refused(f"not a cursor: {RESEND}")
    shape, least, most = LISTS[kind]
    if isinstance(raw, str) and raw.startswith(MARK):
        _, of, position = _unpacked(raw)
        if of != kind:
            raise _refused(f"a cursor of {NAMES.get(of, 'another list')}, not of {NAMES[kind]}: {RESEND}")
        said = "cursor"
    else:
        position, said = raw, "plain position"
    if shape is str:
        if not isinstance(position, str) or len(position) > 80:
            raise _refused(f"not a cursor: {RESEND}")
        if "\x00" in position or not is_storable(position):  # no title holds one; PostgreSQL refuses a NUL
            raise _refused("contains a NUL character or a lone surrogate; no title has one")
        return position or None
    if isinstance(position, str):  # a plain number, as a query string writes it: digits 0-9 only
        if not (position.isascii() and position.isdigit()):
            raise _refused(f"not a cursor: {RESEND}")
        position = int(position)
    if not isinstance(position, int) or isinstance(position, bool) or not least <= position <= most:
        raise _refused(f"not a cursor ({said} out of range): {RESEND}")
    return position or None


def _after_said(kind: str) -> str:
    old = "a title" if kind == "notebooks" else "a number"
    return (
        f"The `next` of the page before (an opaque cursor); none for the first page. Deprecated: {old}, as this list "
        "took before cursors, is still read as the position to page after."
    )


def query_after(kind: str) -> Any:
    """`after` in a query string: a cursor of list `kind`, read as the position it names."""
    field = Field(max_length=LONGEST, description=_after_said(kind))
    return Annotated[str | None, field, AfterValidator(lambda raw: decode(kind, raw))]


def tool_after(kind: str) -> Any:
    """`after` of an MCP tool: a cursor, as the API's; a number (deprecated), as the tool took before cursors."""
    field = Field(description=_after_said(kind))
    return Annotated[str | int | None, field, AfterValidator(lambda raw: decode(kind, raw))]


def _limit_said(what: str) -> str:
    return f"How many {what} a page answers: {PAGE} when not given, at most {PAGE_MAX}."


def query_limit(what: str) -> Any:
    return Annotated[int, Field(ge=1, le=PAGE_MAX, description=_limit_said(what)), UrlDigits]


def tool_limit(what: str) -> Any:
    return Annotated[int, Field(ge=1, le=PAGE_MAX, description=_limit_said(what))]


def page(found: list, limit: int | None) -> tuple[list, bool]:
    """A page of `found` (read with one more than `limit`) and whether more follow; all of it with no limit."""
    if limit is None:
        return found, False
    return found[:limit], len(found) > limit


def cursors(kind: str, after: Position, last: Position, more: bool) -> dict[str, Any]:
    """What every page answers: the cursor it was read after, the next page's (none at the end), and whether more."""
    return {"after": encode(kind, after), "next": encode(kind, last) if more else None, "more": more}


def read(kind: str, after: Any, limit: Any, *, names: tuple[str, str] = ("after", "limit")) -> tuple[Position, int]:
    """A cursor and a limit given outside a model (the CLI's), refused as the API refuses them."""
    checks = (
        (names[0], TypeAdapter(tool_after(kind)), after),
        (names[1], TypeAdapter(tool_limit(kind)), PAGE if limit is None else limit),
    )
    found = []
    for name, adapter, value in checks:
        try:
            found.append(adapter.validate_python(value))
        except PydanticError as exc:
            raise Invalid(f"'{name}': {exc.errors()[0]['msg']}.", fields=[name]) from None
    return found[0], found[1]
