"""Times as the reader reads them: in his time zone, with UTC on hover."""

from datetime import UTC, datetime
from urllib.parse import urlencode

from django import template
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString

from notebooks.card.diffs import entry_diff, word_diff

register = template.Library()


@register.simple_tag
def when(seconds: float | None, fmt: str = "Y-m-d H:i") -> SafeString | str:
    """<time> for epoch seconds: in the reader's zone, the UTC time in its title (hover) and datetime."""
    if seconds is None:
        return ""
    utc = datetime.fromtimestamp(float(seconds), tz=UTC)
    local = timezone.localtime(utc)
    return format_html(
        '<time datetime="{}" title="{} UTC">{}</time>',
        utc.isoformat(timespec="seconds"),
        date_format(utc, "Y-m-d H:i:s"),
        date_format(local, fmt),
    )


register.simple_tag(entry_diff, name="edit_diff")  # the words an edit in a line's history inserted and deleted
register.simple_tag(word_diff, name="words_diff")  # the same between two versions of a line


@register.simple_tag
def as_of_query(seq: int, chosen: str = "") -> str:
    """The query of a frozen view compared with now ("what changed since then"): the time Dad chose, as he sent it
    (the same words cut at the same row: times never go backwards), else the row it stands at (an audit's link)."""
    return urlencode({"as_of": chosen, "show": "changes"} if chosen else {"upto": seq, "show": "changes"})
