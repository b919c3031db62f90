"""Move to notebook… on the card: a notebook picker and a Reason in the line's place; the line leaves with a notice
naming where it went (htmx fragment and out-of-band counts, or a redirect without JavaScript); both histories and the
audit show it; the command line and the API's history say the same."""

import pytest

from notebooks.log import services
from notebooks.log.views import selectors
from tests.card_helpers import HX, rows, url
from tests.cli.test_cli import notebook as cli
from tests.cli.test_cli import refused


@pytest.fixture
def stray(lines):  # noqa: ANN001, ANN201
    services.create_notebook(title="zelda heading", by="pippa")
    services.add(notebook="zelda heading", text="the owl statue saves", source="seen", by="pippa", why="seen")
    return lines


def test_a_line_offers_move_to_notebook(editor_client, stray):
    html = editor_client.get(url(title="zelda")).content.decode()
    assert 'href="/notebooks/zelda/lines/1/move/"' in html and ">Move…</a>" in html


def test_the_move_form_opens_inline_with_the_other_notebooks_and_a_reason(editor_client, stray):
    response = editor_client.get(url(1, "move", title="zelda heading"), **HX)
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<li id="line-1"')
    assert '<option value="zelda">zelda</option>' in html
    assert '<option value="zelda heading">' not in html  # not its own notebook
    assert '<label for="move-1-reason">Reason</label>' in html and ">Move</button>" in html


