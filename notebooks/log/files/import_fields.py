"""Reading one field of a JSON Lines row, each with its check: a refusal names the file's line and quotes at most a
few hundred characters of the value. No database access here."""

import json
import re
from typing import Any

from notebooks.log.files import rowformat
from notebooks.log.rules import checks
from notebooks.log.rules.checks import MAX_NAME, MAX_NUMBER, MAX_TIME
from notebooks.log.rules.errors import Invalid
from notebooks.models import TITLE_PATTERN

TITLE = re.compile(TITLE_PATTERN)
HEX = frozenset("0123456789abcdef")
KEYED = HEX | {rowformat.KEYED}  # a digest's first character

_scan = json.JSONDecoder().scan_once  # what json.loads runs, without its two regex matches and three calls a line


def loads(raw: str) -> Any:
    """json.loads(raw), the scanner at once for a line that is one JSON value (a refusal says what json.loads says)."""
    try:
        obj, end = _scan(raw, 0)
    except (StopIteration, ValueError, TypeError):
        return json.loads(raw)
    if end != len(raw) and not raw[end:].isspace():
        return json.loads(raw)
    return obj


def fail(line_no: int, message: str) -> Invalid:
    return Invalid(checks.bounded(f"line {line_no}: {message}"), line=line_no)


def quoted(value: Any) -> str:
    """A row's value as a refusal quotes it: its repr, cut (a 2 MB op must not make a 2 MB alarm)."""
    return checks.shown(repr(value))


def text_of(obj: dict, key: str, line_no: int, *, required: bool, limit: int) -> str:
    value = obj.get(key)
    # The usual value, passed at once: ASCII text (so no lone surrogate), not blank, no NUL, within the limit.
    if type(value) is str and value.isascii() and 0 < len(value) <= limit and not value.isspace():
        if "\x00" not in value:
            return value
    if value is None or value == "":
        if required:
            raise fail(line_no, f"'{key}' is missing or empty")
        return ""
    problem = checks.problem_of_text(value, limit=limit, required=required)
    if problem:
        raise fail(line_no, f"'{key}' {problem}")
    return value


def name_of(obj: dict, key: str, line_no: int, *, required: bool) -> str:
    """An actor's name a row gives, through the one name check (checks.problem_of_name) every other door runs."""
    value = obj.get(key)
    if type(value) is str and value.isascii() and value.isprintable() and 0 < len(value) <= MAX_NAME:
        if not value.isspace():  # the usual value, passed at once
            return value
    if value is None or value == "":
        if required:
            raise fail(line_no, f"'{key}' is missing or empty")
        return ""
    if not isinstance(value, str):
        raise fail(line_no, f"'{key}' must be text, not {type(value).__name__}")
    problem = checks.problem_of_name(value)
    if problem:
        raise fail(line_no, f"'{key}' {problem}")
    return value


WITHHELD = (
    "its words were redacted before digests were keyed, and their plain digest is withheld from exports (any guess "
    "could be checked against it), so this row's hash cannot be checked again; restore such a notebook from a "
    "backup (docs/RELIABILITY.md)"
)


def digest_of(obj: dict, key: str, line_no: int) -> str:
    value = obj.get(key)
    if value is None and key in obj and (key == "redacts" or obj.get("redacted") is True):
        raise fail(line_no, WITHHELD)
    if not isinstance(value, str) or not set(value[1:]) <= HEX or len(value) != 64 or not set(value[:1]) <= KEYED:
        raise fail(line_no, f"'{key}' must be a digest (64 lowercase hex digits, or 'k' and 63), not {quoted(value)}")
    return value


def number_of(obj: dict, key: str, line_no: int, *, required: bool = True) -> int | None:
    value = obj.get(key)
    if type(value) is int and 1 <= value <= MAX_NUMBER:  # the usual value, passed at once
        return value
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_NUMBER:
        raise fail(line_no, f"'{key}' must be a whole number from 1 to {MAX_NUMBER}, not {quoted(value)}")
    return value


def time_of(obj: dict, key: str, line_no: int, *, required: bool = True, latest: float = MAX_TIME) -> float | None:
    """A time no later than `latest` (at most MAX_TIME): a row from the future is a poisoned clock."""
    value = obj.get(key)
    if type(value) is float and 0 <= value <= latest:  # the usual value, passed at once
        return value
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= MAX_TIME:
        raise fail(line_no, f"'{key}' must be a time in epoch seconds (0 to {MAX_TIME:.0f}), not {quoted(value)}")
    problem = checks.problem_of_future(value, latest)
    if problem:
        raise fail(line_no, f"'{key}' {problem}")
    return float(value)


def moved_of(obj: dict, key: str, line_no: int) -> tuple[str, int] | None:
    """The other end of a move a row names (`key` and `key`_n: a notebook's title and a line of it), or None."""
    title = obj.get(key)
    if title is None and obj.get(f"{key}_n") is None:
        return None
    if not isinstance(title, str) or not TITLE.fullmatch(title) or title != title.rstrip():
        raise fail(line_no, f"'{key}' must be a notebook's title, not {quoted(title)}")
    return title, number_of(obj, f"{key}_n", line_no)
