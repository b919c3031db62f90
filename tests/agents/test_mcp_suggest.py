"""The MCP tool `suggest`, through the SDK's stdio client against `manage.py notebook mcp` on a database of its own:
the API's answers (writes.suggest) and refusals, in the tool's words."""

from functools import partial

import pytest

from tests.mcp_client import run_mcp_script

SETUP = """
services.create_notebook(title="zelda", by="test")
for text in ("the big dinosaur swallows bombs", "King Dodongo: throw a bomb into his mouth", "buy milk"):
    services.add(notebook="zelda", text=text, source="seen", by="pippa", why="seen")
services.retire(notebook="zelda", n=3, by="pippa", why="not the game")
"""
REPEAT = {"notebook": "zelda", "lines": [1, 2], "kind": "repeat", "why": "one boss"}


@pytest.fixture(scope="module")
def calls(tmp_path_factory):  # noqa: ANN001, ANN201
    return run_mcp_script(tmp_path_factory, "mcp-suggest", SETUP, _calls, NOTEBOOK_PENDING_SUGGESTIONS="1")


async def _calls(client, call) -> dict:  # noqa: ANN001
    out: dict = {"tools": {tool.name: tool for tool in (await client.list_tools()).tools}}
    suggest = partial(call, "suggest")
    out["new"] = await suggest(**REPEAT, words="King Dodongo: throw a bomb into his mouth", idempotency_key="k1")
    out["replayed"] = await suggest(**REPEAT, words="King Dodongo: throw a bomb into his mouth", idempotency_key="k1")
    out["pending"] = await suggest(**{**REPEAT, "why": "again"})
    out["gone"] = await suggest(notebook="zelda", lines=[3], kind="stray", why="milk")
    out["bad_kind"] = await suggest(**{**REPEAT, "kind": "dupe"})
    out["string_lines"] = await suggest(**{**REPEAT, "lines": ["1", "2"]})
    out["too_many"] = await suggest(notebook="zelda", lines=[1, 2], kind="conflict", keep=1, why="which")
    return out


def test_the_tool_is_offered_with_its_arguments(calls):
    tool = calls["tools"]["suggest"]
    assert "Dad decides it" in tool.description and "too_many_suggestions" in tool.description
    schema = tool.input_schema
    assert set(schema["required"]) == {"notebook", "lines", "kind", "why"} and schema["additionalProperties"] is False
    assert {"words", "keep", "idempotency_key"} <= set(schema["properties"])


def test_a_suggestion_is_stored_and_a_retry_with_its_key_answers_it_again(calls):
    new = calls["new"]
    assert new["already"] is None and new["mark"] is None
    assert new["suggestion"]["lines"] == [1, 2] and new["suggestion"]["by"] == "pippa"
    assert new["suggestion"]["words"] == "King Dodongo: throw a bomb into his mouth"
    assert calls["replayed"] == new
    assert calls["pending"]["already"] == "pending" and calls["pending"]["suggestion"] == new["suggestion"]


def test_refusals_in_the_apis_codes(calls):
    kind, text, error = calls["gone"]
    assert kind == "error" and text.startswith("not_found (404): ") and error["error"]["lines"] == [3]
    assert calls["bad_kind"][1].startswith("invalid (400): 'kind'")
    assert calls["string_lines"][1].startswith("invalid (400): 'lines")
    kind, text, error = calls["too_many"]
    assert text.startswith("too_many_suggestions (429): ") and error["error"]["retry_after"] == 3600
