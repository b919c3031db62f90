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


# ----- Retire selected, now said by one line (issue 31, point 4) ---------------------------------------------------


def test_retire_selected_retires_the_ticked_lines_as_now_said_by_one_line(editor_client, lines):
    data = {"n": ["1", "2"], "reason": "#3 says it", "into": "3", "action": "retire"}
    response = editor_client.post(url(action="selected"), data, **HX)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-focus-line="1">Retired #1, #2, now said by #3.</p>' in html
    assert "line <a" in html and "#3</a> now says it" in html  # each notice names the line that says it now
    assert [line.n for line in selectors.view(lines)] == [3]
    for n in (1, 2):
        strike = selectors.history(lines, n)[-1]
        assert (strike.op, strike.how, strike.into, strike.why) == ("strike", "retired", 3, "#3 says it")


def test_retire_selected_into_a_line_works_without_javascript(editor_client, lines):
    data = {"n": ["1", "2"], "reason": "#3 says it", "into": "3", "action": "retire"}
    response = editor_client.post(url(action="selected"), data)
    assert response.status_code == 302 and response["Location"] == "/notebooks/zelda/"
    assert [s.into for s in (selectors.history(lines, n)[-1] for n in (1, 2))] == [3, 3]
    page = editor_client.get(response["Location"]).content.decode()
    assert "Retired #1, #2, now said by #3." in page
    assert 'name="into"' in page and "Now said by line #" in page  # the field is on the page's form


def test_retire_selected_into_one_of_the_ticked_lines_is_refused_on_the_field(editor_client, lines):
    before = rows()
    data = {"n": ["1", "2"], "reason": "r", "into": "2", "action": "retire"}
    response = editor_client.post(url(action="selected"), data, **HX)
    assert response.status_code == 422
    html = response.content.decode()
    assert "Line #2 is among the ticked lines: untick it to keep it, or name a line not ticked." in html
    assert 'name="into" value="2"' in html and "autofocus" in html.split('name="into"')[1].split(">")[0]
    assert "open-retire" in html  # the bar opens on Retire selected, its field in view
    assert 'id="pick-1" aria-label="Select line #1" checked' in html
    assert rows() == before


def test_retire_selected_into_a_line_not_live_is_refused_naming_it(editor_client, lines):
    services.retire(notebook="zelda", n=3, by="dad", why="gone")
    before = rows()
    for into, said, status in (
        ("3", "Line #3 is retired, so it cannot say what the others said.", 422),
        ("99", "Notebook &#x27;zelda&#x27; has no line #99.", 422),
    ):
        data = {"n": ["1", "2"], "reason": "r", "into": into, "action": "retire"}
        response = editor_client.post(url(action="selected"), data, **HX)
        assert response.status_code == status
        html = response.content.decode()
        field = html.split('id="sel-into"')[1].split("</div>")[0]  # said under the field, not only above the form
        assert f"Nothing was changed. {said}" in field, field
        assert rows() == before
    assert selectors.live_line(lines, 1) is not None and selectors.live_line(lines, 2) is not None


def test_retire_selected_into_a_number_past_any_line_says_there_is_no_such_line(editor_client, lines):
    data = {"n": ["1", "2"], "reason": "r", "into": "99999999999999999999", "action": "retire"}
    response = editor_client.post(url(action="selected"), data, **HX)
    assert response.status_code == 422
    field = response.content.decode().split('id="sel-into"')[1].split("</div>")[0]
    assert "There is no line #99999999999999999999 in this notebook." in field, field


def test_retire_selected_into_a_line_refuses_a_ticked_line_not_live(editor_client, lines):
    services.retire(notebook="zelda", n=2, by="dad", why="gone")
    before = rows()
    data = {"n": ["1", "2"], "reason": "r", "into": "3", "action": "retire"}
    response = editor_client.post(url(action="selected"), data, **HX)
    assert response.status_code == 409
    html = response.content.decode()
    assert "Nothing was changed. Line #2 is already retired" in html.split('id="sel-into"')[0]  # above the form
    assert rows() == before


# ----- Merge keeps one ticked line's words, as the Similar view's Merge… does (issue 31, point 4) -----------------


def test_merge_keeps_a_ticked_lines_words_and_its_source(editor_client, lines):
    data = {"n": ["1", "2"], "keep": "1", "words": "", "reason": "one lesson", "action": "merge"}
    response = editor_client.post(url(action="selected"), data, **HX)
    assert response.status_code == 200
    assert "Merged #1, #2 into new line #4." in response.content.decode()
    new = selectors.live_line(lines, 4)
    assert (new.text, new.source) == ("roll after the second swing", "seen")  # her words kept as they are stay hers


