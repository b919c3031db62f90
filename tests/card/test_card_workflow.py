"""The card's workflow through Django's test client (issue 21): text over a limit is refused in every card form
with the draft kept and no maxlength to cut a paste; the search's word prefixes and "any of these words"; the counts
and the review banner follow an action inside a search; the selection's answer says what it did; without
JavaScript a merge still works from the plain form."""

import re

import pytest
from django.conf import settings

from notebooks.card import search
from notebooks.log import services
from notebooks.log.views import selectors
from tests.card_helpers import HX, rows, url

LONG_WORDS = "w" * (settings.NOTEBOOK_MAX_WORDS + 1000)
LONG_REASON = "r" * (settings.NOTEBOOK_MAX_REASON + 500)


def _order(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<li id="line-(\d+)"', html)]


def _head_seq(notebook) -> int:  # noqa: ANN001
    return selectors.live_line(notebook, 1).seq


# ----- limits: refused with a message, the draft kept, never cut -------------------------------------------


def test_no_card_form_has_a_maxlength_that_would_cut_a_paste(editor_client, lines):
    pages = [
        editor_client.get(url()).content.decode(),
        editor_client.get(url(1, "edit"), **HX).content.decode(),
        editor_client.get(url(1, "retire"), **HX).content.decode(),
        editor_client.get(url(1, "redact"), **HX).content.decode(),
    ]
    for html in pages:
        fields = re.sub(r'<input type="search"[^>]*>', "", html)  # the search box alone keeps its short cap
        assert "maxlength" not in fields
        assert f'data-limit="{settings.NOTEBOOK_MAX_REASON}"' in html
    assert f'data-limit="{settings.NOTEBOOK_MAX_WORDS}"' in pages[0] and pages[1]


@pytest.mark.parametrize(
    ("action", "n", "data", "field_text"),
    [
        ("add", None, {"words": LONG_WORDS, "reason": "long"}, LONG_WORDS),
        ("add", None, {"words": "short", "reason": LONG_REASON}, LONG_REASON),
        ("edit", 1, {"words": LONG_WORDS, "reason": "long", "expected": 1}, LONG_WORDS),
        ("edit", 1, {"words": "short", "reason": LONG_REASON, "expected": 1}, LONG_REASON),
        ("retire", 1, {"reason": LONG_REASON, "expected": 1}, LONG_REASON),
        ("redact", 1, {"reason": LONG_REASON, "seq": 1}, LONG_REASON),
        ("selected", None, {"n": [1, 2], "action": "merge", "words": LONG_WORDS, "reason": "one"}, LONG_WORDS),
        ("selected", None, {"n": [1, 2], "action": "retire", "reason": LONG_REASON}, LONG_REASON),
    ],
)
@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
def test_text_over_a_limit_is_refused_with_a_message_and_the_draft_kept(
    editor_client, lines, action, n, data, field_text, htmx
):
    before = rows()
    response = editor_client.post(url(n, action), data, **(HX if htmx else {}))
    assert response.status_code == 422
    html = response.content.decode()
    limit = settings.NOTEBOOK_MAX_WORDS if field_text is LONG_WORDS else settings.NOTEBOOK_MAX_REASON
    assert f"Too long: {len(field_text):,} characters" in html and f"at most {limit:,}" in html
    assert "nothing was cut" in html
    assert field_text in html  # the whole draft comes back, to shorten
    assert rows() == before


def test_text_at_the_limit_is_saved_whole(editor_client, lines):
    words = "w" * settings.NOTEBOOK_MAX_WORDS
    reason = "r" * settings.NOTEBOOK_MAX_REASON
    response = editor_client.post(url(1, "edit"), {"words": words, "reason": reason, "expected": 1}, **HX)
    assert response.status_code == 200
    assert selectors.live_line(lines, 1).text == words


def test_the_services_refuse_too_long_words_too(lines):
    from notebooks.log.rules.errors import NotebookError

    with pytest.raises(NotebookError):
        services.add(notebook="zelda", text=LONG_WORDS, source="dad", by="dad", why="long")


# ----- search: word prefixes, any or all -----------------------------------------------------------------


@pytest.fixture
def searchable(notebook, dad):  # noqa: ANN001, ANN201
    for text in (
        "Saving before the boss door keeps the keys.",  # 1
        "Save often: the game does not save by itself.",  # 2
        "The other path hides a fairy fountain.",  # 3
        "Bombs open the cracked walls.",  # 4
        "Torches burn out after a minute.",  # 5
    ):
        services.add(notebook=notebook.title, text=text, source="seen", by="pippa", why="seen")
    return notebook


def test_save_finds_saving_and_words_match_from_their_start(editor_client, searchable):
    found = {
        q: _order(editor_client.get(url(), {"q": q, "order": "number"}).content.decode())
        for q in ("save", "saving", "saved", "bomb", "torch", "other", "ther", "avin")
    }
    assert found == {
        "save": [1, 2],
        "saving": [1, 2],
        "saved": [1, 2],
        "bomb": [4],
        "torch": [5],
        "other": [3],
        "ther": [],  # the middle of a word is no match ("the" does not find "other")
        "avin": [],
    }
    html = editor_client.get(url(), {"q": "save"}).content.decode()
    assert "<mark>Saving</mark> before the boss door" in html
    assert "<mark>Save</mark> often: the game does not <mark>save</mark> by itself." in html


def test_any_of_these_words_beside_all_of_them(editor_client, searchable):
    def found(**query: str) -> list[int]:
        return _order(editor_client.get(url(), {"order": "number", **query}).content.decode())

    assert found(q="bombs torches") == []
    assert found(q="bombs torches", match="all") == []
    assert found(q="bombs torches", match="any") == [4, 5]
    html = editor_client.get(url(), {"q": "bombs torches", "match": "any"}).content.decode()
    assert "<mark>Bombs</mark> open" in html and "<mark>Torches</mark> burn" in html
    assert '<option value="any" selected>' in html
    assert "2 of 5 lines match" in html


def test_a_long_raw_query_is_read_as_words_without_building_a_number_pattern():
    assert search.parse("line " + " " * 16_000 + "x").terms == ("line", "x")
    assert search.parse(" " * 16_000).empty
    assert search.parse(" #12 ").number == 12
    assert search.parse("line 2500").number == 2500
    assert search.parse("no. 7").number == 7


def test_the_stem_keeps_three_letters_at_least():
    assert [search.stem(w) for w in ("save", "saving", "saves", "bombs", "the", "use", "rolled")] == [
        "sav", "sav", "sav", "bomb", "the", "use", "roll",
    ]  # fmt: skip


# ----- counts, summary and review banner follow an action inside a search -----------------------------------


def _oob(html: str, element_id: str) -> str:
    found = re.search(rf'<[a-z]+ [^>]*id="{element_id}"[^>]*hx-swap-oob="true"[^>]*>(.*?)</(p|section)>', html, re.S)
    assert found, f"no out-of-band #{element_id}"
    return re.sub(r"\s+", " ", found.group(1))


def test_a_save_inside_a_search_answers_with_that_search_s_counts_and_the_review_banner(editor_client, searchable):
    state = {"q": "save", "order": "turn", "source": "", "match": "", "show": ""}
    data = {"words": "Save before every boss door.", "reason": "shorter", "expected": 1, **state}
    html = editor_client.post(url(1, "edit"), data, **HX).content.decode()
    assert "2 of 5 lines match" in _oob(html, "shown-count")
    assert "5 live lines" in _oob(html, "summary")
    assert "new to you" in _oob(html, "review-bar")


def test_a_retire_inside_a_search_updates_the_counts_of_that_search(editor_client, searchable):
    state = {"q": "save", "order": "turn"}
    html = editor_client.post(url(2, "retire"), {"reason": "said twice", "expected": 2, **state}, **HX).content.decode()
    assert "1 of 4 lines match" in _oob(html, "shown-count")
    assert "4 live lines" in _oob(html, "summary")
    assert "4 lines new to you" in _oob(html, "review-bar")


def test_merge_and_retire_selected_say_what_they_did_in_the_selection_bar(editor_client, searchable):
    state = {"q": "save", "order": "turn"}
    html = editor_client.post(
        url(action="selected"), {"n": [1, 2], "action": "retire", "reason": "not lessons", **state}, **HX
    ).content.decode()
    assert re.search(r'<form id="select-form"[^>]*hx-swap-oob="true"', html)
    assert '<p class="sel-done" role="status">Retired #1, #2.</p>' in html
    assert "0 of 3 lines match" in _oob(html, "shown-count")


def test_a_merge_of_lines_from_two_searches_answers_with_the_whole_list(editor_client, searchable):
    # #4 is ticked under another search: the list of "save" does not show it, so its place is not in this page.
    data = {"n": [1, 4], "action": "merge", "words": "Save, then bomb.", "reason": "one lesson", "q": "save"}
    response = editor_client.post(url(action="selected"), data, **HX)
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#lines-region"
    html = response.content.decode()
    assert "Merged #1, #4 into new line #6." in html
    assert 'class="sel-done"' in html
    assert [line.n for line in selectors.view(searchable)] == [2, 3, 5, 6]


def test_without_javascript_the_plain_selection_form_still_merges(editor_client, searchable):
    data = {"n": [3, 5], "action": "merge", "words": "Fountains and torches.", "reason": "one", "q": "the"}
    response = editor_client.post(url(action="selected"), data)
    assert response.status_code == 302
    assert "q=the" in response["Location"]
    assert [line.n for line in selectors.view(searchable)] == [1, 2, 4, 6]
