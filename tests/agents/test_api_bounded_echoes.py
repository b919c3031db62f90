"""A refusal quotes what it was sent cut: a 5,000-character title or time is not said back whole."""

import pytest

HUGE_TITLE, HUGE_TIME = "x" * 5000, "9" * 5000


@pytest.mark.parametrize(
    ("path", "said"),
    [
        (f"/api/notebooks/{HUGE_TITLE}/lines", "No notebook is titled 'xxx"),
        (f"/api/notebooks/{HUGE_TITLE}/turn", "No notebook is titled 'xxx"),
        (f"/api/notebooks/zelda/lines?until={HUGE_TIME}", "'999"),
        (f"/api/notebooks/zelda/turn?until=x{HUGE_TIME}", "'x999"),
    ],
)
def test_a_read_quotes_a_huge_title_or_time_cut(zelda, pippa, path, said):
    answer = pippa.get(path)
    message = answer.json()["error"]["message"]
    assert answer.status_code in (400, 404) and said in message and "characters)" in message
    assert len(answer.content) < 1_000


def test_a_take_quotes_a_huge_title_cut(zelda, pippa):
    answer = pippa.post("/api/sessions", {"notebook": HUGE_TITLE, "plan": "p"})
    assert answer.status_code in (400, 404) and len(answer.content) < 1_000
