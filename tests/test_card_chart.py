"""The chart's geometry: stacked bars per day, her seen lines at the bottom, the window at most `span` days."""

from notebooks.card import chart
from notebooks.card.selectors import DayCount


def test_nothing_added_draws_no_chart():
    assert chart.build([]) is None


def test_bars_stack_by_source_and_the_tallest_day_fills_the_plot():
    built = chart.build([DayCount(10, "seen", 3), DayCount(10, "dad", 1), DayCount(12, "guessed", 2)])
    assert [d.day.isoformat() for d in built.days] == ["1970-01-11", "1970-01-12", "1970-01-13"]
    assert [d.total for d in built.days] == [4, 0, 2]
    seen, dad = [b for b in built.bars if b.day.isoformat() == "1970-01-11"]
    assert (seen.source, dad.source) == ("seen", "dad")
    assert seen.y + seen.height == built.baseline and dad.y + dad.height == seen.y
    assert round(seen.height + dad.height, 1) == round(built.baseline - chart.TOP, 1)
    assert built.totals == {"seen": 3, "guessed": 2, "dad": 1, "dad_correction": 0}


def test_the_window_is_the_last_span_days_up_to_the_last_addition():
    built = chart.build([DayCount(1, "seen", 9), DayCount(100, "seen", 1)], span=30)
    assert len(built.days) == 30 and built.days[-1].total == 1
    assert sum(d.total for d in built.days) == 1
