"""The search of lines the card and the API share: a line number asks for that line; words match all (or any) of
them, in any order.

Words are compared folded: case-folded, accents taken off (NFKD without its combining marks), apostrophes dropped
("Zora's" is "zoras") and every other sign read as a space. A search word matches the words of a line that begin
with it, its common English ending taken off first (-ing, -ed, -es, -e, -s), so "save" finds "Saving" and "saved",
"zora" finds "Zora's" and "lynel guardian" finds "Guardian … Lynel", but "the" does not find "other"."""

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from notebooks.log.views.lines import Line

APOSTROPHES = frozenset("'’ʼ‘`´")
NUMBER = re.compile(r"^(?:#|no\.?\s*|line\s*#?\s*)?(\d{1,9})$", re.IGNORECASE)
NUMBER_LONGEST = len("line # 123456789") + 8  # a longer query is words: the pattern backtracks on long runs of spaces
ENDINGS = ("ing", "ed", "es", "e", "s")
STEM_SHORTEST = 3


@dataclass(frozen=True)
class Query:
    """What the search box asked for: a line by its number, or words (folded), or nothing."""

    number: int | None = None
    terms: tuple[str, ...] = ()
    any: bool = False  # any of the words, not all of them

    @property
    def empty(self) -> bool:
        return self.number is None and not self.terms


def parse(q: str, match: str = "all") -> Query:
    """`2500`, `#2500` or `line 2500` ask for that line; anything else is words, all of them unless `match` is any."""
    asked = (q or "").strip()
    found = NUMBER.match(asked) if len(asked) <= NUMBER_LONGEST else None
    if found:
        return Query(number=int(found.group(1)))
    return Query(terms=tuple(dict.fromkeys("".join(map(_fold_char, asked)).split())), any=match == "any")


def stem(term: str) -> str:
    """The folded search word without one common ending (three letters at least): what a word must begin with."""
    for ending in ENDINGS:
        if term.endswith(ending) and len(term) - len(ending) >= STEM_SHORTEST:
            return term[: -len(ending)]
    return term


def _fold_char(c: str) -> str:
    if c in APOSTROPHES:
        return ""
    out = "".join(x for x in unicodedata.normalize("NFKD", c) if not unicodedata.combining(x)).casefold()
    return "".join(x if x.isalnum() else " " for x in out)


@lru_cache(maxsize=8192)
def folded_with_places(text: str) -> tuple[str, tuple[int, ...]]:
    """The folded words, and for each of their characters the index of the character of `text` it came from."""
    chars: list[str] = []
    places: list[int] = []
    for i, c in enumerate(text):
        piece = _fold_char(c)
        chars.append(piece)
        places.extend([i] * len(piece))
    return "".join(chars), tuple(places)


def search(lines: list[Line], query: Query, source: str = "") -> list[Line]:
    """The lines of `source` (any, when a number is asked for) with a word beginning with each (or any) stem."""
    if source and not query.number:
        lines = [line for line in lines if line.source == source]
    if not query.terms:
        return lines
    starts = tuple(dict.fromkeys(f" {stem(term)}" for term in query.terms))  # a word's start follows a space
    wanted = any if query.any else all
    folded = ((line, " " + folded_with_places(line.text or "")[0]) for line in lines)
    return [line for line, words in folded if wanted(s in words for s in starts)]
