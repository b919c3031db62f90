"""The card's search: a line number opens that line; words match whatever their case, accents and punctuation, all
of them in any order, and each match is marked (<mark>) in the words shown.

Words are compared folded: case-folded, accents taken off (NFKD without its combining marks), apostrophes dropped
("Zora's" is "zoras") and every other sign read as a space. A search word matches where it is a part of the
folded words, so "lynel guardian" finds "Guardian … Lynel" and "zora" finds "Zora's".
"""

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from notebooks.log.lines import Line

APOSTROPHES = frozenset("'’ʼ‘`´")
NUMBER = re.compile(r"^\s*(?:#|no\.?\s*|line\s*#?\s*)?(\d{1,9})\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Query:
    """What the search box asked for: a line by its number, or words (folded), or nothing."""

    number: int | None = None
    terms: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return self.number is None and not self.terms


def parse(q: str) -> Query:
    """`2500`, `#2500` or `line 2500` ask for that line; anything else is words."""
    found = NUMBER.match(q or "")
    if found:
        return Query(number=int(found.group(1)))
    return Query(terms=tuple(dict.fromkeys(folded(q).split())))


def _fold_char(c: str) -> str:
    if c in APOSTROPHES:
        return ""
    out = "".join(x for x in unicodedata.normalize("NFKD", c) if not unicodedata.combining(x)).casefold()
    return "".join(x if x.isalnum() else " " for x in out)


def folded(text: str) -> str:
    return "".join(_fold_char(c) for c in text)


@lru_cache(maxsize=8192)
def _folded_with_places(text: str) -> tuple[str, tuple[int, ...]]:
    """The folded words, and for each of their characters the index of the character of `text` it came from."""
    chars: list[str] = []
    places: list[int] = []
    for i, c in enumerate(text):
        piece = _fold_char(c)
        chars.append(piece)
        places.extend([i] * len(piece))
    return "".join(chars), tuple(places)


def matches(line: Line, terms: tuple[str, ...]) -> bool:
    words = _folded_with_places(line.text or "")[0]
    return all(term in words for term in terms)


def search(lines: list[Line], query: Query) -> list[Line]:
    if not query.terms:
        return lines
    return [line for line in lines if matches(line, query.terms)]


def highlight(text: str | None, terms: tuple[str, ...]) -> SafeString:
    """The words escaped, with every part a search word matched wrapped in <mark>."""
    text = text or ""
    if not terms:
        return escape(text)
    words, places = _folded_with_places(text)
    spans: list[tuple[int, int]] = []
    for term in terms:
        start = words.find(term)
        while start != -1:
            spans.append((places[start], places[start + len(term) - 1] + 1))
            start = words.find(term, start + len(term))
    if not spans:
        return escape(text)
    merged: list[list[int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    out, at = [], 0
    for a, b in merged:
        out.append(escape(text[at:a]))
        out.append(f"<mark>{escape(text[a:b])}</mark>")
        at = b
    out.append(escape(text[at:]))
    return mark_safe("".join(out))  # every piece of the line's own words went through escape()
