"""One cursor in every list (notebooks/agents/paging.py): the notebooks, the lines, a search, the rows, the sessions
and a session's rows page alike on the API, through MCP and in the CLI's --json: `after` a cursor (the `next` of the
page before), `limit` with one default and one maximum, `next` null when nothing is left; a plain position as
`after` (deprecated) still read; a garbled cursor or a limit past the maximum a 400 naming the field."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from notebooks.agents import paging
from notebooks.log import services
from notebooks.sessions import services as sessions
from tests.mcp_client import run_mcp_script

# Each list: its kind (the cursor's), the API's path, the MCP tool and its arguments, and what names an item.
# "{sid}" is the landed session's id.
LISTS = [
    ("notebooks", "/api/notebooks", {}, "notebooks", {}),
    ("lines", "/api/notebooks/zelda/lines", {}, "view", {"notebook": "zelda"}),
    ("lines", "/api/notebooks/zelda/lines", {"q": "first"}, "search", {"notebook": "zelda", "q": "first"}),
    ("rows", "/api/notebooks/zelda/rows", {}, "rows", {"notebook": "zelda"}),
    ("sessions", "/api/sessions", {}, "sessions", {}),
    ("session", "/api/sessions/{sid}", {}, "session", {"session": "{sid}"}),
]


def items(kind: str, body: dict) -> list:
    """What names each item of a page, in the page's order."""
    if kind == "notebooks":
        return [x["title"] for x in body["notebooks"]]
    if kind == "lines":
        return [x["n"] for x in body["lines"]]
    if kind == "rows":
        return [x["seq"] for x in body["rows"]]
    if kind == "sessions":
        return [x["id"] for x in body["sessions"]]
    return sorted(r["seq"] for r in [*body["change"], *body["drift"]])


def setup_lists() -> int:
    """zelda's three lines (tests/conftest.py) and, beside them, two notebooks, a landed session with a row of its
    own and three of drift, and an abandoned one; the landed session's id."""
    for title in ("axiom", "celeste"):
        services.create_notebook(title=title, by="test")
    sid = sessions.take(notebook="zelda", plan="a plan", by="pippa").id
    services.add(notebook="zelda", text="roll after the first swing", source="seen", by="pippa", why="saw")
    sessions.land(session=sid, summary="one line", by="pippa")
    other = sessions.take(notebook="axiom", plan="another", by="pippa").id
    sessions.abandon(session=other, why="done", by="pippa")
    return sid


def _walk(read, kind: str, limit: int = 1) -> tuple[list, list[dict]]:  # noqa: ANN001
    """Every page of a list, `limit` a page, following `next` from a first page without `after`."""
    pages, after, seen = [], None, []
    while True:
        body = read({} if after is None else {"after": after}, limit)
        pages.append(body)
        seen.extend(items(kind, body))
        assert body["after"] == after  # each page names the cursor it was read after; a first page null
        if body["next"] is None:
            assert body["more"] is False
            return seen, pages
        assert body["more"] is True and body["next"].startswith(paging.MARK)
        assert paging.decode(kind, body["next"]) is not None  # one convention: paging.py reads every list's cursor
        after = body["next"]
        assert len(pages) < 50


def _check_walk(kind: str, whole: dict, seen: list, pages: list[dict]) -> None:
    assert (whole["after"], whole["next"], whole["more"]) == (None, None, False)
    assert seen == items(kind, whole) and len(seen) >= 2, kind  # page by page, exactly the items of one big page
    assert len(pages) == len(seen), kind  # a page of one: the last item's page already says nothing is left


# ----- the API ------------------------------------------------------------------------------------------------------


@pytest.fixture
def lists(zelda, pippa):  # noqa: ANN001, ANN201
    sid = setup_lists()
    return [(kind, path.format(sid=sid), params) for kind, path, params, _, _ in LISTS]


def test_every_list_pages_to_the_end_with_one_cursor_on_the_api(lists, pippa):
    for kind, path, params in lists:

        def read(cursor: dict, limit: int, path: str = path, params: dict = params) -> dict:
            response = pippa.get(path, **params, **cursor, limit=str(limit))
            assert response.status_code == 200, (path, cursor, response.content[:300])
            return response.json()

        whole = read({}, paging.PAGE_MAX)
        seen, pages = _walk(read, kind)
        _check_walk(kind, whole, seen, pages)


def test_a_plain_position_as_after_is_still_read_on_the_api(lists, pippa):
    """Deprecated: the title, line number, seq or session id a harness sent before cursors."""
    for kind, path, params in lists:
        first = pippa.get(path, **params, limit="1").json()
        plain = items(kind, first)[0]
        by_cursor = pippa.get(path, **params, after=first["next"], limit="1").json()
        by_plain = pippa.get(path, **params, after=str(plain), limit="1").json()
        assert by_plain == by_cursor and by_plain["after"] == first["next"], (path, plain)


