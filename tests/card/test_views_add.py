"""Add line: words and a required Reason; the line gets the next number and source dad."""

from notebooks.log.views import selectors
from tests.card_helpers import HX, rows, url


def test_it_adds_a_dad_line_with_the_next_number_for_htmx(editor_client, lines):
    response = editor_client.post(url(action="add"), {"words": "save before the boss", "reason": "she died"}, **HX)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="lines-region"')
    assert "Added line #4." in html
    assert 'id="line-4" class="line src-dad fresh is-new"' in html  # fresh, and new since his review (none yet)
    line = selectors.live_line(lines, 4)
    assert (line.text, line.source, line.by) == ("save before the boss", "dad", "dad")
    assert selectors.history(lines, 4)[0].why == "she died"


def test_it_adds_and_redirects_without_javascript(editor_client, lines):
    response = editor_client.post(url(action="add"), {"words": "save first", "reason": "r", "order": "number"})
    assert response.status_code == 302
    assert response["Location"] == "/notebooks/zelda/?order=number#line-4"
    assert selectors.live_line(lines, 4).text == "save first"


def test_it_keeps_the_view_the_form_was_sent_from(editor_client, lines):
    response = editor_client.post(
        url(action="add"), {"words": "swing twice", "reason": "r", "source": "seen", "q": "swing"}, **HX
    )
    html = response.content.decode()
    assert "roll after the second <mark>swing</mark>" in html
    assert "always attack first" not in html  # the search still holds


def test_it_refuses_a_missing_reason_and_keeps_the_words(editor_client, lines):
    before = rows()
    response = editor_client.post(url(action="add"), {"words": "save before the boss", "reason": ""}, **HX)
    assert response.status_code == 422
    html = response.content.decode()
    assert "A reason is required" in html
    assert "save before the boss</textarea>" in html
    plain = editor_client.post(url(action="add"), {"words": "save before the boss", "reason": ""})
    assert plain.status_code == 422 and "<html" in plain.content.decode()
    assert rows() == before


def test_it_refuses_missing_words(editor_client, lines):
    before = rows()
    response = editor_client.post(url(action="add"), {"words": "   ", "reason": "r"}, **HX)
    assert response.status_code == 422
    assert "a line needs words" in response.content.decode()
    assert rows() == before


def test_it_refuses_words_over_the_limit(editor_client, lines, settings):
    before = rows()
    response = editor_client.post(url(action="add"), {"words": "x" * 4001, "reason": "r"}, **HX)
    assert response.status_code == 422
    assert "Too long: 4,001 characters, and a line may have at most 4,000." in response.content.decode()
    assert rows() == before
