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


def test_a_number_past_pythons_digits_in_a_body_is_said_as_such_not_as_bad_json(zelda, pippa):
    sid = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "p"}).json()["id"]
    answer = pippa.post(f"/api/sessions/{sid}/withdraw", '{"seq": ' + "9" * 5000 + ', "why": "x"}')
    message = answer.json()["error"]["message"]
    assert answer.status_code == 400 and "more than 4300 digits" in message and "not valid JSON" not in message


@pytest.mark.parametrize("number", ["9" * 5000, "18446744073709551616"])
def test_a_session_number_out_of_range_is_404_however_long(zelda, pippa, number):
    answer = pippa.get(f"/api/sessions/{number}")
    assert answer.status_code == 404 and len(answer.content) < 500
