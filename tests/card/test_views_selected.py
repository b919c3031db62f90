"""Merge selected and Retire selected: several lines, one reason, one action, all or nothing."""

from notebooks.log import services
from notebooks.log.views import selectors
from tests.card_helpers import HX, rows, url


def test_it_merges_the_selected_lines_into_one_new_line(editor_client, lines):
    data = {"n": ["1", "2"], "words": "roll after his second swing, never attack first", "reason": "one thing"}
    response = editor_client.post(url(action="selected"), {**data, "action": "merge"}, **HX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Merged #1, #2 into new line #4." in html
    new = selectors.live_line(lines, 4)
    assert new.text == data["words"] and new.source == "dad_correction"
    assert selectors.live_line(lines, 1) is None and selectors.live_line(lines, 2) is None
    strike = selectors.history(lines, 1)[-1]
    assert (strike.how, strike.into, strike.why) == ("merged", 4, "one thing")


def test_it_retires_the_selected_lines_for_one_reason(editor_client, lines):
    response = editor_client.post(
        url(action="selected"), {"n": ["1", "2"], "reason": "not about the game", "action": "retire"}, **HX
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "Retired #1, #2." in html
    assert 'href="/notebooks/zelda/lines/1/history/"' in html
    assert [line.n for line in selectors.view(lines)] == [3]
    for n in (1, 2):
        strike = selectors.history(lines, n)[-1]
        assert (strike.op, strike.how, strike.why, strike.by) == ("strike", "retired", "not about the game", "dad")


def test_it_works_without_javascript_and_redirects(editor_client, lines):
    response = editor_client.post(url(action="selected"), {"n": ["1", "2"], "reason": "r", "action": "retire"})
    assert response.status_code == 302
    assert response["Location"] == "/notebooks/zelda/"
    assert [line.n for line in selectors.view(lines)] == [3]


def test_retire_selected_writes_nothing_when_one_line_cannot_be_retired(editor_client, lines):
    services.retire(notebook="zelda", n=2, by="dad", why="gone")
    before = rows()
    response = editor_client.post(
        url(action="selected"), {"n": ["1", "2"], "reason": "not about the game", "action": "retire"}, **HX
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert "Nothing was changed." in html and "already retired" in html
    assert rows() == before
    assert selectors.live_line(lines, 1) is not None
    assert 'value="1" form="select-form" id="pick-1" aria-label="Select line #1" checked' in html


def test_it_refuses_a_missing_reason_and_keeps_the_selection(editor_client, lines):
    before = rows()
    response = editor_client.post(url(action="selected"), {"n": ["1", "3"], "reason": "", "action": "retire"}, **HX)
    assert response.status_code == 422
    html = response.content.decode()
    assert "A reason is required" in html
    assert 'id="pick-1" aria-label="Select line #1" checked' in html
    assert 'id="pick-3" aria-label="Select line #3" checked' in html
    assert 'id="pick-2" aria-label="Select line #2">' in html
    assert rows() == before


def test_it_refuses_when_nothing_is_selected(editor_client, lines):
    before = rows()
    response = editor_client.post(url(action="selected"), {"reason": "r", "action": "retire"}, **HX)
    assert response.status_code == 422
    assert "Select the lines first" in response.content.decode()
    assert rows() == before


def test_a_merge_needs_words_and_two_lines(editor_client, lines):
    before = rows()
    no_words = editor_client.post(url(action="selected"), {"n": ["1", "2"], "reason": "r", "action": "merge"}, **HX)
    assert no_words.status_code == 422
    assert "Write the one line that says them all." in no_words.content.decode()
    one = editor_client.post(url(action="selected"), {"n": ["1"], "words": "w", "reason": "r", "action": "merge"}, **HX)
    assert one.status_code == 422 and "at least two lines" in one.content.decode()
    assert rows() == before


def test_it_refuses_a_selection_that_is_not_a_number(editor_client, lines):
    before = rows()
    response = editor_client.post(url(action="selected"), {"n": ["x"], "reason": "r", "action": "retire"}, **HX)
    assert response.status_code == 422
    assert "not a line number" in response.content.decode()
    assert rows() == before


def test_a_merge_answers_where_the_first_ticked_line_stood(editor_client, lines):
    data = {"n": ["2", "1"], "words": "one line for two", "reason": "one thing", "action": "merge"}
    response = editor_client.post(url(action="selected"), data, **HX)
    assert response["HX-Retarget"] == "#line-2" and response["HX-Reswap"] == "outerHTML"
    html = response.content.decode()
    assert html.lstrip().startswith('<li id="line-4" class="line src-dad_correction fresh')
    assert "Merged #2, #1 into new line #4." in html.split("</li>")[0]
    # The other ticked line leaves a one-line notice in its place; the counts, chart and selection follow.
    assert '<li id="line-1" class="line retired-notice" data-n="1" hx-swap-oob="true">' in html
    assert "Line #1 was merged into" in html
    assert '<p class="summary" id="summary" hx-swap-oob="true">' in html and "2 live lines" in html
    assert 'id="chart" aria-labelledby="chart-title" hx-swap-oob="true"' in html
    assert '<form id="select-form"' in html and "checked" not in html
    assert (
        '<div id="announce" hx-swap-oob="innerHTML"><p data-focus-line="4">Merged #2, #1 into new line #4.</p>' in html
    )


def test_retire_selected_leaves_a_notice_in_each_place(editor_client, lines):
    response = editor_client.post(url(action="selected"), {"n": ["1", "3"], "reason": "r", "action": "retire"}, **HX)
    assert response["HX-Retarget"] == "#line-1"
    html = response.content.decode()
    assert html.lstrip().startswith('<li id="line-1" class="line retired-notice" data-n="1">')
    assert '<li id="line-3" class="line retired-notice" data-n="3" hx-swap-oob="true">' in html
    assert "Line #3 is retired, by dad." in html and "1 live line" in html
    assert 'data-focus-line="1">Retired #1, #3.</p>' in html
    assert 'class="undo' not in html  # the place an undo goes stays empty until lines can be restored


def test_a_ticked_number_that_is_no_line_is_said_in_the_form(editor_client, lines):
    before = rows()
    response = editor_client.post(url(action="selected"), {"n": ["1", "99"], "reason": "r", "action": "retire"}, **HX)
    assert response.status_code == 422
    assert "Nothing was changed." in response.content.decode() and "#99" in response.content.decode()
    assert rows() == before
