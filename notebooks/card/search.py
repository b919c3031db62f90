"""The card's search (log/views/matching.py): a line number opens that line; words match all (or any) of them in any
order, each marked in the line's words."""

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from notebooks.log.views.matching import Query, folded_with_places, parse, search, stem

__all__ = ["Query", "highlight", "parse", "search", "stem"]


def highlight(text: str | None, terms: tuple[str, ...]) -> SafeString:
    """The words escaped, with every word a search word matched wrapped in <mark>."""
    text = text or ""
    if not terms:
        return escape(text)
    words, places = folded_with_places(text)
    stems = tuple(stem(term) for term in terms)
    merged = [
        (places[word.start()], places[word.end() - 1] + 1)
        for word in re.finditer(r"\S+", words)
        if word.group().startswith(stems)
    ]
    if not merged:
        return escape(text)
    out, at = [], 0
    for a, b in merged:
        out += [escape(text[at:a]), f"<mark>{escape(text[a:b])}</mark>"]
        at = b
    out.append(escape(text[at:]))
    return mark_safe("".join(out))  # every piece of the line's own words went through escape()
