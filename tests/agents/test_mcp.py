"""An MCP round trip through the SDK's own stdio client, against `manage.py notebook mcp` on a database of its own.

The server runs in another process, so it gets a temporary SQLite file migrated here, never the test database.
"""

import json

import anyio
import pytest
from jsonschema import Draft202012Validator

from notebooks.log.files.rowformat import GAME_ONLY
from tests.databases import ROOT
from tests.mcp_client import mcp_session, scratch_database

WRITES_WORDS = {"add", "edit", "merge"}
SETUP = """
from notebooks.log.identity.roles import Actor
services.create_notebook(title="zelda", by="test")
services.create_notebook(title="metroid", by="test")
services.add(notebook="zelda", text="block first", source="dad", by=Actor("dad", editor=True), why="a rule")
services.create_notebook(title="celeste", by="test")
sessions.take(notebook="celeste", plan="climb", by="reflector")
"""
TOOLS = {"notebooks", "create", "view", "turn", "add", "edit", "retire", "merge", "history", "take", "checkpoint"}
TOOLS |= {"land", "withdraw", "abandon"}


@pytest.fixture(scope="module")
def database(tmp_path_factory):  # noqa: ANN001, ANN201
    return scratch_database(tmp_path_factory, "mcp", SETUP)


async def _session_calls(database_url: str) -> dict:
    env = {"DATABASE_URL": database_url, "NOTEBOOK_NEW_NOTEBOOKS": "2"}  # the third new notebook is refused
    out: dict = {}
    async with mcp_session(env) as (client, info):
        out["server"] = info
        listed = (await client.list_tools()).tools
        out["tools"] = {tool.name: tool.description for tool in listed}
        out["inputs"] = {tool.name: tool.input_schema for tool in listed}
        out["outputs"] = {tool.name: tool.output_schema for tool in listed}
        out["hints"] = {tool.name: tool.annotations for tool in listed}

        async def call(name: str, **arguments: object) -> object:
            result = await client.call_tool(name, arguments)
            text = result.content[0].text if result.content else ""
            if result.is_error:
                out.setdefault("refusals", {})[text] = result.structured_content
                return ("error", text)
            return result.structured_content if result.structured_content is not None else text

        out["claimed"] = await call("take", notebook="celeste", plan="climb higher")
        out["took"] = await call("take", notebook="zelda", plan="write what the bridge taught her")
        out["created_during"] = await call("create", title="metroid prime")
        out["added"] = await call("add", notebook="zelda", text="roll after the second swing", why="died twice")
        out["elsewhere"] = await call("add", notebook="Bridge guard", text="x", why="a heading, not a title")
        out["dads"] = await call("edit", notebook="zelda", n=1, to="attack first", why="disagree")
        out["edited"] = await call("edit", notebook="zelda", n=2, text="roll after his second swing", why="exact")
        out["stale"] = await call("edit", notebook="zelda", n=2, text="roll", why="again", expected=2)
        out["unknown"] = await call("add", notebook="zelda", text="x", why="y", sorce="guessed")
        out["string_n"] = await call("history", notebook="zelda", n="2")
        out["mixed"] = await call("edit", notebook="zelda", n="3", why=5, bogus=1)
        out["string_expected"] = await call("edit", notebook="zelda", n=2, text="x", why="y", expected="3")
        out["empty"] = await call("add", notebook="zelda", text="", why="y")
        out["too_long"] = await call("add", notebook="zelda", text="x" * 5000, why="y")
        out["as_dad"] = await call("add", notebook="zelda", text="x", why="y", source="dad")
        out["view"] = await call("view", notebook="zelda")
        out["turn"] = await call("turn", notebook="zelda")
        out["history"] = await call("history", notebook="zelda", n=2)
        out["checkpoint"] = await call("checkpoint", session=out["took"]["id"], note="two rows in")
        out["landed"] = await call("land", session=out["took"]["id"], summary="the guard's timing")
        out["retired"] = await call("retire", notebook="metroid", n=1, why="nothing there")
        out["created"] = await call("create", title="metroid prime")
        out["old_to"] = await call("edit", notebook="metroid prime", n=1, to="x", why="y")
        out["huge"] = await call("history", notebook="zelda", n=2**40)
        await call("add", notebook="zelda", text="roll late", why="died again")
        out["merged"] = await call("merge", notebook="zelda", numbers=[2, 3], text="roll late", why="one thing")
        out["merged_history"] = await call("history", notebook="zelda", n=4)
        out["page_one"] = await call("notebooks", limit=2)
        out["page_two"] = await call("notebooks", after=out["page_one"]["next"], limit=2)
        out["nul_after"] = await call("notebooks", after="a\x00")
        out["blank_after"] = await call("notebooks", after="", limit=2)
        out["looks_alike"] = await call("create", title="Metroid_Prime.")
        out["second_created"] = await call("create", title="samus")
        out["one_too_many"] = await call("create", title="samus returns")
    return out


