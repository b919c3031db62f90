"""History of a line, inline: every text it has had, by whom, when and why, retirements and adopted rows too."""

import json

from notebooks.log import services
from notebooks.log.files import imports
from tests.card_helpers import HX, url


def test_it_shows_every_text_the_line_has_had_inline(editor_client, lines):
    services.edit(notebook="zelda", n=2, to="block first", by="dad", why="attacking first got her killed")
    services.retire(notebook="zelda", n=2, by="dad", why="said by #1", into=1)
    response = editor_client.get(url(2, "history"), **HX)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section class="history"')
    expected = ("always attack first", "block first", "attacking first got her killed", "now said by #1", "said by #1")
    for text in expected:
        assert text in html
    assert html.index("always attack first") < html.index("block first") < html.index("retired")
    # The edit also shows what it changed from the words before it.
    assert "<del>always attack</del><ins>block</ins> first" in html


def test_it_shows_history_in_the_whole_card_without_javascript(editor_client, lines):
    response = editor_client.get(url(1, "history"))
    html = response.content.decode()
    assert response.status_code == 200 and "<html" in html
    assert "History of line #1" in html


def test_a_retired_lines_history_stands_above_the_list_without_javascript(editor_client, lines):
    services.retire(notebook="zelda", n=2, by="dad", why="not about the game")
    html = editor_client.get(url(2, "history")).content.decode()
    assert 'class="lines panel"' in html and "History of line #2" in html and "always attack first" in html


def test_it_shows_adopted_rows(editor_client, dad):
    rewrite = [json.dumps({"op": "add", "n": 1, "text": "new words", "source": "seen", "at": 10.0})]
    backup = [json.dumps({"op": "add", "n": 1, "text": "the old words", "source": "seen", "at": 5.0, "by": "pippa"})]
    imports.import_notebook(title="zelda", lines=rewrite, by="importer", adopt_from=backup)
    html = editor_client.get(url(1, "history"), **HX).content.decode()
    assert "recovered words" in html and "the old words" in html and "recovered by importer" in html
    assert ">adopted" not in html  # the log's term only in the tooltip


def test_it_answers_404_for_a_line_without_rows(editor_client, lines):
    assert editor_client.get(url(42, "history"), **HX).status_code == 404
