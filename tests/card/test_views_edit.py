"""Edit inline: the line becomes a form with its words and a required Reason; saving keeps the number."""

import re

from notebooks.log import services
from notebooks.log.views import selectors
from tests.card_helpers import HX, rows, url


def _words(notebook, n):
    return selectors.live_line(notebook, n)


def test_it_opens_the_form_inline_for_htmx(editor_client, lines):
    response = editor_client.get(url(1, "edit"), **HX)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<li id="line-1"')
    assert "<html" not in html
    assert 'name="expected" value="1"' in html
    assert "roll after the second swing</textarea>" in html
    assert re.search(r'<label for="edit-1-reason">Reason</label>', html)
    assert re.search(r'<label for="edit-1-words">Words</label>', html)


def test_it_opens_the_form_in_the_whole_card_without_javascript(editor_client, lines):
    response = editor_client.get(url(1, "edit"))
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" in html
    assert 'action="/notebooks/zelda/lines/1/edit/"' in html
    assert "roll after the second swing</textarea>" in html


def test_it_saves_with_a_reason_for_htmx_and_returns_the_line(editor_client, lines):
    response = editor_client.post(
        url(2, "edit"), {"words": "block first", "reason": "attacking first got her killed", "expected": 2}, **HX
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<li id="line-2" class="line src-dad_correction')
    assert "block first" in html
    line = _words(lines, 2)
    assert (line.text, line.source, line.n) == ("block first", "dad_correction", 2)
    entry = selectors.history(lines, 2)[-1]
    assert (entry.op, entry.by, entry.why) == ("edit", "dad", "attacking first got her killed")


def test_it_saves_and_redirects_without_javascript(editor_client, lines):
    response = editor_client.post(url(2, "edit"), {"words": "block first", "reason": "died", "expected": 2})
    assert response.status_code == 302
    assert response["Location"] == "/notebooks/zelda/#line-2"
    assert _words(lines, 2).text == "block first"


def test_it_refuses_a_missing_reason_in_place_for_htmx(editor_client, lines):
    before = rows()
    response = editor_client.post(url(2, "edit"), {"words": "block first", "reason": "  ", "expected": 2}, **HX)
    assert response.status_code == 422
    html = response.content.decode()
    assert html.lstrip().startswith('<li id="line-2"')
    assert "A reason is required" in html
    assert "block first</textarea>" in html  # the draft is kept
    assert rows() == before


def test_it_refuses_a_missing_reason_in_the_whole_card_without_javascript(editor_client, lines):
    before = rows()
    response = editor_client.post(url(2, "edit"), {"words": "block first", "reason": "", "expected": 2})
    assert response.status_code == 422
    html = response.content.decode()
    assert "<html" in html and "A reason is required" in html
    assert "block first</textarea>" in html
    assert rows() == before


def test_it_refuses_empty_words(editor_client, lines):
    before = rows()
    response = editor_client.post(url(2, "edit"), {"words": "", "reason": "why", "expected": 2}, **HX)
    assert response.status_code == 422
    assert "a line needs words" in response.content.decode()
    assert rows() == before


def test_it_refuses_words_that_change_nothing(editor_client, lines):
    before = rows()
    response = editor_client.post(url(2, "edit"), {"words": "always attack first", "reason": "x", "expected": 2}, **HX)
    assert response.status_code == 422
    assert "already says exactly that" in response.content.decode()
    assert rows() == before


def test_a_stale_edit_keeps_the_draft_and_shows_the_current_words(editor_client, lines):
    services.edit(notebook="zelda", n=2, to="dodge first", by="pippa", why="learned")
    before = rows()
    response = editor_client.post(url(2, "edit"), {"words": "block first", "reason": "my reason", "expected": 2}, **HX)
    assert response.status_code == 409
    html = response.content.decode()
    assert "changed since you read it" in html
    assert '<blockquote class="words">dodge first</blockquote>' in html
    assert "block first</textarea>" in html
    assert 'value="my reason"' in html
    current_seq = selectors.live_line(lines, 2).seq
    assert f'name="expected" value="{current_seq}"' in html
    assert rows() == before
    # A second Save, now knowing the current words, replaces them.
    again = editor_client.post(
        url(2, "edit"), {"words": "block first", "reason": "my reason", "expected": current_seq}, **HX
    )
    assert again.status_code == 200
    assert _words(lines, 2).text == "block first"


def test_a_stale_edit_says_which_change_he_saw_and_which_it_is_at_now(editor_client, lines):
    services.edit(notebook="zelda", n=2, to="dodge first", by="pippa", why="learned")
    now = selectors.live_line(lines, 2).seq
    sent = {
        "edit": {"words": "block first", "reason": "mine", "expected": 2},
        "retire": {"reason": "mine", "expected": 2},
    }
    for action, data in sent.items():
        for headers in (HX, {}):
            html = editor_client.post(url(2, action), data, **headers).content.decode()
            assert f"Line #2 changed since you read it (you saw change 2, it is now at change {now})." in html
            assert "you saw seq" not in html


def test_a_stale_edit_without_javascript_renders_the_card_with_the_draft(editor_client, lines):
    services.edit(notebook="zelda", n=2, to="dodge first", by="pippa", why="learned")
    response = editor_client.post(url(2, "edit"), {"words": "block first", "reason": "mine", "expected": 2})
    assert response.status_code == 409
    html = response.content.decode()
    assert "<html" in html and "block first</textarea>" in html and "dodge first" in html


def test_it_refuses_to_edit_a_retired_line_and_keeps_the_draft(editor_client, lines):
    services.retire(notebook="zelda", n=2, by="dad", why="wrong")
    before = rows()
    response = editor_client.post(url(2, "edit"), {"words": "block first", "reason": "r", "expected": 2}, **HX)
    assert response.status_code == 409
    html = response.content.decode()
    assert "already retired" in html
    assert "block first</textarea>" in html
    assert ">Save<" not in html
    assert rows() == before


def test_opening_the_form_of_a_retired_line_says_it_is_retired(editor_client, lines):
    services.retire(notebook="zelda", n=2, by="dad", why="wrong")
    response = editor_client.get(url(2, "edit"), **HX)
    assert response.status_code == 409
    assert "Line #2 is retired" in response.content.decode()
    plain = editor_client.get(url(2, "edit"))
    assert plain.status_code == 302 and plain["Location"] == "/notebooks/zelda/?retired=2"


def test_it_answers_404_for_a_line_that_never_was(editor_client, lines):
    response = editor_client.post(url(99, "edit"), {"words": "x", "reason": "r", "expected": 1}, **HX)
    assert response.status_code == 404


def test_the_cancel_link_brings_the_line_back(editor_client, lines):
    response = editor_client.get(url(2), **HX)
    assert response.status_code == 200
    assert response.content.decode().lstrip().startswith('<li id="line-2" class="line src-guessed')
    plain = editor_client.get(url(2))
    assert plain.status_code == 302 and plain["Location"] == "/notebooks/zelda/?line=2#line-2"


def test_a_tampered_expected_is_said_above_the_form(editor_client, lines):
    before = rows()
    response = editor_client.post(url(2, "edit"), {"words": "w", "reason": "r", "expected": "x"}, **HX)
    assert response.status_code == 422
    assert '<div class="errors" role="alert"><p>Enter a whole number.</p></div>' in response.content.decode()
    assert rows() == before


def test_a_field_error_draws_no_empty_error_box(editor_client, lines):
    response = editor_client.post(url(2, "edit"), {"words": "w", "reason": "", "expected": 2}, **HX)
    assert 'class="errors"' not in response.content.decode()


def test_a_save_answers_in_place_with_the_counts_and_chart_out_of_band(editor_client, lines):
    response = editor_client.post(url(2, "edit"), {"words": "block first", "reason": "r", "expected": 2}, **HX)
    html = response.content.decode()
    assert html.lstrip().startswith('<li id="line-2" class="line src-dad_correction')
    assert "Saved line #2." in html
    summary = re.search(r'<p class="summary" id="summary" hx-swap-oob="true">.*?</p>', html, re.S).group(0)
    assert "Dad&#x27;s correction</span> 1" in summary
    assert 'hx-swap-oob="true"' in html.split('id="chart"')[1][:80]
    assert '<p data-focus-line="2">Saved line #2.</p>' in html