@pytest.fixture(scope="module")
def calls(database):  # noqa: ANN001, ANN201
    return anyio.run(_session_calls, database)


def test_the_notebooks_page_with_the_apis_cursor(calls):
    one, two = calls["page_one"], calls["page_two"]
    assert [x["title"] for x in one["notebooks"]] == ["celeste", "metroid"] and one["more"] is True
    from notebooks.agents.paging import encode

    assert one["next"] == encode("notebooks", "metroid")
    assert [x["title"] for x in two["notebooks"]] == ["metroid prime", "zelda"] and two["more"] is False
    assert calls["blank_after"] == one | {"after": None}  # no cursor, as the API reads ?after=


def test_a_nul_in_the_notebooks_cursor_is_refused_in_the_projects_words(calls):
    kind, text = calls["nul_after"]
    assert kind == "error" and text.startswith("invalid (400): 'after': ") and "NUL" in text


def test_the_server_offers_the_tools(calls):
    assert TOOLS <= set(calls["tools"])


def test_each_tool_says_whether_it_only_reads_and_no_write_is_destructive(calls):
    reads = {"notebooks", "view", "turn", "line", "search", "rows", "sessions", "session", "history"}
    for name, hints in calls["hints"].items():
        assert hints.read_only_hint is (name in reads), name
        assert hints.destructive_hint is (None if name in reads else False), name  # append-only: nothing is lost
        assert hints.open_world_hint is False, name


def test_every_tool_that_writes_a_line_carries_the_game_only_rule(calls):
    for name in WRITES_WORDS:
        assert GAME_ONLY in calls["tools"][name], name
    for name, field in (("add", "text"), ("edit", "text"), ("merge", "text")):
        assert GAME_ONLY in calls["inputs"][name]["properties"][field]["description"], name


def test_the_tools_take_the_apis_limits_and_answer_its_models(calls):
    from notebooks.agents import schemas
    from notebooks.log.rules.checks import MAX_NUMBER, max_words

    assert calls["inputs"]["add"]["properties"]["text"]["maxLength"] == max_words()
    assert calls["inputs"]["history"]["properties"]["n"]["maximum"] == MAX_NUMBER
    for tool, model in (("notebooks", schemas.NotebookList), ("view", schemas.Lines), ("turn", schemas.Turn),
                        ("land", schemas.Landed), ("abandon", schemas.Abandoned)):  # fmt: skip
        assert set(calls["outputs"][tool]["properties"]) == set(model.model_fields), tool


def test_a_session_taken_through_mcp_lands_its_rows(calls):
    assert calls["took"]["base"] == 1
    added = calls["added"]
    assert {k: v for k, v in added.items() if k != "session"} == {"n": 2, "seq": 2, "similar": []}
    assert added["session"]["id"] == calls["took"]["id"] and added["session"]["state"] == "open"  # it says where
    assert calls["edited"]["n"] == 2
    assert calls["checkpoint"]["base"] == 1
    assert calls["landed"]["result"] == "landed" and calls["landed"]["rows"] == 2


