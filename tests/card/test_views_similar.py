"""The card's Similar view (show=similar): each group Dad decides in one step, merge, keep one, or not alike; every
decision is rows with his reason, and nothing is decided for him."""

import pytest

from notebooks.log import services
from notebooks.log.views import selectors
from notebooks.models import NotAlike, Notebook
from tests.card_helpers import LEFT, SHIELD, SHIELD_TOO, ZORA, add_messy


@pytest.fixture
def messy(notebook, dad):  # noqa: ANN001, ANN201
    """zelda: #1 and #3 say one thing (hers: seen, guessed), #2 stands alone, #4 and #5 contradict (seen, dad)."""
    add_messy()
    return Notebook.objects.get(title="zelda")


def _live(nb: Notebook) -> dict[int, tuple[str, str]]:
    return {x.n: (x.text, x.source) for x in selectors.view(nb)}


def test_the_view_shows_each_group_whole_with_its_decisions(editor_client, messy):
    html = editor_client.get("/notebooks/zelda/?show=similar").content.decode()
    assert 'id="group-1-3"' in html and 'id="group-4-5"' in html
    repeat = html[html.index('id="group-1-3"') : html.index("</section>", html.index('id="group-1-3"'))]
    assert "Say one thing?" in repeat and SHIELD in repeat and SHIELD_TOO in repeat and ZORA not in repeat
    assert ">Merge</button>" in repeat and ">Not alike</button>" in repeat
    assert "the line stays seen" in repeat  # keeping her seen words keeps them hers, said before he saves
    conflict = html[html.index('id="group-4-5"') :]
    assert "Contradict each other?" in conflict and "retire the others into it" in conflict
    assert 'id="lines-region"' in html and 'id="line-2"' not in html  # the view, not the list


def test_merge_keeping_her_seen_words_keeps_her_source_and_names_where_it_came_from(editor_client, messy):
    answer = editor_client.post(
        "/notebooks/zelda/similar/", {"n": ["1", "3"], "keep": "1", "reason": "one lesson", "action": "merge"}
    )
    assert answer.status_code == 302 and "show=similar" in answer["Location"]
    live = _live(messy)
    assert 1 not in live and 3 not in live and live[6] == (SHIELD, "seen")
    entries = selectors.history(messy, 6)
    assert entries[0].merged_from == (1, 3) or list(entries[0].merged_from) == [1, 3]
    assert {e.from_n: e.text for e in entries if e.from_n} == {1: SHIELD, 3: SHIELD_TOO}
    assert entries[0].why == "one lesson"


def test_new_words_of_his_make_it_his_correction(editor_client, messy):
    editor_client.post(
        "/notebooks/zelda/similar/",
        {"n": ["1", "3"], "keep": "1", "words": "Buy the Deku Shield first.", "reason": "mine", "action": "merge"},
    )
    assert _live(messy)[6] == ("Buy the Deku Shield first.", "dad_correction")


def test_keep_one_retires_the_other_into_it(editor_client, messy):
    editor_client.post("/notebooks/zelda/similar/", {"n": ["4", "5"], "keep": "4", "reason": "left is right",
                                                     "action": "keep"})  # fmt: skip
    live = _live(messy)
    assert 5 not in live and live[4] == (LEFT, "seen")
    strike = [e for e in selectors.history(messy, 5) if e.op == "strike"][0]
    assert (strike.into, strike.why) == (4, "left is right")


def test_a_line_left_out_stays(editor_client, messy):
    editor_client.post(
        "/notebooks/zelda/similar/",
        {"n": ["1", "2", "3"], "out": ["2"], "keep": "1", "reason": "one lesson", "action": "merge"},
    )
    assert 2 in _live(messy) and 1 not in _live(messy)


def test_not_alike_is_remembered_off_the_log_and_can_be_undone(editor_client, messy):
    head = selectors.head_at(messy).seq
    editor_client.post("/notebooks/zelda/similar/", {"n": ["4", "5"], "action": "not-alike"})
    assert selectors.head_at(messy).seq == head  # no row in the log
    html = editor_client.get("/notebooks/zelda/?show=similar").content.decode()
    assert 'id="group-4-5"' not in html and "Marked not alike (1)" in html
    mark = NotAlike.objects.get()
    editor_client.post(f"/notebooks/zelda/similar/{mark.pk}/undo/")
    assert 'id="group-4-5"' in editor_client.get("/notebooks/zelda/?show=similar").content.decode()


