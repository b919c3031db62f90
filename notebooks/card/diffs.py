"""What an edit changed, word by word: deleted words in <del>, inserted ones in <ins>, every piece escaped."""

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from notebooks.log.views.history import Entry

_TOKENS = re.compile(r"\s+|[^\s]+")


def word_diff(before: str | None, after: str | None) -> SafeString | str:
    """`after` with the words it lost from `before` in <del> and those it gained in <ins>; `after` if either is None."""
    if before is None or after is None:
        return after or ""
    a, b = _TOKENS.findall(before), _TOKENS.findall(after)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(escape("".join(b[j1:j2])))
            continue
        if i2 > i1:
            out.append(f"<del>{escape(''.join(a[i1:i2]))}</del>")
        if j2 > j1:
            out.append(f"<ins>{escape(''.join(b[j1:j2]))}</ins>")
    return mark_safe("".join(out))  # noqa: S308 - every piece of text above went through escape()


def entry_diff(entries: Sequence[Entry], i: int) -> SafeString | None:
    """What entry i (an edit) changed from the words before it; None for anything else or redacted words."""
    entry = entries[i]
    if entry.op != "edit" or entry.redacted or entry.text is None:
        return None
    before = next((e for e in reversed(entries[:i]) if e.op in ("add", "edit") and not e.adopted), None)
    if before is None or before.redacted or before.text is None:
        return None
    return word_diff(before.text, entry.text)
