"""The search the card and the API share: a number asks for that line; words, folded (case, accents, apostrophes),
match the words of a line that begin with them less a common ending: "save" finds "Saving", "the" not "other"."""

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from notebooks.log.rules.lines import Line

APOSTROPHES = frozenset("'’ʼ‘`´")
NUMBER = re.compile(r"^(?:#|no\.?\s*|line\s*#?\s*)?(\d{1,9})$", re.IGNORECASE)
NUMBER_LONGEST = len("line # 123456789") + 8  # a longer query is words: the pattern backtracks on long runs of spaces
ENDINGS = ("ing", "ed", "es", "e", "s")
STEM_SHORTEST = 3


@dataclass(frozen=True)
class Query:
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
    """What a word must begin with: the folded search word less one common ending (three letters left at least)."""
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
