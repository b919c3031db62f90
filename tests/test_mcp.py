"""An MCP round trip through the SDK's own stdio client, against `manage.py notebook mcp` on a database of its own.

The server runs in another process, so it gets a temporary SQLite file migrated here, never the test database.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from notebooks.log.rowformat import GAME_ONLY

ROOT = Path(__file__).resolve().parent.parent
WRITES_WORDS = {"add", "edit", "merge"}
# One process migrates and fills the database: each Django start costs seconds on a busy machine.
SETUP = """
import os, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notebook_site.settings")
django.setup()
from django.core.management import call_command
from notebooks.log import services
from notebooks.log.roles import Actor
call_command("migrate", "--no-input", verbosity=0)
services.create_notebook(title="zelda", by="test")
services.create_notebook(title="metroid", by="test")
services.add(notebook="zelda", text="block first", source="dad", by=Actor("dad", editor=True), why="a rule")
"""
TOOLS = {"view", "turn", "add", "edit", "retire", "history", "take", "checkpoint", "land"}


@pytest.fixture(scope="module")
def database(tmp_path_factory):  # noqa: ANN001, ANN201
    path = tmp_path_factory.mktemp("mcp") / "notebooks.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{path}"}

    subprocess.run([sys.executable, "-c", SETUP], cwd=ROOT, env=env, check=True, capture_output=True)
    return env["DATABASE_URL"]


async def _session_calls(database_url: str) -> dict:
    server = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "notebook", "mcp", "--actor", "pippa"],
        env={"DATABASE_URL": database_url},
        cwd=str(ROOT),
    )
    out: dict = {}
    with open(os.devnull, "w") as quiet:  # the server's system-check warnings go to stderr
        async with stdio_client(server, errlog=quiet) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            listed = (await client.list_tools()).tools
            out["tools"] = {tool.name: tool.description for tool in listed}
            out["inputs"] = {tool.name: tool.input_schema for tool in listed}
            out["outputs"] = {tool.name: tool.output_schema for tool in listed}

            async def call(name: str, **arguments: object) -> object:
                result = await client.call_tool(name, arguments)
                text = result.content[0].text if result.content else ""
                if result.is_error:
                    return ("error", text)
                return result.structured_content if result.structured_content is not None else text

            out["took"] = await call("take", notebook="zelda", plan="write what the bridge taught her")
            out["added"] = await call("add", notebook="zelda", text="roll after the second swing", why="died twice")
            out["elsewhere"] = await call("add", notebook="Bridge guard", text="x", why="a heading, not a title")
            out["dads"] = await call("edit", notebook="zelda", n=1, to="attack first", why="disagree")
            out["edited"] = await call("edit", notebook="zelda", n=2, to="roll after his second swing", why="exact")
            out["view"] = await call("view", notebook="zelda")
            out["turn"] = await call("turn", notebook="zelda")
            out["history"] = await call("history", notebook="zelda", n=2)
            out["checkpoint"] = await call("checkpoint", session=out["took"]["id"], note="two rows in")
            out["landed"] = await call("land", session=out["took"]["id"], summary="the guard's timing")
            out["retired"] = await call("retire", notebook="metroid", n=1, why="nothing there")
            out["huge"] = await call("history", notebook="zelda", n=2**40)
            await call("add", notebook="zelda", text="roll late", why="died again")
            out["merged"] = await call("merge", notebook="zelda", numbers=[2, 3], text="roll late", why="one thing")
            out["merged_history"] = await call("history", notebook="zelda", n=4)
    return out


@pytest.fixture(scope="module")
def calls(database):  # noqa: ANN001, ANN201
    return anyio.run(_session_calls, database)


def test_the_server_offers_the_tools(calls):
    assert TOOLS <= set(calls["tools"])


def test_every_tool_that_writes_a_line_carries_the_game_only_rule(calls):
    for name in WRITES_WORDS:
        assert GAME_ONLY in calls["tools"][name], name
    for name, field in (("add", "text"), ("edit", "to"), ("merge", "text")):
        assert GAME_ONLY in calls["inputs"][name]["properties"][field]["description"], name


def test_the_tools_take_the_apis_limits_and_answer_its_models(calls):
    from notebooks.agents import schemas
    from notebooks.log.checks import MAX_NUMBER, max_words

    assert calls["inputs"]["add"]["properties"]["text"]["maxLength"] == max_words()
    assert calls["inputs"]["history"]["properties"]["n"]["maximum"] == MAX_NUMBER
    for tool, model in (("notebooks", schemas.NotebookList), ("view", schemas.Lines), ("turn", schemas.Turn),
                        ("land", schemas.Landed), ("abandon", schemas.Abandoned)):  # fmt: skip
        assert set(calls["outputs"][tool]["properties"]) == set(model.model_fields), tool


def test_a_session_taken_through_mcp_lands_its_rows(calls):
    assert calls["took"]["base"] == 1
    assert calls["added"] == {"n": 2, "seq": 2, "similar": []}
    assert calls["edited"]["n"] == 2
    assert calls["checkpoint"]["base"] == 1
    assert calls["landed"]["result"] == "landed" and calls["landed"]["rows"] == 2


def test_a_write_under_another_title_is_refused_through_mcp(calls):
    kind, text = calls["elsewhere"]
    assert kind == "error" and "conflict (409)" in text


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


def test_bad_arguments_are_tool_errors(calls):
    assert calls["huge"][0] == "error" and "less than or equal" in calls["huge"][1]


def test_a_lone_surrogate_is_refused_before_the_database():
    """The SDK's client cannot even send one; another client could."""
    from mcp.server.mcpserver.exceptions import ToolError

    from notebooks.agents.mcp_server import check_text_arguments

    check_text_arguments({"notebook": "zelda", "n": 2})
    with pytest.raises(ToolError, match="lone surrogate"):
        check_text_arguments({"notebook": "\ud800"})


def test_a_merged_lines_history_through_mcp_names_the_lines_merged_into_it(calls):
    assert calls["merged"]["n"] == 4
    entries = calls["merged_history"]["entries"]
    assert entries[0]["merged_from"] == [2, 3] and entries[0]["source"] == "seen"
    assert [(e["op"], e["from_n"], e["text"]) for e in entries[1:]] == [
        ("retired_into", 2, "roll after his second swing"),
        ("retired_into", 3, "roll late"),
    ]