def test_htmx_answers_in_the_groups_place_with_the_counts_out_of_band(editor_client, messy):
    answer = editor_client.post(
        "/notebooks/zelda/similar/",
        {"n": ["1", "3"], "keep": "1", "reason": "one lesson", "action": "merge", "show": "similar"},
        HTTP_HX_REQUEST="true",
    )
    html = answer.content.decode()
    assert answer.status_code == 200
    assert 'id="similar"' in html and "Merged #1, #3 into new line #6 (seen)" in html
    assert 'id="group-1-3"' not in html and 'id="group-4-5"' in html  # the view anew: the decided group gone
    assert 'id="summary"' in html and "hx-swap-oob" in html and "4 live lines" in html


def test_a_decision_without_a_reason_is_refused_with_the_draft_kept(editor_client, messy):
    answer = editor_client.post(
        "/notebooks/zelda/similar/",
        {"n": ["1", "3"], "keep": "3", "words": "my draft words", "action": "merge"},
        HTTP_HX_REQUEST="true",
    )
    html = answer.content.decode()
    assert answer.status_code == 422 and "A reason is required" in html
    assert "my draft words" in html and 'value="3" aria-label="Keep #3\'s words" checked' in html
    assert 1 in _live(messy) and 3 in _live(messy)


def test_a_reason_over_the_limit_is_refused_not_cut(editor_client, messy, settings):
    long = "x" * (settings.NOTEBOOK_MAX_REASON + 1)
    answer = editor_client.post(
        "/notebooks/zelda/similar/",
        {"n": ["1", "3"], "keep": "1", "reason": long, "action": "merge"},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 422 and long in answer.content.decode()
    assert 1 in _live(messy)


def test_someone_who_is_not_the_editor_cannot_decide(client, messy, django_user_model):
    client.force_login(django_user_model.objects.create_user("viewer", password="x" * 20))
    answer = client.post("/notebooks/zelda/similar/", {"n": ["1", "3"], "keep": "1", "reason": "r", "action": "merge"})
    assert answer.status_code == 403 and 1 in _live(messy)
    html = client.get("/notebooks/zelda/?show=similar").content.decode()
    assert 'id="group-1-3"' in html and ">Merge</button>" not in html  # he may read the suggestions


def test_a_frozen_view_offers_no_decision(editor_client, messy):
    html = editor_client.get("/notebooks/zelda/?show=similar&as_of=2100-01-01T00:00").content.decode()
    assert "A frozen view is read-only" in html and "similar-form" not in html


SHIELD_SHOP = "Buy a Deku Shield in the Kokiri shop before the Deku Tree."
ZORA_TOO = "Zora Tunic: Link can breathe underwater with it."


@pytest.fixture
def busier(messy):  # noqa: ANN001, ANN201
    """messy, and #6 a third shield line (the group is #1, #3, #6), #7 a second Zora line (#2 and #7 say one thing)."""
    services.add(notebook="zelda", text=SHIELD_SHOP, source="seen", by="pippa", why="seen")
    services.add(notebook="zelda", text=ZORA_TOO, source="seen", by="pippa", why="seen")
    return messy


def _groups(html: str) -> list[str]:
    import re

    return re.findall(r'<section class="similar-group[^"]*" id="group-([0-9-]+)"', html)


def _drawn(html: str) -> str:
    import re

    return re.search(r'name="drawn" value="([0-9]+)"', html).group(1)


def test_a_line_left_out_of_a_merge_is_not_paired_again_with_the_merged_line(editor_client, busier):
    html = editor_client.get("/notebooks/zelda/?show=similar").content.decode()
    assert _groups(html) == ["2-7", "4-5", "1-3-6"]
    drawn = _drawn(html)
    answer = editor_client.post("/notebooks/zelda/similar/", {"n": ["1", "3", "6"], "out": ["6"], "keep": "1",
                                "reason": "one lesson", "action": "merge", "drawn": drawn})  # fmt: skip
    assert answer["Location"].endswith(f"?show=similar&drawn={drawn}")
    html = editor_client.get(answer["Location"]).content.decode()
    assert _groups(html) == ["2-7", "4-5"]  # #8 (the merge, #1's words) and #6 left out are not offered together
    assert "no new group was made" in html and "Look again" in html
    assert "6-8" in _groups(editor_client.get("/notebooks/zelda/?show=similar").content.decode())  # looking again


def test_a_decision_changes_only_the_groups_that_hold_its_lines(editor_client, busier):
    drawn = _drawn(editor_client.get("/notebooks/zelda/?show=similar").content.decode())
    services.add(notebook="zelda", text=SHIELD_TOO, source="guessed", by="pippa", why="seen")  # #8, meanwhile
    answer = editor_client.post(
        "/notebooks/zelda/similar/",
        {"n": ["2", "7"], "keep": "2", "reason": "one lesson", "action": "merge", "drawn": drawn},
        HTTP_HX_REQUEST="true",
    )
    html = answer.content.decode()
    assert _groups(html) == ["4-5", "1-3-6"]  # #8 joins no group until he looks again
    assert answer["HX-Replace-Url"].endswith(f"?show=similar&drawn={drawn}")
    services.retire(notebook="zelda", n=6, by="dad", why="elsewhere")
    assert _groups(editor_client.get(answer["HX-Replace-Url"]).content.decode()) == ["4-5", "1-3"]


def test_every_group_offers_keep_n_and_keep_the_chosen_line(editor_client, messy):
    html = editor_client.get("/notebooks/zelda/?show=similar").content.decode()
    repeat = html[html.index('id="group-1-3"') : html.index("</section>", html.index('id="group-1-3"'))]
    assert 'value="keep:1">Keep #1, retire the others into it</button>' in repeat
    assert 'value="keep">Keep the chosen line, retire the others into it</button>' in repeat
    assert repeat.index('value="merge"') < repeat.index('value="keep')  # Enter merges a repeat, as before


def test_keep_n_keeps_the_line_its_button_names_whatever_line_is_chosen(editor_client, messy):
    answer = editor_client.post(
        "/notebooks/zelda/similar/", {"n": ["1", "3"], "keep": "1", "reason": "said there", "action": "keep:3"}
    )
    assert answer.status_code == 302
    live = _live(messy)
    assert 1 not in live and live[3] == (SHIELD_TOO, "guessed")
    strike = [e for e in selectors.history(messy, 1) if e.op == "strike"][0]
    assert (strike.into, strike.why) == (3, "said there")


def test_keep_n_of_a_line_outside_the_group_is_refused(editor_client, messy):
    answer = editor_client.post(
        "/notebooks/zelda/similar/", {"n": ["1", "3"], "reason": "r", "action": "keep:2"}, HTTP_HX_REQUEST="true"
    )
    assert answer.status_code == 422 and "Choose the line to keep" in answer.content.decode()
    assert {1, 2, 3} <= set(_live(messy))


def _reason_of(html: str, key: str) -> str:
    import re

    return re.search(rf'id="reason-{key}" name="reason" type="text" autocomplete="off" value="([^"]*)"', html).group(1)


def test_a_reason_is_given_to_the_next_groups_only_when_he_asks(editor_client, busier):
    similar = "/notebooks/zelda/similar/"
    conflict = {"n": ["4", "5"], "keep": "4", "reason": "the wiki says left", "kind": "conflict", "action": "keep"}
    editor_client.post(similar, conflict)
    editor_client.post(
        similar, {"n": ["2", "7"], "keep": "2", "reason": "one lesson", "kind": "repeat", "action": "merge"}
    )
    html = editor_client.get("/notebooks/zelda/?show=similar").content.decode()
    assert _reason_of(html, "1-3-6") == ""  # not pre-filled by itself
    assert "the wiki says left" not in html and "one lesson" not in html
    services.add(notebook="zelda", text=LEFT, source="seen", by="pippa", why="seen")  # #9, alike #8 (Zora merged)
    editor_client.post("/notebooks/zelda/similar/", {"n": ["1", "3"], "keep": "1", "reason": "says one thing",
                       "carry": "1", "kind": "repeat", "action": "merge"})  # fmt: skip
    html = editor_client.get("/notebooks/zelda/?show=similar").content.decode()
    key = _groups(html)[0]
    assert _reason_of(html, key) == "says one thing"
    assert 'name="carry" value="1" checked> Use this reason for the next groups too' in html


def test_keep_n_of_a_line_left_out_is_refused_by_name_and_writes_nothing(editor_client, messy):
    services.add(notebook="zelda", text=SHIELD + " Really.", source="guessed", by="pippa", why="seen")  # #6
    before = _live(messy)
    answer = editor_client.post(
        "/notebooks/zelda/similar/",
        {"n": ["1", "3", "6"], "out": ["1"], "keep": "1", "reason": "one lesson", "action": "keep:1"},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 422
    assert "#1 is left out: take it back in to keep it" in answer.content.decode()
    assert _live(messy) == before
