"""Every check of what comes in, and every limit, named once; a refusal raises Invalid.
A `problem_of_…` gives the reason as a phrase, so a door that names its field or its file's line says it its way."""

import math
import time
from datetime import UTC, datetime
from typing import Any

from django.conf import settings

from notebooks.log.rules.errors import Invalid
from notebooks.log.rules.fold import MAX_NUMBER, SOURCES

MAX_ID = 2**63 - 1  # a seq or a session id: a bigint
MAX_NAME = 80  # an actor's name: Row.by and Notebook.created_by
MAX_TIME = 253402300799.0  # 9999-12-31T23:59:59Z: later times cannot be shown as dates


def max_words() -> int:
    return settings.NOTEBOOK_MAX_WORDS


def max_reason() -> int:
    return settings.NOTEBOOK_MAX_REASON


def is_storable(text: str) -> bool:
    """False for lone surrogates (from undecodable bytes), which neither UTF-8 nor the databases can store."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def problem_of_text(value: Any, *, limit: int, required: bool = True, plural: bool = False) -> str | None:
    """What is wrong with a piece of text, as a phrase after its name ("is empty"), or None."""
    is_, has = ("are", "contain") if plural else ("is", "contains")
    if not isinstance(value, str):
        return f"{is_} missing" if value is None else f"must be text, not {type(value).__name__}"
    if required and not value.strip():
        return f"{is_} empty" if not value else f"{is_} blank"
    if len(value) > limit:
        return f"{is_} {len(value)} characters long; the limit is {limit}"
    if "\x00" in value:
        return f"{has} a NUL character"
    if not is_storable(value):
        return f"{is_} not valid Unicode text (a lone surrogate)"
    return None


def check_text(value: Any, what: str, *, limit: int | None = None, required: bool = True) -> str:
    """Text a person or agent wrote; "" when it is optional and not given."""
    if value is None and not required:
        return ""
    problem = problem_of_text(value, limit=limit or max_reason(), required=required)
    if problem:
        raise Invalid(f"The {what} {problem}.")
    return value


def check_words(words: Any, what: str = "words") -> str:
    if not isinstance(words, str) or not words.strip():
        raise Invalid(f"The {what} are empty: a line needs words.")
    problem = problem_of_text(words, limit=max_words(), plural=True)
    if problem:
        raise Invalid(f"The {what} {problem}.")
    return words


def check_reason(why: Any) -> str:
    if not isinstance(why, str) or not why.strip():
        raise Invalid("A reason is required: say why, in a few words.")
    return check_text(why, "reason", limit=max_reason())


def check_source(source: Any) -> str:
    if not isinstance(source, str) or source not in SOURCES:
        raise Invalid(f"Unknown source {source!r}: use one of {', '.join(sorted(SOURCES))}.")
    return source


def check_number(n: Any, what: str = "line number") -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise Invalid(f"The {what} {n!r} is not a positive whole number.")
    if n > MAX_NUMBER:
        raise Invalid(f"The {what} {n} is beyond any line a notebook can have.")
    return n


def is_number(n: Any) -> bool:
    return not isinstance(n, bool) and isinstance(n, int) and 1 <= n <= MAX_NUMBER


def number_in(text: str, limit: int = MAX_NUMBER) -> int | None:
    """A whole number 1..limit written in ASCII digits (a query's or a form's); None for anything else ("²" too)."""
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(limit)):
        return None
    n = int(text)
    return n if 1 <= n <= limit else None


def check_id(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ID:
        raise Invalid(f"The {what} {shown(repr(value), 40)} is not a positive whole number.")
    return value


def problem_of_name(name: object) -> str | None:
    """What is wrong with an actor's name, as a phrase after "the actor's name", or None: every door's one check."""
    if not isinstance(name, str) or not name.strip():
        return "is empty"
    if len(name) > MAX_NAME:
        return f"is {len(name)} characters long; the limit is {MAX_NAME}"
    if not is_storable(name):  # first: a lone surrogate is not printable either, but it is no control character
        return "is not valid Unicode text"
    if not name.isprintable():
        # A newline or an escape code in a name would forge a trailer in a commit message or colour a log.
        return "contains a control character"
    return None


def check_name(name: object) -> str:
    problem = problem_of_name(name)
    if problem == "is empty":
        raise Invalid("Say who is writing: the actor's name is empty.")
    if problem:
        raise Invalid(f"The actor's name {problem}.")
    return name  # type: ignore[return-value]


MAX_SHOWN = 300  # characters of an outside value a message echoes
MAX_QUOTED = 100  # characters of a name or a time a refusal quotes (a title is 80 at the most)


def shown(value: object, limit: int = MAX_SHOWN) -> str:
    """An outside value on one line, control characters escaped, cut near `limit`: never a 2 MB field in a log."""
    text = value if isinstance(value, str) else repr(value)
    cut = text[:limit]
    if not cut.isprintable():
        cut = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in cut)
    return cut if len(text) <= limit else f"{cut}… ({len(text)} characters)"


def quoted(value: object, limit: int = MAX_QUOTED) -> str:
    """An outside name or time as a refusal quotes it: its repr, cut (a 1 MB title is not said back whole)."""
    return shown(repr(value), limit)


def shown_lines(text: str) -> str:
    """Several lines of outside text for a commit message: other control characters escaped, for `git log`'s reader."""
    return "\n".join(shown(line, len(line)) for line in text.strip().splitlines())


def bounded(message: str, limit: int = 1000) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"


def clock_allowance() -> float:
    """Seconds a row's time may run ahead of this server's clock, as another writer's clock may be a little fast."""
    return float(settings.NOTEBOOK_CLOCK_ALLOWANCE)


def latest_time(now: float | None = None) -> float:
    """The latest time a row may carry: now plus the allowance."""
    return (time.time() if now is None else now) + clock_allowance()


def shown_time(at: float) -> str:
    return datetime.fromtimestamp(at, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def problem_of_future(at: float, latest: float) -> str | None:
    if at <= latest:
        return None
    return (
        f"is {shown_time(at)}, later than this server's clock allows: now plus NOTEBOOK_CLOCK_ALLOWANCE "
        f"({clock_allowance():g} s) is {shown_time(latest)}"
    )


def check_past(at: float, what: str = "'until'", fields: list[str] | None = None) -> float:
    """A time a view is read as it stood: one this server's clock has not reached could still gain rows, so a view
    of it would not stay as read."""
    now = time.time()
    if at > now:
        said = shown_time(at) if at <= MAX_TIME else repr(at)
        raise Invalid(
            f"{what} {said} is later than this server's clock ({shown_time(now)}): a view of a time not yet passed "
            "could still change. Leave it out to read the live view.",
            **({"fields": fields} if fields else {}),
        )
    return at


def parse_when(value: "str | float | int | datetime") -> float:
    """ISO 8601 (naive means UTC) or epoch seconds, as epoch seconds."""
    if isinstance(value, datetime):
        dt = value
    else:
        text = value if isinstance(value, int | float) and not isinstance(value, bool) else str(value).strip()
        try:
            seconds = float(text)
        except ValueError:
            seconds = None
        if seconds is not None and not math.isfinite(seconds):
            raise Invalid(f"{quoted(value)} is not a time")
        if seconds is not None:
            return seconds
        try:
            dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise Invalid(f"{quoted(value)} is not a time: give ISO 8601 (2026-11-12T09:30) or epoch seconds") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()
