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


def test_counts_of_thousands_are_shortened_and_the_plot_starts_right_of_its_widest_label():
    built = chart.build([DayCount(10, "seen", 1500), DayCount(11, "seen", 20)])
    assert [t.text for t in built.ticks] == ["0", "750", "1.5k"]
    big = chart.build([DayCount(10, "seen", 123_456)])
    assert [t.text for t in big.ticks] == ["0", "61k", "123k"]
    for c in (built, big):
        widest = max(len(t.text) for t in c.ticks) * chart.DIGIT_WIDTH
        assert all(t.x - widest >= 0 for t in c.ticks)  # each label, ending at t.x, fits inside the picture
        assert min(b.x for b in c.bars) >= c.left
