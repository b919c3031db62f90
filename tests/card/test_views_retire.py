"""Retire: a required Reason, optionally "now said by #m"; the line leaves the view with a notice linking to history."""

import re

from notebooks.log import services
from notebooks.log.views import selectors
from tests.card_helpers import HX, rows, url


def test_it_opens_the_retire_form_inline(editor_client, lines):
    response = editor_client.get(url(1, "retire"), **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<li id="line-1"')
    assert '<label for="retire-1-reason">Reason</label>' in html
    assert "Now said by line #" in html
    assert ">Retire</button>" in html


def test_it_retires_with_a_reason_and_leaves_a_notice_linking_to_history(editor_client, lines):
    response = editor_client.post(url(2, "retire"), {"reason": "not about the game", "expected": 2}, **HX)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="line retired-notice"' in html
    assert "Line #2 is retired" in html
    assert 'href="/notebooks/zelda/lines/2/history/"' in html
    assert "not about the game" in html
    assert selectors.live_line(lines, 2) is None
    strike = selectors.history(lines, 2)[-1]
    assert (strike.op, strike.how, strike.by, strike.why) == ("strike", "retired", "dad", "not about the game")
    assert strike.text == "always attack first"  # the words stay in history


def test_it_retires_into_another_line(editor_client, lines):
    response = editor_client.post(url(2, "retire"), {"reason": "said better", "into": 1, "expected": 2}, **HX)
    assert response.status_code == 200
    assert re.search(r"line <a [^>]*>#1</a> now says it", response.content.decode())
    assert selectors.history(lines, 2)[-1].into == 1


def test_it_retires_and_redirects_to_a_notice_without_javascript(editor_client, lines):
    response = editor_client.post(url(2, "retire"), {"reason": "not about the game", "expected": 2})
    assert response.status_code == 302
    assert response["Location"] == "/notebooks/zelda/?retired=2"
    page = editor_client.get(response["Location"]).content.decode()
    assert "Line #2 is retired" in page and 'href="/notebooks/zelda/lines/2/history/"' in page
    assert "always attack first" not in page


def test_it_refuses_a_missing_reason(editor_client, lines):
    before = rows()
    response = editor_client.post(url(2, "retire"), {"reason": "", "expected": 2}, **HX)
    assert response.status_code == 422
    assert "A reason is required" in response.content.decode()
    plain = editor_client.post(url(2, "retire"), {"reason": "", "expected": 2})
    assert plain.status_code == 422 and "<html" in plain.content.decode()
    assert rows() == before


def test_it_refuses_an_into_line_that_is_retired_or_itself(editor_client, lines):
    services.retire(notebook="zelda", n=3, by="dad", why="x")
    before = rows()
    response = editor_client.post(url(2, "retire"), {"reason": "r", "into": 3, "expected": 2}, **HX)
    assert response.status_code == 422
    assert "is retired, so it cannot say" in response.content.decode()
    itself = editor_client.post(url(2, "retire"), {"reason": "r", "into": 2, "expected": 2}, **HX)
    assert itself.status_code == 422 and "into itself" in itself.content.decode()
    assert rows() == before


def test_it_refuses_a_line_already_retired(editor_client, lines):
    services.retire(notebook="zelda", n=2, by="dad", why="gone")
    before = rows()
    response = editor_client.post(url(2, "retire"), {"reason": "again", "expected": 2}, **HX)
    assert response.status_code == 409
    assert "already retired" in response.content.decode()
    assert rows() == before


def test_a_stale_retire_shows_the_current_words_and_asks_again(editor_client, lines):
    services.edit(notebook="zelda", n=2, to="dodge first", by="pippa", why="learned")
    before = rows()
    response = editor_client.post(url(2, "retire"), {"reason": "my reason", "expected": 2}, **HX)
    assert response.status_code == 409
    html = response.content.decode()
    assert "dodge first" in html and 'value="my reason"' in html and "Retire again to confirm" in html
    assert rows() == before


def test_an_into_line_that_does_not_exist_is_an_error_on_that_field(editor_client, lines):
    before = rows()
    for headers in (HX, {}):
        response = editor_client.post(url(2, "retire"), {"reason": "said better", "into": 99, "expected": 2}, **headers)
        assert response.status_code == 422
        html = response.content.decode()
        field = re.search(r'<div class="field invalid">\s*<label for="retire-2-into">.*?</div>', html, re.S)
        assert field and "There is no line #99 in this notebook." in field.group(0)
        assert 'value="said better"' in html  # the reason is kept
    assert rows() == before


def test_an_into_number_past_any_line_is_said_in_the_cards_words_on_that_field(editor_client, lines):
    before = rows()
    huge = "99999999999999999999"
    for headers in (HX, {}):
        response = editor_client.post(
            url(2, "retire"), {"reason": "said better", "into": huge, "expected": 2}, **headers
        )
        assert response.status_code == 422
        html = response.content.decode()
        field = re.search(r'<div class="field invalid">\s*<label for="retire-2-into">.*?</div>', html, re.S)
        assert field and f"There is no line #{huge} in this notebook." in field.group(0)
        into = re.search(r'<input[^>]*id="retire-2-into"[^>]*>', html).group(0)
        assert "autofocus" in into and " max=" not in into and " min=" not in into  # no browser says it first
        assert "&#x27;into&#x27;" not in html and 'value="said better"' in html
    assert rows() == before


def test_a_retirement_answers_with_its_notice_and_the_counts_out_of_band(editor_client, lines):
    response = editor_client.post(url(2, "retire"), {"reason": "not about the game", "expected": 2}, **HX)
    html = response.content.decode()
    assert html.lstrip().startswith('<li id="line-2" class="line retired-notice"')
    assert '<p class="summary" id="summary" hx-swap-oob="true">' in html and "2 live lines" in html
    assert '<p data-focus-line="2">Retired line #2.</p>' in html


def test_a_retirement_updates_how_many_lines_the_filters_show(editor_client, lines):
    response = editor_client.post(
        url(1, "retire"), {"reason": "not about the game", "expected": 1, "q": "attack"}, **HX
    )
    count = re.search(
        r'<p class="shown muted" id="shown-count" hx-swap-oob="true">.*?</p>', response.content.decode(), re.S
    )
    assert count and "1 of 2 lines match" in count.group(0)  # "always attack first" is left of the three


def _input(html: str, id_: str) -> str:
    return re.search(rf'<input[^>]*id="{id_}"[^>]*>', html).group(0)


def test_a_reason_dad_asks_to_give_the_next_lines_starts_their_retire_form(editor_client, lines):
    form = editor_client.get(url(1, "retire"), **HX).content.decode()
    assert "Say this for the next lines I retire too" in form and "checked" not in _input(form, "retire-1-carry")
    assert "autofocus" in _input(form, "retire-1-reason")  # no reason carried yet: he types it first
    editor_client.post(url(1, "retire"), {"reason": "said by #3", "into": 3, "carry": "on", "expected": 1}, **HX)
    html = editor_client.get(url(2, "retire"), **HX).content.decode()
    reason = _input(html, "retire-2-reason")
    assert 'value="said by #3"' in reason and "autofocus" not in reason
    assert "autofocus" in _input(html, "retire-2-into")  # what is left to say: the line that says it now
    assert "checked" in _input(html, "retire-2-carry")
    assert "The reason you chose to give the next lines too" in html


def test_a_retirement_without_the_tick_stops_the_reason_being_given_and_without_javascript_too(editor_client, lines):
    answer = editor_client.post(url(1, "retire"), {"reason": "said by #3", "into": 3, "carry": "on", "expected": 1})
    assert answer.status_code == 302 and selectors.history(lines, 1)[-1].why == "said by #3"
    assert 'value="said by #3"' in _input(editor_client.get(url(2, "retire")).content.decode(), "retire-2-reason")
    editor_client.post(url(2, "retire"), {"reason": "a guess", "expected": 2})
    html = editor_client.get(url(3, "retire"), **HX).content.decode()
    assert "value=" not in _input(html, "retire-3-reason") and "checked" not in _input(html, "retire-3-carry")


def test_a_retire_answers_its_write_when_the_session_cannot_be_saved_after_it(editor_client, lines, monkeypatch):
    from django.contrib.sessions.models import Session
    from django.db import OperationalError

    def full(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise OperationalError("database or disk is full")

    monkeypatch.setattr(Session, "save", full)  # the disk fills between the retire's commit and the session's save
    response = editor_client.post(url(2, "retire"), {"reason": "not about the game", "expected": 2})
    assert response.status_code == 302
    assert "Cookie" in response["Vary"]
    assert selectors.live_line(lines, 2) is None
