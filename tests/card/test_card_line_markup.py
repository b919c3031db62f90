"""A card line has one markup, the `line` partial; the list keeps its rendered output (card.fragments) under
everything it depends on, and a redaction leaves its words in no kept fragment."""

import re
from datetime import UTC, datetime

import pytest
from django.template.loader import get_template

from notebooks.card import fragments
from notebooks.card.services import mark_reviewed
from notebooks.log import redaction, services
from notebooks.log.views import selectors
from tests.card_helpers import url

SECRET = "the door code is 4471"
MARK = "[redacted: a code, not a lesson]"


@pytest.fixture(autouse=True)
def _no_kept_fragments():
    fragments.forget_all()  # kept fragments outlive a test's rolled-back rows: each test starts without them
    yield
    fragments.forget_all()


def squeeze(html: str) -> str:
    return re.sub(r">\s+<", "><", re.sub(r"\s+", " ", html)).strip()


def listed(page: str, n: int) -> str:
    """Line n's <li> as the card page lists it."""
    found = re.search(rf'<li id="line-{n}" .*?</li>', page, re.S)
    assert found, f"line #{n} is not listed"
    return found.group(0)


def kept_html() -> str:
    return "".join(html for kept in fragments._kept.values() for html in kept.html.values())


@pytest.mark.parametrize("editor", [True, False])
def test_the_listed_line_is_the_partials_markup_first_and_when_kept(client, lines, dad, agent_user, editor):
    reader = dad if editor else agent_user
    client.force_login(reader)
    mark_reviewed(notebook="zelda", by=reader.username)  # nothing new to him: the line as the partial draws it
    values = {"n": 2, "line": selectors.live_line(lines, 2), "notebook": lines, "can_edit": editor, "selected": ()}
    by_partial = squeeze(get_template("notebooks/card.html#line").render(values))
    first = client.get(url()).content.decode()
    again = client.get(url()).content.decode()
    assert squeeze(listed(first, 2)) == by_partial
    assert squeeze(listed(again, 2)) == by_partial
    assert ('href="/notebooks/zelda/lines/2/edit/"' in by_partial) is editor
    assert 'href="/notebooks/zelda/lines/2/history/"' in by_partial


def test_an_editor_and_a_reader_each_get_their_own_markup(client, lines, dad, agent_user):
    client.force_login(dad)
    assert 'id="pick-2"' in listed(client.get(url()).content.decode(), 2)
    client.force_login(agent_user)
    reader = listed(client.get(url()).content.decode(), 2)
    assert 'id="pick-2"' not in reader
    assert "/edit/" not in reader


def test_a_frozen_view_lists_lines_without_actions_after_the_live_one_was_kept(editor_client, lines):
    assert "History</a>" in listed(editor_client.get(url()).content.decode(), 2)
    later = datetime.fromtimestamp(selectors.head(lines).at + 60, tz=UTC).strftime("%Y-%m-%dT%H:%M")
    frozen = editor_client.get(url(), {"as_of": later}).content.decode()
    assert "Frozen view" in frozen
    assert "History</a>" not in listed(frozen, 2)
    assert 'id="pick-2"' not in listed(frozen, 2)


def test_an_edit_shows_the_new_words_not_the_kept_ones(editor_client, lines):
    assert "always attack first" in listed(editor_client.get(url()).content.decode(), 2)
    services.edit(notebook="zelda", n=2, to="block first", by="dad", why="r")
    now = listed(editor_client.get(url()).content.decode(), 2)
    assert "block first" in now
    assert "always attack first" not in now


def test_a_ticked_line_stays_ticked_after_a_refused_selection(editor_client, lines):
    editor_client.get(url())  # every line kept unticked
    page = editor_client.post(url(action="selected"), {"action": "merge", "n": ["2"], "words": "", "reason": ""})
    assert page.status_code == 422
    assert " checked" in listed(page.content.decode(), 2)
    assert " checked" not in listed(page.content.decode(), 1)


@pytest.fixture
def secret(lines):
    """Lines #4 and #5 both say SECRET; the card has been drawn, so their fragments are kept."""
    services.add(notebook="zelda", text=SECRET, source="seen", by="pippa", why="seen")
    services.add(notebook="zelda", text=SECRET, source="guessed", by="pippa", why="seen")
    return lines


@pytest.mark.parametrize("where", ["card", "elsewhere"])
def test_redacted_words_leave_the_page_and_every_kept_fragment(editor_client, secret, where):
    assert SECRET in editor_client.get(url()).content.decode()
    assert SECRET in kept_html()
    if where == "card":
        response = editor_client.post(url(4, "redact"), {"reason": "a code, not a lesson", "seq": "4"})
        assert response.status_code == 302
        assert SECRET not in kept_html()  # the redacting process drops them at once
    else:  # another process (the API, the command line): the count of redactions tells the card
        redaction.redact(notebook="zelda", n=4, by="dad", why="a code, not a lesson")
    page = editor_client.get(url()).content.decode()
    assert SECRET not in page
    assert SECRET not in kept_html()
    # Line #5's row was written before the redaction and keeps its hash: its words now read as the mark too.
    assert MARK in listed(page, 4)
    assert MARK in listed(page, 5)
    assert selectors.live_line(secret, 5).seq == 5


def test_a_fragment_kept_under_an_old_count_of_redactions_is_not_used(editor_client, secret):
    editor_client.get(url())
    kept = fragments.for_notebook(secret)
    redaction.redact(notebook="zelda", n=4, by="dad", why="a code, not a lesson")
    assert fragments.for_notebook(secret) is not kept
    assert SECRET not in kept_html()


def test_the_marks_of_a_search_are_kept_apart_from_the_plain_line(editor_client, lines):
    searched = listed(editor_client.get(url(), {"q": "swing"}).content.decode(), 1)
    assert "second <mark>swing</mark>" in searched
    plain = listed(editor_client.get(url()).content.decode(), 1)
    assert "<mark>" not in plain and "the second swing" in plain
    again = listed(editor_client.get(url(), {"q": "roll"}).content.decode(), 1)
    assert "<mark>roll</mark> after the second swing" in again
