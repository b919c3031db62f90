"""The card's small chart of lines added per day by source: SVG geometry computed here, drawn by the template."""

from dataclasses import dataclass
from datetime import date, timedelta

from notebooks.card.selectors import DayCount

SOURCES = ("seen", "guessed", "dad", "dad_correction")  # bottom to top: her own lines carry the story
EPOCH = date(1970, 1, 1)
WIDTH, HEIGHT = 360, 190
LEFT, RIGHT, TOP, BOTTOM = 28, 6, 10, 24
DIGIT_WIDTH = 7  # px of one character of a 12 px tick label (.chart .tick), a little over the font's own


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    source: str
    count: int
    day: date


@dataclass(frozen=True)
class Day:
    day: date
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def in_order(self) -> list[int]:
        return [self.counts[s] for s in SOURCES]


@dataclass(frozen=True)
class Mark:
    x: float
    y: float
    text: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    bars: list[Bar]
    days: list[Day]
    ticks: list[Mark]
    labels: list[Mark]
    totals: dict[str, int]
    baseline: float
    left: float
    right: float


def build(counts: list[DayCount], *, span: int = 30) -> Chart | None:
    """Stacked bars for the last `span` days up to the last day anything was added; None when nothing was."""
    if not counts:
        return None
    last = max(c.day for c in counts)
    first = max(min(c.day for c in counts), last - span + 1)
    per_day = {d: dict.fromkeys(SOURCES, 0) for d in range(first, last + 1)}
    for c in counts:
        if c.day >= first and c.source in SOURCES:
            per_day[c.day][c.source] += c.count
    days = [Day(EPOCH + timedelta(days=d), per_day[d]) for d in range(first, last + 1)]
    top = max(1, max(day.total for day in days))
    values = sorted({0, top // 2, top}) if top >= 4 else sorted({0, top})
    # The plot starts right of its widest count label (the labels end 6 px left of it).
    left = max(LEFT, 6 + 2 + DIGIT_WIDTH * max(len(_count(v)) for v in values))
    plot_w, plot_h = WIDTH - left - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / len(days)
    bar_w = min(slot * 0.72, 48)
    baseline = TOP + plot_h
    bars = []
    for i, day in enumerate(days):
        x = left + i * slot + (slot - bar_w) / 2
        y = baseline
        for source in SOURCES:
            count = day.counts[source]
            if count:
                h = count / top * plot_h
                y -= h
                bars.append(Bar(round(x, 2), round(y, 2), round(bar_w, 2), round(h, 2), source, count, day.day))
    ticks = [Mark(left - 6, round(baseline - v / top * plot_h, 2), _count(v)) for v in values]
    label_days = sorted({0, len(days) - 1, (len(days) - 1) // 2}) if len(days) > 2 else list(range(len(days)))
    labels = [Mark(round(left + i * slot + slot / 2, 2), HEIGHT - 8, _short(days[i].day)) for i in label_days]
    totals = {s: sum(day.counts[s] for day in days) for s in SOURCES}
    return Chart(WIDTH, HEIGHT, bars, days, ticks, labels, totals, baseline, left, WIDTH - RIGHT)


def _count(v: int) -> str:
    """A count as a tick shows it: 950, 1.5k, 12k, 1.2M."""
    for size, unit in ((1_000_000, "M"), (1_000, "k")):
        if v >= size:
            return f"{v / size:.1f}".removesuffix(".0") + unit if v < 10 * size else f"{v // size}{unit}"
    return str(v)


def _short(day: date) -> str:
    return f"{day:%b} {day.day}"