def test_a_write_under_a_title_naming_no_notebook_is_a_404_through_mcp(calls):
    kind, text = calls["elsewhere"]
    assert kind == "error" and "not_found (404)" in text  # a title naming no notebook, before the session's rule


def test_dads_line_is_refused_to_the_agent_through_mcp(calls):
    kind, text = calls["dads"]
    assert kind == "error" and "forbidden (403)" in text


def test_reads_through_mcp_carry_seq_and_the_turn_header(calls):
    lines = calls["view"]["lines"]
    assert [(line["n"], line["seq"]) for line in lines] == [(1, 1), (2, 3)]
    assert calls["turn"]["text"].startswith("# Notebook 'zelda' as it stood at ")  # the API's Turn
    assert [e["text"] for e in calls["history"]["entries"]] == [
        "roll after the second swing",
        "roll after his second swing",
    ]


def test_an_unknown_line_is_a_tool_error_not_a_crash(calls):
    kind, text = calls["retired"]
    assert kind == "error" and "not_found (404)" in text
    assert json.dumps(calls["took"])  # structured results are plain JSON


def test_several_bad_arguments_are_each_named_in_the_projects_words(calls):
    kind, text = calls["mixed"]
    assert kind == "error" and text.startswith("invalid (400): 'n': Input should be a valid integer; ")
    assert "'why': Input should be a valid string" in text and "'bogus': unknown field (it takes " in text
    assert "the body" not in text


def test_bad_arguments_are_tool_errors(calls):
    assert calls["huge"] == ("error", "not_found (404): There is no line number 1099511627776.")  # as the API's


def test_a_lone_surrogate_is_refused_before_the_database():
    """The SDK's client cannot even send one; another client could. No database is reached: none is set up here."""
    from notebooks.agents.mcp_server import build
    from notebooks.log.identity.roles import Actor

    result = anyio.run(build(Actor("pippa")).call_tool, "view", {"notebook": "\ud800"})
    assert result.is_error and result.content[0].text.startswith("invalid (400): 'notebook': ")
    assert "lone surrogate" in result.content[0].text
    assert result.structured_content["error"]["fields"] == ["notebook"]


def test_a_merged_lines_history_through_mcp_names_the_lines_merged_into_it(calls):
    assert calls["merged"]["n"] == 4
    entries = calls["merged_history"]["entries"]
    assert entries[0]["merged_from"] == [2, 3] and entries[0]["source"] == "seen"
    assert [(e["op"], e["from_n"], e["text"]) for e in entries[1:]] == [
        ("retired_into", 2, "roll after his second swing"),
        ("retired_into", 3, "roll late"),
    ]


def _refused(calls, name: str, code_status: str) -> dict:  # noqa: ANN001
    kind, text = calls[name]
    assert kind == "error" and text.startswith(code_status + ": "), text
    error = calls["refusals"][text]["error"]
    assert f"{error['code']} (" in code_status and error["message"] in text
    return error


def test_an_unknown_argument_is_refused_in_the_projects_words(calls):
    error = _refused(calls, "unknown", "invalid (400)")
    assert error["fields"] == ["sorce"] and "'sorce': unknown field" in error["message"]
    assert all(schema["additionalProperties"] is False for schema in calls["inputs"].values())


def test_a_string_for_a_number_is_refused_never_coerced(calls):
    assert _refused(calls, "string_n", "invalid (400)")["fields"] == ["n"]
    assert _refused(calls, "string_expected", "invalid (400)")["fields"] == ["expected"]


def test_bad_words_are_refused_without_a_pydantic_dump(calls):
    for name in ("empty", "too_long"):
        error = _refused(calls, name, "invalid (400)")
        assert error["fields"] == ["text"] and error["message"].startswith("'text': ")
    for text in calls["refusals"]:
        assert "validation error" not in text and "pydantic" not in text, text


def test_a_refusals_fields_are_in_the_structured_content(calls):
    stale = _refused(calls, "stale", "conflict (409)")
    assert (stale["current"], stale["current_seq"]) == ("roll after his second swing", 3)
    claimed = _refused(calls, "claimed", "conflict (409)")
    assert claimed["holder"] == "reflector" and isinstance(claimed["session"], int)