def test_words_written_win_over_the_kept_line(editor_client, lines):
    data = {"n": ["1", "2"], "keep": "1", "words": "roll, never attack first", "reason": "r", "action": "merge"}
    editor_client.post(url(action="selected"), data, **HX)
    new = selectors.live_line(lines, 4)
    assert (new.text, new.source) == ("roll, never attack first", "dad_correction")


def test_merge_without_words_offers_each_ticked_lines_words_without_javascript(editor_client, lines):
    before = rows()
    data = {"n": ["1", "2"], "words": "", "reason": "r", "action": "merge"}
    response = editor_client.post(url(action="selected"), data)
    assert response.status_code == 422
    html = response.content.decode()
    assert "Write the one line that says them all. Or keep one ticked line&#x27;s words: choose it below." in html
    choices = html.split('id="sel-keep"')[1].split("</fieldset>")[0]
    assert 'value="1" aria-label="Keep #1\'s words" checked' in choices  # the clearest (her seen line) is chosen
    assert 'value="2" aria-label="Keep #2\'s words">' in choices
    assert "Keep #1's words" in choices and "Keep #2's words" in choices
    assert "keeping these words, the line stays seen" in choices and "the line stays guessed" in choices
    assert "roll after the second swing" in choices and "always attack first" in choices
    assert rows() == before
    # The form he gets back merges with that choice.
    kept = editor_client.post(url(action="selected"), {**data, "keep": "1"})
    assert kept.status_code == 302
    assert selectors.live_line(lines, 4).text == "roll after the second swing"


def test_the_choices_are_drawn_for_the_ticked_lines_alone(editor_client, lines):
    before = rows()
    response = editor_client.post(url(action="selected"), {"n": ["2", "3"], "choices": "1"}, **HX)
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#sel-keep" and response["HX-Reswap"] == "outerHTML"
    html = response.content.decode()
    assert html.lstrip().startswith('<fieldset class="sel-keep" id="sel-keep">')
    assert 'aria-label="Keep #3\'s words" checked' in html and "#1" not in html  # his line is the clearest
    assert 'aria-label="Keep #2\'s words">' in html
    again = editor_client.post(url(action="selected"), {"n": ["2", "3"], "keep": "2", "choices": "1"}, **HX)
    assert 'aria-label="Keep #2\'s words" checked' in again.content.decode()  # his choice, while still ticked
    gone = editor_client.post(url(action="selected"), {"n": ["2", "3"], "keep": "1", "choices": "1"}, **HX)
    assert 'aria-label="Keep #3\'s words" checked' in gone.content.decode()
    one = editor_client.post(url(action="selected"), {"n": ["2"], "choices": "1"}, **HX).content.decode()
    assert '<fieldset class="sel-keep" id="sel-keep" hidden>' in one and "radio" not in one  # a merge needs two
    assert rows() == before


def test_keeping_a_line_not_ticked_or_not_live_is_refused(editor_client, lines):
    before = rows()
    data = {"n": ["1", "2"], "keep": "3", "words": "", "reason": "r", "action": "merge"}
    response = editor_client.post(url(action="selected"), data, **HX)
    assert response.status_code == 422
    assert "Or keep one ticked line&#x27;s words" in response.content.decode()
    assert rows() == before
    services.add(notebook="zelda", text="a fourth line", source="seen", by="pippa", why="seen")
    services.add(notebook="zelda", text="a fifth line", source="seen", by="pippa", why="seen")
    services.retire(notebook="zelda", n=4, by="dad", why="gone")
    before = rows()
    data = {"n": ["4", "5"], "keep": "4", "words": "", "reason": "r", "action": "merge"}
    response = editor_client.post(url(action="selected"), data, **HX)
    assert response.status_code == 422
    assert "Nothing was changed. Line #4 is no longer live, so its words cannot be kept." in response.content.decode()
    assert rows() == before


def test_which_source_says_what_keeping_a_lines_words_gives(editor_client, lines):
    data = {"n": ["1", "2"], "keep": "1", "words": "", "preview": "1"}
    response = editor_client.post(url(action="selected"), data, **HX)
    assert response["HX-Retarget"] == "#merge-source"
    assert "these are #1&#x27;s words unchanged: this stays pippa&#x27;s seen line" in response.content.decode()
    page = editor_client.post(url(action="selected"), data).content.decode()  # without JavaScript: the card
    assert "these are #1&#x27;s words unchanged" in page and 'aria-label="Keep #1\'s words" checked' in page
