"""The card's filters (a source's name and mark, an op's words, epoch seconds as a time) and its lines' tag."""

from datetime import UTC, datetime
from functools import lru_cache

from django import template
from django.template.loader import get_template
from django.urls import get_script_prefix, reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import get_current_timezone_name

from notebooks.card import fragments, search
from notebooks.log.rules.fold import DAD, DAD_CORRECTION, GUESSED, SEEN
from notebooks.log.rules.lines import Line

register = template.Library()
CARD = "notebooks/card.html"

# Each source has its own words and its own shape, so no one needs to tell colours apart.
LABELS = {SEEN: "seen", GUESSED: "guessed", DAD: "Dad", DAD_CORRECTION: "Dad's correction"}
ICONS = {SEEN: "●", GUESSED: "◌", DAD: "■", DAD_CORRECTION: "✎"}
GROUPS = {DAD_CORRECTION: "Dad's corrections", DAD: "Dad's lines", SEEN: "Hers: seen", GUESSED: "Hers: guessed"}


@register.filter
def source_label(source: str) -> str:
    return LABELS.get(source, source)


@register.filter
def source_icon(source: str) -> str:
    return ICONS.get(source, "◆")


@register.filter
def group_label(source: str) -> str:
    return GROUPS.get(source, source)


# What each kind of row did, in the words a person uses; the log's own term goes in a tooltip beside them.
OP_WORDS = {
    ("add", ""): "added",
    ("edit", ""): "edited",
    ("strike", "retired"): "retired",
    ("strike", "merged"): "merged",
    ("strike", "moved"): "moved to another notebook",
    ("strike", ""): "retired",
    ("adopt", ""): "recovered words",
    ("redact", ""): "redacted words",
    ("propose", ""): "proposed in a session (pending until it lands)",
}


@register.filter
def op_word(op: str, how: str = "") -> str:
    return OP_WORDS.get((op, how or ""), OP_WORDS.get((op, ""), op))


@register.filter
def op_term(op: str, how: str = "") -> str:
    """The log's term, for the tooltip: `strike (merged)`, `adopt`."""
    return f"{op} ({how})" if how else op


@register.filter
def epoch(seconds: float | None) -> datetime | None:
    """Epoch seconds as an aware datetime, for the date filter and <time datetime=...>."""
    return None if seconds is None else datetime.fromtimestamp(float(seconds), tz=UTC)


register.filter("marked", search.highlight)  # a line's words escaped, what the search matched in <mark>


@lru_cache(maxsize=1024)
def _line_prefix(script_prefix: str, title: str) -> str:
    """The start of every line's URL in a notebook, under the script prefix it was reversed with."""
    return reverse("card:line", args=[title, 0]).removesuffix("0/")


@register.simple_tag
def line_url(title: str, n: int, action: str = "") -> str:
    """A line's URL (or its action's), one reverse() per title: three per line were a sixth of a 1,000-line card."""
    prefix = _line_prefix(get_script_prefix(), title)
    return f"{prefix}{int(n)}/{action}/" if action else f"{prefix}{int(n)}/"


@register.simple_tag(takes_context=True)
def line_items(context: template.Context, lines: list[Line]) -> SafeString:
    """Each line through the card's `item` partial; a plain line's `line` output is kept in the notebook's fragments."""
    partials = _partials(context)
    kept: fragments.Kept | None = context.get("fragments")
    fresh, selected = context.get("fresh") or (), context.get("selected") or ()
    new_lines = context.get("new_lines") or {}  # since the reader's last review: n -> "new" or "changed"
    special = {context.get(name) for name in ("editing", "retiring", "moving", "redacting", "history_of")} - {None, ""}
    cacheable = kept is not None and not context.get("line_note")
    terms = tuple(context.get("terms") or ())  # the search's marks are part of what is kept
    shared = (
        context["notebook"].title, bool(context.get("can_edit")), bool(context.get("frozen")),
        get_current_timezone_name(), get_script_prefix(),  # the zone always: Context.use_tz is None unless set
    )  # fmt: skip
    notes = context.get("line_notes") or {}  # a confirmation beside one line (Added line #48.), never kept
    out = []
    for line in lines:
        n = line.n
        new_label = new_lines.get(n, "")
        if n in notes:
            with context.push(line=line, n=n, line_note=notes[n], new_label=new_label):
                out.append(partials["line"].render(context))
        elif not cacheable or n in special:
            with context.push(line=line, n=n, new_label=new_label):
                out.append(partials["item"].render(context))
        else:
            key = (line, shared, n in fresh, str(n) in selected, new_label, terms)
            html = kept.html.get(key)
            if html is None:
                with context.push(line=line, n=n, new_label=new_label):
                    html = partials["line"].render(context)
                kept.put(key, html)
            out.append(html)
    return mark_safe("\n".join(out))  # each piece is the template's own (autoescaped) output


def _partials(context: template.Context) -> dict:
    """The partials of the template being rendered (the card, or one of its partials asked for by name)."""
    found = getattr(context.template, "extra_data", {}).get("partials")
    return found if found is not None else get_template(CARD).template.extra_data["partials"]