def test_every_tools_answer_schema_admits_its_answers_and_every_refusal(calls):
    # A client that checks a refusal against the answer's schema (TypeScript SDK 1.x) must still see the refusal.
    answered = {"add": calls["added"], "edit": calls["edited"], "take": calls["took"], "land": calls["landed"]}
    for tool, schema in calls["outputs"].items():
        check = Draft202012Validator(schema)
        for error in calls["refusals"].values():
            assert not list(check.iter_errors(error)), (tool, error)
        if tool in answered:
            assert not list(check.iter_errors(answered[tool])), tool
            assert list(check.iter_errors({})), tool  # an answer missing its fields is still refused


def test_an_agent_is_offered_only_the_sources_it_may_write(calls):
    assert calls["inputs"]["add"]["properties"]["source"]["enum"] == ["seen", "guessed"]
    assert "may add only seen or guessed" in _refused(calls, "as_dad", "forbidden (403)")["message"]  # as the API


def test_each_argument_is_described_for_what_it_is(calls):
    line = calls["inputs"]["add"]["properties"]["text"]["description"]
    plan = calls["inputs"]["take"]["properties"]["plan"]["description"]
    summary = calls["inputs"]["land"]["properties"]["summary"]["description"]
    assert "plan" in plan and "summary" not in plan and "What the session changed" in summary
    assert line not in (plan, summary)
    for tool, schema in calls["inputs"].items():
        for name, prop in schema["properties"].items():
            assert prop.get("description"), (tool, name)


def test_the_server_states_the_projects_version(calls):
    import tomllib

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert (calls["server"].name, calls["server"].version) == ("notebooks", version)


def test_a_notebook_is_created_through_mcp_only_outside_a_session_elsewhere(calls):
    during = _refused(calls, "created_during", "conflict (409)")
    assert during["notebook"] == "zelda" and isinstance(during["session"], int)
    assert calls["created"] == {"title": "metroid prime", "head": 0, "session": None}
    assert _refused(calls, "old_to", "not_found (404)")  # the old name 'to' is still taken: the line is missing


def test_a_title_like_a_taken_one_is_refused_with_did_you_mean(calls):
    assert calls["looks_alike"][0] == "error" and calls["looks_alike"][1].startswith("title_looks_alike (409): ")
    assert "did you mean 'metroid prime'?" in calls["looks_alike"][1]
    assert calls["refusals"][calls["looks_alike"][1]]["error"]["existing"] == "metroid prime"


def test_past_the_limit_of_new_notebooks_the_refusal_says_when_to_retry(calls):
    assert calls["second_created"]["title"] == "samus"  # the refused look-alike counted nothing
    assert calls["one_too_many"][0] == "error" and calls["one_too_many"][1].startswith("too_many_notebooks (429): ")
    error = calls["refusals"][calls["one_too_many"][1]]["error"]
    assert error["limit"] == 2 and 1 <= error["retry_after"] <= 601


def test_a_stdio_editor_who_loses_the_role_is_refused_at_his_next_call(dad, monkeypatch):
    from notebooks.agents import mcp_server
    from notebooks.log import services
    from notebooks.log.identity.roles import Actor
    from notebooks.models import Row

    monkeypatch.setattr(mcp_server, "close_old_connections", lambda: None)
    monkeypatch.setattr(mcp_server.connections, "close_all", lambda: None)
    services.create_notebook(title="zelda", by="test")
    server = mcp_server.build(Actor("dad", editor=True))
    add = server._tool_manager.get_tool("add").fn
    assert add(notebook="zelda", text="block first", source="dad", why="a rule").n == 1
    dad.groups.clear()
    refused = add(notebook="zelda", text="block second", source="dad", why="a rule")
    assert refused.is_error and refused.structured_content["error"]["code"] == "forbidden"
    assert "dad no longer holds the human editor's role" in refused.content[0].text
    assert Row.objects.filter(notebook__title="zelda").count() == 1
