"""The card's chart of lines added by source, per day or per run (a landed session): its SVG geometry."""

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from notebooks.card.selectors import DayCount
from notebooks.log.rules.fold import SOURCES  # drawn bottom to top: her own lines carry the story
from notebooks.sessions.selectors import Run

EPOCH = date(1970, 1, 1)
WIDTH, HEIGHT = 360, 190
LEFT, RIGHT, TOP, BOTTOM = 28, 6, 10, 24
RUNS = 20  # the last landed sessions a chart by run shows
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
    name: str  # what the bar counts, for its tooltip: a day, or a run's id, actor and date


@dataclass(frozen=True)
class Day:
    """One bar's column: a day, or a landed session's run (who ran it, and the lines it changed besides)."""

    day: date
    counts: dict[str, int]
    name: str  # for the bars' tooltips
    tick: str  # the label under the column
    session: int = 0
    actor: str = ""
    changed: int = 0

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
    by: str = "day"  # or "run": one bar per landed session


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
    dates = {d: EPOCH + timedelta(days=d) for d in per_day}
    return _draw([Day(day, per_day[d], day.isoformat(), f"{day:%b} {day.day}") for d, day in dates.items()], "day")


def build_runs(runs: list[Run]) -> Chart | None:
    """Stacked bars of the new lines each landed session brought, in the order they landed; None when none landed."""
    if not runs:
        return None
    columns = []
    for r in runs:
        d = datetime.fromtimestamp(r.landed_at, tz=UTC).date()
        name = f"#{r.session} · {r.actor} · {d.isoformat()}"
        columns.append(Day(d, r.brought.added, name, f"#{r.session}", r.session, r.actor, r.brought.changed))
    return _draw(columns, "run")


def _draw(days: list[Day], by: str) -> Chart:
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
                bars.append(
                    Bar(round(x, 2), round(y, 2), round(bar_w, 2), round(h, 2), source, count, day.day, day.name)
                )
    ticks = [Mark(left - 6, round(baseline - v / top * plot_h, 2), _count(v)) for v in values]
    labels = [Mark(round(left + i * slot + slot / 2, 2), HEIGHT - 8, days[i].tick) for i in _labelled(days, by, slot)]
    totals = {s: sum(day.counts[s] for day in days) for s in SOURCES}
    return Chart(WIDTH, HEIGHT, bars, days, ticks, labels, totals, baseline, left, WIDTH - RIGHT, by)


def _labelled(days: list[Day], by: str, slot: float) -> list[int]:
    """The labelled bars: a day chart's first, middle and last; a run chart's that fit, counted back from the latest."""
    if by == "day":
        return sorted({0, len(days) - 1, (len(days) - 1) // 2}) if len(days) > 2 else list(range(len(days)))
    widest = DIGIT_WIDTH * max(len(day.tick) for day in days) + 4
    step = max(1, -(-int(widest) // max(1, int(slot))))
    return sorted(range(len(days) - 1, -1, -step))


def _count(v: int) -> str:
    """A count as a tick shows it: 950, 1.5k, 12k, 1.2M."""
    for size, unit in ((1_000_000, "M"), (1_000, "k")):
        if v >= size:
            return f"{v / size:.1f}".removesuffix(".0") + unit if v < 10 * size else f"{v // size}{unit}"
    return str(v)
