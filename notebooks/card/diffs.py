"""What an edit changed, word by word: deleted words in <del>, inserted ones in <ins>, every piece escaped."""

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from notebooks.log.views.history import Entry

_TOKENS = re.compile(r"\s+|[^\s]+")


# The matcher's time grows as the product of the two sides' tokens (words and the spaces between): two 4,000-character
# versions of random words took 0.34 s, so a 1,500-edit history minutes. Longer versions set their common start and
# end aside first, and changed middles whose product passes MATCHED_TOKENS squared are shown whole.
MATCHED_TOKENS = 300


def word_diff(before: str | None, after: str | None) -> SafeString | str:
    """`after` with the words it lost from `before` in <del> and those it gained in <ins>; `after` if either is None."""
    if before is None or after is None:
        return after or ""
    a, b = _TOKENS.findall(before), _TOKENS.findall(after)
    start = end = 0
    if max(len(a), len(b)) > MATCHED_TOKENS:
        while start < min(len(a), len(b)) and a[start] == b[start]:
            start += 1
        while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
            end += 1
    a_mid, b_mid = a[start : len(a) - end], b[start : len(b) - end]
    if len(a_mid) * len(b_mid) > MATCHED_TOKENS**2:
        changes = [("replace", 0, len(a_mid), 0, len(b_mid))]
    else:
        changes = SequenceMatcher(None, a_mid, b_mid, autojunk=False).get_opcodes()
    out = [escape("".join(b[:start]))]
    for tag, i1, i2, j1, j2 in changes:
        if tag == "equal":
            out.append(escape("".join(b_mid[j1:j2])))
            continue
        if i2 > i1:
            out.append(f"<del>{escape(''.join(a_mid[i1:i2]))}</del>")
        if j2 > j1:
            out.append(f"<ins>{escape(''.join(b_mid[j1:j2]))}</ins>")
    out.append(escape("".join(b[len(b) - end :])))
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
