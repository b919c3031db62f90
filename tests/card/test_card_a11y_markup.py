"""What a screen reader is told by the markup alone: each field's error and help text carry the ids its
aria-describedby names, a refused sign-in marks both fields, headings go down one level at a time, and ids are
unique on a page."""

import re
from collections import Counter

from tests.card_helpers import HX, url


def described(html: str, name: str) -> list[str]:
    """The ids the aria-describedby of the field named `name` points at."""
    tag = re.search(rf'<(?:input|textarea|select)[^>]*\bname="{name}"[^>]*>', html)
    assert tag, f"no field {name}"
    found = re.search(r'aria-describedby="([^"]*)"', tag.group(0))
    return found.group(1).split() if found else []


def ids(html: str) -> Counter:
    return Counter(re.findall(r'\bid="([^"]+)"', html))


def test_a_refused_fields_error_has_the_id_its_aria_describedby_names(editor_client, lines):
    html = editor_client.post(url(2, "edit"), {"words": "block first", "reason": " ", "expected": 2}, **HX)
    html = html.content.decode()
    pointed = described(html, "reason")
    assert pointed and all(x.endswith("_error") for x in pointed)
    for x in pointed:
        assert re.search(rf'id="{x}"[^>]*>\s*<p class="error" role="alert">', html), f"nothing has id {x}"


def test_the_selection_bars_help_texts_have_the_ids_their_fields_name(editor_client, lines):
    html = editor_client.get(url()).content.decode()
    present = ids(html)
    for name in ("words", "to", "into"):
        form = html[html.index('id="select-form"') :]
        pointed = described(form, name)
        assert pointed, name
        for x in pointed:
            assert present[x] == 1, f"{name} points at {x}, which the page has {present[x]} times"


def test_a_wrong_password_marks_both_fields_invalid_and_described_by_the_message(client, dad):
    html = client.post("/accounts/login/", {"username": "dad", "password": "not-it"}).content.decode()
    assert 'id="signin-error"' in html
    for name in ("username", "password"):
        tag = re.search(rf'<input[^>]*name="{name}"[^>]*>', html).group(0)
        assert 'aria-invalid="true"' in tag
        assert 'aria-describedby="signin-error"' in tag


def headings(html: str) -> list[tuple[int, str]]:
    return [
        (int(level), re.sub(r"<[^>]+>|\s+", " ", text).strip())
        for level, text in re.findall(r"<h([1-6])[^>]*>(.*?)</h\1>", html, re.S)
    ]  # noqa: E501


def skips(html: str) -> list[str]:
    """Each heading more than one level below the one before it."""
    found, before = [], 0
    for level, text in headings(html):
        if level > before + 1:
            found.append(f"h{level} {text!r} after h{before}")
        before = level
    return found


def test_what_changed_since_a_frozen_view_is_headed_one_level_below_the_page(editor_client, lines):
    from notebooks.log import services
    from notebooks.log.views import selectors

    then = selectors.head(lines).seq
    services.add(notebook="zelda", text="a later line", source="seen", by="pippa", why="later")
    services.edit(notebook="zelda", n=2, to="block first", by="dad", why="r")
    services.retire(notebook="zelda", n=3, by="dad", why="r")
    html = editor_client.get(url(), {"upto": then, "show": "changes"}).content.decode()
    assert (2, "Added since (1)") in headings(html) and (2, "Retired since (1)") in headings(html)
    assert skips(html) == []


def test_suggestions_are_a_section_above_their_groups_beside_the_engines_groups(editor_client, lines, pippa):
    from notebooks.similar import suggestions

    suggestions.suggest(
        notebook="zelda", lines=[1, 2], kind="repeat", words="roll, never attack first", why="one thing", by="pippa"
    )
    html = editor_client.get(url(), {"show": "similar"}).content.decode()
    levels = dict((text.split(":")[0], level) for level, text in headings(html))
    assert levels["Similar lines"] == 2 and levels["Suggested"] == 3
    assert re.search(r'<h4 id="suggestion-[^"]+-title">', html)
    assert skips(html) == []


def test_the_undo_merge_page_has_each_id_once(editor_client, lines):
    from notebooks.log import services

    merged = services.merge(notebook="zelda", numbers=[1, 2], text="roll, never attack first", by="dad", why="one")
    html = editor_client.get(f"/notebooks/zelda/lines/{merged.n}/undo-merge/").content.decode()
    assert f'id="line-{merged.n}"' in html
    assert [x for x, count in ids(html).items() if count > 1] == []
    assert f'class="button quiet cancel" href="/notebooks/zelda/lines/{merged.n}/"' in html


def test_restores_cancel_goes_back_to_the_list_it_came_from(editor_client, lines):
    from notebooks.log import services

    services.retire(notebook="zelda", n=2, by="dad", why="wrong")
    from_list = editor_client.get(url(2, "restore"), **HX).content.decode()
    from_retired = editor_client.get(url(2, "restore"), {"show": "retired"}, **HX).content.decode()
    assert 'class="button quiet cancel" href="/notebooks/zelda/#line-2"' in from_list
    assert 'class="button quiet cancel" href="/notebooks/zelda/?show=retired#line-2"' in from_retired


def test_restored_and_put_back_are_said_through_the_live_region(editor_client, lines):
    from notebooks.log import services
    from notebooks.log.views import selectors

    services.retire(notebook="zelda", n=2, by="dad", why="wrong")
    html = editor_client.post(url(2, "restore"), {"reason": "it was right"}, **HX).content.decode()
    assert re.search(r'<div id="announce" hx-swap-oob="innerHTML"><p>Restored line #2: its words are back', html)
    services.edit(notebook="zelda", n=1, to="roll twice", by="dad", why="r")
    first = selectors.history(lines, 1)[0]
    current = selectors.live_line(lines, 1).seq
    sent = {"seq": first.seq, "reason": "it was right", "expected": current}
    html = editor_client.post(url(1, "put-back"), sent, **HX).content.decode()
    assert '<div id="announce" hx-swap-oob="innerHTML"><p>Put back older words of line #1.</p></div>' in html


def test_a_refused_merge_comes_back_open_on_merge(editor_client, lines):
    sent = {"n": ["1", "2"], "action": "merge", "words": "one line", "reason": ""}
    html = editor_client.post(url(action="selected"), sent, **HX).content.decode()
    assert re.search(r'<form id="select-form" class="box selection open open-merge"', html)


def test_the_card_says_once_how_a_lines_own_links_are_reached(editor_client, lines):
    html = editor_client.get(url()).content.decode()
    assert ids(html)["line-keys"] == 1
    said = re.search(r'<p id="line-keys" hidden>(.*?)</p>', html).group(1)
    assert "Right arrow" in said and "e to edit" in said
