"""Redact, from a line's history: the human editor removes one row's words from the database for good, with a
reason that every row which carried them shows instead."""

from notebooks.log import services
from notebooks.log.views import selectors
from notebooks.models import Words
from tests.card_helpers import HX, rows, url

SECRET = "the admin password is hunter2"


def _leaked() -> None:
    services.edit(notebook="zelda", n=2, to=SECRET, by="pippa", why="saw it on the screen")


def test_the_history_offers_to_redact_each_rows_words_to_the_editor(editor_client, lines):
    _leaked()
    html = editor_client.get(url(2, "history"), **HX).content.decode()
    assert html.count("Redact these words…") == 2  # the add and the edit
    assert f'href="{url(2, "redact")}?seq=2"' in html
    assert f'href="{url(2, "redact")}?seq=4"' in html


def test_a_reader_is_not_offered_redaction(client, agent_user, lines):
    client.force_login(agent_user)
    html = client.get(url(2, "history"), **HX).content.decode()
    assert "Redact these words" not in html


def test_it_opens_the_form_with_the_words_it_would_remove(editor_client, lines):
    _leaked()
    response = editor_client.get(url(2, "redact") + "?seq=2", **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<li id="line-2" class="line redacting')
    assert "always attack first" in html  # row 2's words, not the current ones
    assert '<input type="hidden" name="seq" value="2"' in html
    assert '<label for="redact-2-reason">Reason</label>' in html
    assert "Redact for good</button>" in html


def test_without_a_seq_it_offers_the_current_words(editor_client, lines):
    _leaked()
    html = editor_client.get(url(2, "redact"), **HX).content.decode()
    assert SECRET in html and '<input type="hidden" name="seq" value="4"' in html


def test_it_redacts_and_shows_the_line_with_its_history(editor_client, lines):
    _leaked()
    response = editor_client.post(url(2, "redact"), {"reason": "a password", "seq": 4}, **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert SECRET not in html
    assert "[redacted: a password]" in html
    assert "redacted words" in html  # the redact row's entry, not "retired"
    assert "Redacted those words of line #2" in html
    assert not Words.objects.filter(body=SECRET).exists()
    assert selectors.live_line(lines, 2).text == "[redacted: a password]"
    page = editor_client.get(url()).content.decode()
    assert SECRET not in page and "[redacted: a password]" in page


def test_a_plain_post_redirects_to_the_line(editor_client, lines):
    _leaked()
    response = editor_client.post(url(2, "redact"), {"reason": "a password", "seq": 4})
    assert response.status_code == 302
    assert response["Location"] == url() + "#line-2"
    page = editor_client.get(response["Location"]).content.decode()
    assert "Redacted those words of line #2" in page and SECRET not in page


def test_it_needs_a_reason_and_writes_nothing_without_one(editor_client, lines):
    _leaked()
    before = rows()
    response = editor_client.post(url(2, "redact"), {"reason": " ", "seq": 4}, **HX)
    html = response.content.decode()
    assert response.status_code == 422
    assert "A reason is required" in html
    assert SECRET in html  # the form stays on the words it was opened for
    assert rows() == before


def test_words_already_redacted_are_a_conflict_said_in_the_form(editor_client, lines):
    _leaked()
    editor_client.post(url(2, "redact"), {"reason": "a password", "seq": 4}, **HX)
    before = rows()
    response = editor_client.post(url(2, "redact"), {"reason": "again", "seq": 4}, **HX)
    html = response.content.decode()
    assert response.status_code == 409
    assert "already redacted" in html
    assert "Redact for good</button>" not in html  # nothing left to redact there
    assert rows() == before


def test_a_seq_of_another_line_is_refused_in_place(editor_client, lines):
    response = editor_client.post(url(2, "redact"), {"reason": "x", "seq": 1}, **HX)
    assert response.status_code == 422
    assert "Seq 1 is not a row of line #2 that carries words" in response.content.decode()


def test_the_form_for_words_already_gone_or_a_missing_line_is_404(editor_client, lines):
    editor_client.post(url(2, "redact"), {"reason": "a password", "seq": 2}, **HX)
    assert editor_client.get(url(2, "redact") + "?seq=2", **HX).status_code == 404
    assert editor_client.get(url(42, "redact"), **HX).status_code == 404


def test_a_retired_lines_words_can_be_redacted_from_its_history(editor_client, lines):
    services.retire(notebook="zelda", n=1, by="dad", why="wrong")
    response = editor_client.post(url(1, "redact"), {"reason": "private", "seq": 1}, **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "is retired" in html and "[redacted: private]" in html
    assert "roll after the second swing" not in html


def test_without_javascript_the_form_stands_in_the_whole_card(editor_client, lines):
    html = editor_client.get(url(2, "redact") + "?seq=2").content.decode()
    assert "<html" in html and 'class="line redacting' in html


def test_when_other_lines_said_the_same_words_the_whole_list_comes_back(editor_client, lines):
    _leaked()
    services.add(notebook="zelda", text=SECRET, source="seen", by="pippa", why="saw it again")  # line #4
    editor_client.get(url())  # the card read once: its lines are kept, as in a browser's open page
    response = editor_client.post(url(2, "redact"), {"reason": "a password", "seq": 4}, **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#lines-region" and response["HX-Reswap"] == "outerHTML"
    assert html.lstrip().startswith('<div id="lines-region"')
    assert SECRET not in html
    assert 'id="line-2"' in html and 'id="line-4"' in html
    assert html.count("[redacted: a password]") == 2
    assert "Redacted those words of line #2" in html


def test_a_lone_lines_redaction_swaps_only_that_line(editor_client, lines):
    _leaked()
    response = editor_client.post(url(2, "redact"), {"reason": "a password", "seq": 4}, **HX)
    assert "HX-Retarget" not in response
    assert response.content.decode().lstrip().startswith('<li id="line-2"')