def test_it_moves_the_line_and_leaves_a_notice_naming_where_it_went(editor_client, stray):
    response = editor_client.post(
        url(1, "move", title="zelda heading"), {"to": "zelda", "reason": "a wrong title", "expected": 1}, **HX
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert 'class="line retired-notice"' in html
    assert 'was moved to <a href="/notebooks/zelda/lines/4/">zelda #4</a>' in html
    assert "Moved line #1 to zelda as line #4." in html  # the polite word, out of band
    assert 'hx-swap-oob="true"' in html
    moved = selectors.live_line(stray, 4)
    assert (moved.text, moved.source, moved.by) == ("the owl statue saves", "seen", "dad")


def test_it_moves_and_redirects_without_javascript(editor_client, stray):
    response = editor_client.post(
        url(1, "move", title="zelda heading"), {"to": "zelda", "reason": "a wrong title", "expected": 1}
    )
    assert response.status_code == 302 and response["Location"] == "/notebooks/zelda%20heading/?retired=1"
    page = editor_client.get(response["Location"]).content.decode()
    assert "was moved to" in page and "Moved line #1 to zelda as line #4." in page


def test_both_histories_on_the_card_show_the_move(editor_client, stray):
    editor_client.post(url(1, "move", title="zelda heading"), {"to": "zelda", "reason": "stray", "expected": 1})
    gone = editor_client.get(url(1, "history", title="zelda heading"), **HX).content.decode()
    assert 'moved to <a href="/notebooks/zelda/lines/4/history/">zelda #4</a>' in gone
    came = editor_client.get(url(4, "history"), **HX).content.decode()
    assert 'moved from <a href="/notebooks/zelda%20heading/lines/1/history/">zelda heading #1</a>' in came
    assert "(written by pippa · " in came


def test_the_audit_names_both_ends_of_a_move(editor_client, stray):
    editor_client.post(url(1, "move", title="zelda heading"), {"to": "zelda", "reason": "stray", "expected": 1})
    html = editor_client.get("/audit/").content.decode()
    assert "moved to another notebook" in html
    assert '→ <a href="/notebooks/zelda/lines/4/history/">zelda #4</a>' in html
    assert 'from <a href="/notebooks/zelda%20heading/lines/1/history/">zelda heading #1</a>' in html


@pytest.mark.parametrize(
    "data, message",
    [
        ({"to": "zelda", "reason": ""}, "A reason is required"),
        ({"to": "", "reason": "stray"}, "Choose the notebook"),
        ({"to": "zelda heading", "reason": "stray"}, "There is no other notebook of that title"),
        ({"to": "nowhere", "reason": "stray"}, "There is no other notebook of that title"),
    ],
)
def test_it_refuses_a_move_without_a_reason_or_another_notebook(editor_client, stray, data, message):
    before = rows()
    response = editor_client.post(url(1, "move", title="zelda heading"), {**data, "expected": 1}, **HX)
    assert response.status_code == 422 and message in response.content.decode()
    assert rows() == before


def test_a_stale_move_shows_the_line_as_it_is_and_asks_again(editor_client, stray):
    services.edit(notebook="zelda heading", n=1, to="the owl statue saves the game", by="dad", why="clearer")
    response = editor_client.post(
        url(1, "move", title="zelda heading"), {"to": "zelda", "reason": "stray", "expected": 1}, **HX
    )
    html = response.content.decode()
    assert response.status_code == 409 and "Move again to confirm" in html
    assert "the owl statue saves the game" in html and 'value="zelda" selected' in html
    again = editor_client.post(
        url(1, "move", title="zelda heading"), {"to": "zelda", "reason": "stray", "expected": 2}, **HX
    )
    assert again.status_code == 200 and selectors.live_line(stray, 4).text == "the owl statue saves the game"


def test_a_reader_without_the_editor_role_may_not_move(client, agent_user, stray):
    client.force_login(agent_user)
    before = rows()
    response = client.post(url(1, "move", title="zelda heading"), {"to": "zelda", "reason": "x", "expected": 1})
    assert response.status_code == 403 and rows() == before


def test_the_cli_moves_a_line_and_its_history_shows_both_ends(stray):
    out, _ = cli("move", "zelda heading", "1", "--to", "zelda", "--why", "a wrong title")
    assert (
        out.strip()
        == "moved line #1 of 'zelda heading' to 'zelda' as line #4 (seq 2 in 'zelda heading', seq 4 in 'zelda')"
    )
    gone, _ = cli("history", "zelda heading", "1")
    assert "strike  by dad: moved to zelda #4  (why: a wrong title)" in gone
    came, _ = cli("history", "zelda", "4")
    assert "add     by dad: (moved from zelda heading #1, written by pippa " in came
    assert "[seen] the owl statue saves" in came


def test_the_cli_refuses_an_agents_move_with_the_forbidden_code(stray):
    error = refused("move", "zelda heading", "1", "--to", "zelda", "--why", "x", "--by", "pippa")
    assert error.returncode == 3 and "only the human editor" in str(error)


def test_the_apis_history_names_both_ends_of_a_move(pippa, stray):
    cli("move", "zelda heading", "1", "--to", "zelda", "--why", "stray")
    came = pippa.get("/api/notebooks/zelda/lines/4/history").json()["entries"][0]
    assert (came["moved_from"], came["was_by"], came["source"]) == (
        {"notebook": "zelda heading", "n": 1},
        "pippa",
        "seen",
    )
    gone = pippa.get("/api/notebooks/zelda heading/lines/1/history").json()["entries"][-1]
    assert (gone["how"], gone["moved_to"]) == ("moved", {"notebook": "zelda", "n": 4})


def test_show_retired_says_where_a_moved_line_went(editor_client, stray):
    editor_client.post(url(1, "move", title="zelda heading"), {"to": "zelda", "reason": "stray", "expected": 1})
    html = editor_client.get(url(title="zelda heading") + "?show=retired").content.decode()
    assert 'Moved to <a href="/notebooks/zelda/lines/4/">zelda #4</a>' in html


def test_a_moved_lines_notice_and_show_retired_offer_no_restore(editor_client, stray):
    response = editor_client.post(
        url(1, "move", title="zelda heading"), {"to": "zelda", "reason": "stray", "expected": 1}, **HX
    )
    assert "was moved to" in response.content.decode() and "Restore…" not in response.content.decode()
    html = editor_client.get(url(title="zelda heading") + "?show=retired").content.decode()
    assert "Moved to" in html and ">Restore</button>" not in html
    services.retire(notebook="zelda", n=2, by="dad", why="wrong")  # a plain retirement still offers it
    assert ">Restore</button>" in editor_client.get(url(title="zelda") + "?show=retired").content.decode()


# ----- Move selected, on the selection bar ---------------------------------------------------------------------


def test_the_selection_bar_offers_move_selected_with_the_other_notebooks(editor_client, stray):
    html = editor_client.get(url(title="zelda heading")).content.decode()
    assert 'name="action" value="move">Move selected…</button>' in html
    assert '<option value="zelda">zelda</option>' in html and '<option value="zelda heading">' not in html


def test_move_selected_moves_the_ticked_lines_and_leaves_a_notice_in_each_place(editor_client, stray):
    data = {"n": ["3", "1"], "to": "zelda heading", "reason": "another game", "action": "move"}
    response = editor_client.post(url(action="selected"), data, **HX)
    html = response.content.decode()
    assert response.status_code == 200 and response["HX-Retarget"] == "#line-3"
    assert "Moved #3, #1 to zelda heading as #2, #3." in html
    assert 'was moved to <a href="/notebooks/zelda%20heading/lines/2/">zelda heading #2</a>' in html
    assert '<li id="line-1" class="line retired-notice" data-n="1" hx-swap-oob="true">' in html
    heading = selectors.get_notebook("zelda heading")
    assert [(x.n, x.source) for x in selectors.view(heading)] == [(1, "seen"), (2, "dad"), (3, "seen")]
    assert [x.n for x in selectors.view(stray)] == [2]


def test_move_selected_works_without_javascript(editor_client, stray):
    data = {"n": ["1"], "to": "zelda heading", "reason": "another game", "action": "move"}
    response = editor_client.post(url(action="selected"), data)
    assert response.status_code == 302 and response["Location"] == "/notebooks/zelda/"
    assert selectors.live_line(selectors.get_notebook("zelda heading"), 2).text == "roll after the second swing"


def test_move_selected_needs_a_notebook_and_writes_nothing_when_one_line_cannot_move(editor_client, stray):
    before = rows()
    none = editor_client.post(url(action="selected"), {"n": ["1"], "reason": "r", "action": "move"}, **HX)
    assert none.status_code == 422 and "Choose the notebook to move the lines to." in none.content.decode()
    assert "open-move" in none.content.decode()  # the bar opens on the move, where the refusal is
    services.retire(notebook="zelda", n=2, by="dad", why="gone")
    data = {"n": ["1", "2"], "to": "zelda heading", "reason": "r", "action": "move"}
    stale = editor_client.post(url(action="selected"), data, **HX)
    assert stale.status_code == 409 and "Nothing was changed." in stale.content.decode()
    assert rows() == before + 1  # the retirement only


def test_a_move_of_a_line_retired_meanwhile_is_refused_with_the_reason_kept(editor_client, stray):
    services.retire(notebook="zelda heading", n=1, by="dad", why="wrong")
    before = rows()
    response = editor_client.post(
        url(1, "move", title="zelda heading"), {"to": "zelda", "reason": "a wrong title", "expected": 1}, **HX
    )
    html = response.content.decode()
    assert response.status_code == 409
    assert "already retired" in html
    assert 'value="a wrong title"' in html  # his reason, kept to read
    assert rows() == before