@pytest.mark.parametrize(
    "garbled",
    [
        *(
            "~",
            "~not base64!",
            "~e30",
            "~WzEsImxpbmVzIl0",
            "~WzIsImxpbmVzIiwxXQ",
            "x" * 300,
            "1.5",
            "-1",
            "~" + "A" * 199,
        ),
        paging.encode("notebooks", "a\x00"),  # PostgreSQL refuses to compare a NUL: a 400 before any query
        paging.encode("lines", 2**80),
        paging.encode("rows", True),
    ],
)
def test_a_garbled_cursor_is_a_400_naming_after_on_every_list(lists, pippa, garbled):
    for _kind, path, params in lists:
        if path == "/api/notebooks" and garbled in ("1.5", "-1"):
            continue  # a plain title (deprecated) may read so
        response = pippa.get(path, **params, after=garbled)
        assert response.status_code == 400, (path, garbled, response.content[:300])
        error = response.json()["error"]
        assert (error["code"], error["fields"]) == ("invalid", ["after"]), (path, garbled)
        assert error["message"].startswith("'after': ") and len(error["message"]) < 300


def test_a_cursor_of_another_list_or_a_cut_one_is_a_400(lists, pippa):
    rows_next = pippa.get("/api/notebooks/zelda/rows", limit="1").json()["next"]
    lines_next = pippa.get("/api/notebooks/zelda/lines", limit="1").json()["next"]
    response = pippa.get("/api/notebooks/zelda/lines", after=rows_next)
    assert response.status_code == 400 and "a cursor of rows, not of lines" in response.json()["error"]["message"]
    for cut in (lines_next[:-1], lines_next[:-2], lines_next[:-3], lines_next + "x"):
        response = pippa.get("/api/notebooks/zelda/lines", after=cut)
        assert response.status_code == 400 and response.json()["error"]["fields"] == ["after"], cut


def test_a_limit_past_the_maximum_is_refused_alike_on_every_list(lists, pippa):
    refusals = set()
    for _kind, path, params in lists:
        assert pippa.get(path, **params, limit=str(paging.PAGE_MAX)).status_code == 200, path
        for limit in (str(paging.PAGE_MAX + 1), "0"):
            response = pippa.get(path, **params, limit=limit)
            assert response.status_code == 400, (path, limit)
            error = response.json()["error"]
            assert error["fields"] == ["limit"]
            refusals.add((limit, error["message"]))
    assert len(refusals) == 2  # one refusal, word for word, on every list


def test_every_list_declares_the_same_cursor_and_limit_in_the_document(client):
    document = client.get("/api/openapi.json").json()
    for _kind, path, _params, _tool, _args in LISTS:
        operation = document["paths"][path.replace("{sid}", "{session}").replace("zelda", "{notebook}")]["get"]
        params = {p["name"]: p["schema"] for p in operation["parameters"]}
        assert (params["limit"]["default"], params["limit"]["maximum"]) == (paging.PAGE, paging.PAGE_MAX), path
        assert {"type": "string", "maxLength": paging.LONGEST} in params["after"]["anyOf"], path
        assert "cursor" in operation["description"], path
        answer = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].split("/")[-1]
        fields = document["components"]["schemas"][answer]["properties"]
        assert {"type": "string"} in fields["next"]["anyOf"] and {"type": "string"} in fields["after"]["anyOf"]


def test_without_a_limit_every_list_answers_one_page_of_the_default(zelda, pippa):
    """The lines and the rows answered every one without a limit; now a page, as every list: read on with next."""
    for k in range(paging.PAGE):
        services.add(notebook="zelda", text=f"line {k} of many", source="seen", by="pippa", why="many")
    for path, kind in (("/api/notebooks/zelda/lines", "lines"), ("/api/notebooks/zelda/rows", "rows")):
        first = pippa.get(path).json()
        assert len(items(kind, first)) == paging.PAGE and first["more"] is True, path
        rest = pippa.get(path, after=first["next"]).json()
        assert len(items(kind, rest)) == 3 and rest["next"] is None, path


# ----- MCP ----------------------------------------------------------------------------------------------------------

SETUP = """
services.create_notebook(title="zelda", by="test")
services.add(notebook="zelda", text="the bridge guard swings twice", source="seen", by="pippa", why="seen")
services.add(notebook="zelda", text="always attack first", source="guessed", by="pippa", why="a hunch")
from tests.agent_helpers import DAD
services.add(notebook="zelda", text="block first, then attack", source="dad", by=DAD, why="rule")
from tests.agents.test_cursors import setup_lists
setup_lists()
"""


@pytest.fixture(scope="module")
def mcp_calls(tmp_path_factory):  # noqa: ANN001, ANN201
    return run_mcp_script(tmp_path_factory, "mcp-cursors", SETUP, _mcp_calls)


