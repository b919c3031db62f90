"""The audit: every row across notebooks, newest first, filtered by notebook, actor, op and time, paginated."""

import re
import time
from datetime import UTC, datetime

from notebooks.log import services


def _ops(html: str) -> list[str]:
    return re.findall(r'<tr class="op-(\w+)">', html)


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")


def test_it_lists_every_row_newest_first(editor_client, lines):
    services.create_notebook(title="tetris", by="test")
    services.add(notebook="tetris", text="rotate early", source="seen", by="pippa", why="seen")
    services.retire(notebook="zelda", n=2, by="dad", why="not about the game")
    html = editor_client.get("/audit/").content.decode()
    assert _ops(html) == ["strike", "add", "add", "add", "add"]
    assert html.index("not about the game") < html.index("rotate early") < html.index("write only what the game")
    assert "5 changes" in html


def test_it_filters_by_notebook_actor_and_op(editor_client, lines):
    services.create_notebook(title="tetris", by="test")
    services.add(notebook="tetris", text="rotate early", source="seen", by="pippa", why="seen")
    services.edit(notebook="zelda", n=1, to="roll twice", by="dad", why="clearer")
    assert _ops(editor_client.get("/audit/", {"notebook": "tetris"}).content.decode()) == ["add"]
    assert _ops(editor_client.get("/audit/", {"by": "dad"}).content.decode()) == ["edit", "add"]
    assert _ops(editor_client.get("/audit/", {"op": "edit"}).content.decode()) == ["edit"]


def test_it_filters_by_time(editor_client, lines):
    cut = time.time()
    time.sleep(0.01)
    services.edit(notebook="zelda", n=1, to="roll twice", by="dad", why="clearer")
    after_edit = time.time() + 2  # the filter is to the second: stay past the edit once truncated
    later = _ops(editor_client.get("/audit/", {"since": _iso(after_edit)}).content.decode())
    assert later == []
    earlier = _ops(editor_client.get("/audit/", {"until": _iso(cut - 60)}).content.decode())
    assert earlier == []
    around = _ops(editor_client.get("/audit/", {"since": _iso(cut - 60)}).content.decode())
    assert around == ["edit", "add", "add", "add"]


def test_it_pages_the_rows(editor_client, notebook, dad):
    for i in range(55):
        services.add(notebook="zelda", text=f"line {i}", source="seen", by="pippa", why="seen")
    first = editor_client.get("/audit/").content.decode()
    assert len(_ops(first)) == 50 and "page 1 of 2" in first
    assert "line 54" in first and "line 4<" not in first
    assert 'href="?page=2"' in first and ">Older<" in first
    second = editor_client.get("/audit/", {"page": 2}).content.decode()
    assert len(_ops(second)) == 5 and "line 4<" in second and ">Newer<" in second


def test_an_unknown_filter_value_is_said_not_a_500(editor_client, lines):
    response = editor_client.get("/audit/", {"op": "drop", "page": "x"})
    assert response.status_code == 200
    assert "Select a valid choice." in response.content.decode()


def test_markup_in_a_row_is_text(editor_client, notebook, dad):
    services.add(notebook="zelda", text="<script>alert(1)</script>", source="seen", by="pippa", why="<i>x</i>")
    html = editor_client.get("/audit/").content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;i&gt;x&lt;/i&gt;" in html


def test_one_notebooks_rows_are_newest_first_and_paged_as_the_whole_log_is(editor_client, notebook, dad):
    services.create_notebook(title="tetris", by="test")
    for i in range(53):
        services.add(notebook="zelda", text=f"zelda {i}", source="seen", by="pippa", why="seen")
        services.add(notebook="tetris", text=f"tetris {i}", source="seen", by="pippa", why="seen")
    first = editor_client.get("/audit/", {"notebook": "zelda"}).content.decode()
    assert re.findall(r"zelda (\d+)<", first) == [str(i) for i in range(52, 2, -1)]
    assert re.findall(r"tetris \d+<", first) == []
    second = editor_client.get("/audit/", {"notebook": "zelda", "page": 2}).content.decode()
    assert re.findall(r"zelda (\d+)<", second) == ["2", "1", "0"]
