"""Small filters for the card's templates: how a source is named and marked, and epoch seconds as a time."""

from datetime import UTC, datetime

from django import template

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