async def _mcp_calls(client, call) -> dict:  # noqa: ANN001
    out: dict = {"lists": {}}
    out["inputs"] = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
    sid = (await call("sessions", limit=2))["sessions"][1]["id"]  # the landed one: the older of the two
    for kind, _path, _params, tool, arguments in LISTS:
        args = {k: sid if v == "{sid}" else v for k, v in arguments.items()}
        got: dict = {"whole": await call(tool, **args, limit=paging.PAGE_MAX), "pages": []}
        after = None
        while len(got["pages"]) < 50:
            page = await call(tool, **args, **({} if after is None else {"after": after}), limit=1)
            got["pages"].append(page)
            if not isinstance(page, dict) or page["next"] is None:
                break
            after = page["next"]
        first = got["pages"][0]
        plain = items(kind, first)[0]
        got["by_cursor"] = await call(tool, **args, after=first["next"], limit=1)
        got["by_plain"] = await call(tool, **args, after=plain, limit=1)
        got["garbled"] = await call(tool, **args, after="~not a cursor")
        got["cut"] = await call(tool, **args, after=first["next"][:-2])
        got["too_many"] = await call(tool, **args, limit=paging.PAGE_MAX + 1)
        got["none"] = await call(tool, **args, limit=0)
        out["lists"][tool] = (kind, got)
    rows_next = out["lists"]["rows"][1]["pages"][0]["next"]
    out["crossed"] = await call("view", notebook="zelda", after=rows_next)
    return out


def test_every_list_tool_pages_to_the_end_with_the_apis_cursor(mcp_calls):
    for tool, (kind, got) in mcp_calls["lists"].items():
        pages = got["pages"]
        assert all(isinstance(page, dict) for page in pages), (tool, pages[-1])
        seen = [item for page in pages for item in items(kind, page)]
        assert [page["after"] for page in pages] == [None] + [page["next"] for page in pages[:-1]], tool
        assert all(paging.decode(kind, page["next"]) for page in pages[:-1]), tool
        assert pages[-1]["next"] is None and pages[-1]["more"] is False, tool
        _check_walk(kind, got["whole"], seen, pages)


def test_a_plain_position_as_after_is_still_read_through_mcp(mcp_calls):
    for tool, (_kind, got) in mcp_calls["lists"].items():
        assert got["by_plain"] == got["by_cursor"], tool  # a number as a number, as the tools took it; a title


def test_a_bad_cursor_or_limit_is_the_same_refusal_through_mcp(mcp_calls):
    said = set()
    for tool, (_kind, got) in mcp_calls["lists"].items():
        for name, field in (("garbled", "after"), ("cut", "after"), ("too_many", "limit"), ("none", "limit")):
            kind, text, structured = got[name]
            assert kind == "error" and text.startswith(f"invalid (400): '{field}': "), (tool, name, text)
            assert structured["error"]["fields"] == [field], (tool, name)
            said.add((name, text))
    assert len({text for name, text in said if name == "too_many"}) == 1  # word for word on every tool
    kind, text, _ = mcp_calls["crossed"]
    assert kind == "error" and "a cursor of rows, not of lines" in text


def test_every_list_tool_takes_the_same_after_and_limit(mcp_calls):
    for tool, (_kind, _got) in mcp_calls["lists"].items():
        properties = mcp_calls["inputs"][tool]["properties"]
        limit = properties["limit"]
        assert (limit["default"], limit["maximum"], limit["minimum"]) == (paging.PAGE, paging.PAGE_MAX, 1), tool
        assert {"type": "string"} in properties["after"]["anyOf"], tool
        assert "cursor" in properties["after"]["description"], tool


# ----- the CLI's --json ---------------------------------------------------------------------------------------------


def _cli(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("notebook", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_clis_lists_page_with_the_apis_cursor(lists, pippa):
    import json

    for args, path, kind in ((("view", "zelda"), "/api/notebooks/zelda/lines", "lines"),
                             (("sessions",), "/api/sessions", "sessions")):  # fmt: skip
        first = json.loads(_cli(*args, "--json", "--limit", "1")[0])
        assert first == pippa.get(path, limit="1").json()  # the API's answer, word for word
        rest = json.loads(_cli(*args, "--json", "--after", first["next"], "--limit", str(paging.PAGE_MAX))[0])
        assert rest["next"] is None and rest["after"] == first["next"]
        assert items(kind, first) + items(kind, rest) == items(kind, pippa.get(path).json())
        out, err = _cli(*args, "--limit", "1")
        assert len(out.splitlines()) == 1 and err == f"(more: --after {first['next']})\n"
    with pytest.raises(CommandError, match="'--after': not a cursor"):
        _cli("view", "zelda", "--after", "~garbled")
    with pytest.raises(CommandError, match="'--limit': "):
        _cli("sessions", "--limit", str(paging.PAGE_MAX + 1))
