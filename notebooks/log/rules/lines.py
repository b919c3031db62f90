"""The shapes every layer of the log speaks in: a live line, and the row a view stands at (a head)."""

from collections.abc import Sequence
from typing import Any, NamedTuple

GENESIS = "0" * 64  # the hash before a notebook's first row
ALL = 2**62  # a seq past any head: "no cut"


class Line(NamedTuple):
    """A live line. A tuple, not a dataclass: a cold view makes 15k of them and a frozen dataclass costs 3x."""

    n: int
    text: str | None
    source: str
    by: str
    at: float
    seq: int
    redacted: bool = False  # the text is "[redacted: why]"; kept out of as_dict, whose shape the API documents

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, "text": self.text, "source": self.source, "by": self.by, "at": self.at, "seq": self.seq}


class Head(NamedTuple):
    seq: int
    hash: str
    at: float


NO_ROWS = Head(0, GENESIS, 0.0)  # where an empty notebook's chain starts


def head_of(found: Sequence[Any] | None) -> Head:
    """The row a read found as (seq, hash, at); NO_ROWS when none (a LEFT JOIN's NULLs before a first row too)."""
    return Head(*found) if found and found[0] is not None else NO_ROWS
