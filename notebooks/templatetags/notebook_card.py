"""Small filters for the card's templates: how a source is named and marked, and epoch seconds as a time."""

import functools
from datetime import UTC, datetime
from html import escape  # what django.utils.html.escape does, without its lazy-string wrapper

from django import template
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.timezone import get_current_timezone_name, template_localtime

register = template.Library()

# Each source has its own words and its own shape, so no one needs to tell colours apart.
LABELS = {"seen": "seen", "guessed": "guessed", "dad": "Dad", "dad_correction": "Dad's correction"}
ICONS = {"seen": "●", "guessed": "◌", "dad": "■", "dad_correction": "✎"}
GROUPS = {
    "dad_correction": "Dad's corrections",
    "dad": "Dad's lines",
    "seen": "Hers: seen",
    "guessed": "Hers: guessed",
}


@register.filter
def source_label(source: str) -> str:
    return LABELS.get(source, source)


@register.filter
def source_icon(source: str) -> str:
    return ICONS.get(source, "◆")


@register.filter
def group_label(source: str) -> str:
    return GROUPS.get(source, source)


@register.filter
def epoch(seconds: float | None) -> datetime | None:
    """Epoch seconds as an aware datetime, for the date filter and <time datetime=...>."""
    if seconds is None:
        return None
    return datetime.fromtimestamp(float(seconds), tz=UTC)


@functools.lru_cache(maxsize=1024)
def _lines_url(title: str) -> str:
    """The URL every line's own URLs start with (the URLconf does not change while the process runs)."""
    return reverse("card:line", args=[title, 1]).removesuffix("1/")


@register.simple_tag(takes_context=True)
def line_item(context: template.Context) -> str:
    """The card's `line` partial for a line with no note and no open history, written in Python: a card of
    1,000 lines took a second through the template's tags (six URL reversals and two dates a line)."""
    return mark_safe(_line_html(context, context["n"], context["line"]))  # every value in it was escaped


@register.simple_tag(takes_context=True)
def line_items(context: template.Context, lines: list) -> str:
    """Every line of a group as line_item writes it: the template's loop, with, if and partial tags cost
    more than the lines themselves."""
    return mark_safe("\n".join(_line_html(context, line.n, line) for line in lines))  # escaped, as above


def _line_html(context: template.Context, n: int, line: object) -> str:
    fresh = n in (context.get("fresh") or ())
    checked = str(n) in (context.get("selected") or ())
    args = (
        context["notebook"].title, n, line, bool(context.get("can_edit")), bool(context.get("frozen")), fresh, checked,
        get_current_timezone_name() if context.use_tz else None,
    )  # fmt: skip
    try:
        return _kept_line_html(*args)
    except TypeError:  # a line that is not a (hashable) Line tuple: made each time
        return _render_line(*args)


def _render_line(
    title: str, n: int, line: object, can_edit: bool, frozen: bool, fresh: bool, checked: bool, tz: str | None
) -> str:
    source = escape(line.source)
    when = template_localtime(epoch(line.at), use_tz=tz is not None)
    out = f'<li id="line-{n}" class="line src-{source}{" fresh" if fresh else ""}">\n  <div class="line-top">\n    '
    if can_edit:
        checked = " checked" if checked else ""
        out += (
            f'<input class="pick" type="checkbox" name="n" value="{n}" form="select-form" id="pick-{n}" '
            f'aria-label="Select line #{n}"{checked}>'
        )
    out += (
        f'\n    <span class="num">#{n}</span>\n    <span class="tag tag-{source}">'
        f'<span class="tag-icon" aria-hidden="true">{escape(source_icon(line.source))}</span>'
        f"{escape(source_label(line.source))}</span>\n  </div>\n"
        f'  <p class="words">{escape(line.text)}</p>\n  <div class="line-foot">\n'
        f'    <span class="meta muted">{escape(line.by)} · <time datetime="{when.isoformat()}">'
        f"{when.strftime('%Y-%m-%d %H:%M')}</time></span>\n"
    )
    if not frozen:
        url = escape(f"{_lines_url(title)}{n}/")
        out += '    <form class="actions" method="get">\n'
        for verb, label in (("edit", "Edit"), ("retire", "Retire")) if can_edit else ():
            out += (
                f'      <button type="submit" formaction="{url}{verb}/" hx-get="{url}{verb}/" hx-target="#line-{n}" '
                f'hx-swap="outerHTML">{label}</button>\n'
            )
        out += (
            f'      <button type="submit" formaction="{url}history/" hx-get="{url}history/" hx-target="#history-{n}" '
            'hx-swap="innerHTML">History</button>\n    </form>\n'
        )
    out += f'  </div>\n  <div class="history-slot" id="history-{n}"></div>\n</li>'
    return out


# Lines are immutable tuples, so a line's HTML is kept: a card of 1,000 lines renders them once, not per request.
_kept_line_html = functools.lru_cache(maxsize=50_000)(_render_line)
