"""One contract on both sides: the SDK's MCP client (over stdio) and the JSON API read the same notebook, in the same
scratch database, and get the same lines, the same history, the same turn and the same refusal codes."""

import json
import re

import anyio
import pytest

from tests.databases import Scratch, Templates
from tests.mcp_client import mcp_session

SETUP = """
import django
django.setup()
from notebooks.agents import tokens
from notebooks.log import services
from notebooks.log.identity.roles import Actor
services.create_notebook(title="zelda", by="test")
services.add(notebook="zelda", text="block first", source="dad", by=Actor("dad", editor=True), why="a rule")
services.add(notebook="zelda", text="roll after the swing", source="seen", by="pippa", why="died")
services.edit(notebook="zelda", n=2, to="roll after his second swing", by="pippa", why="exact")
print(tokens.issue(actor="pippa").secret)
"""
API = """
import json, os, sys, django
django.setup()
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()
client = Client(HTTP_AUTHORIZATION="Bearer " + os.environ["TOKEN"])
out = {}
for name, method, path, body in json.loads(sys.argv[1]):
    if method == "get":
        answer = client.get(path)
    else:
        answer = client.post(path, json.dumps(body), content_type="application/json")
    out[name] = answer.json()
print(json.dumps(out))
"""
# The same question asked of both: (name, MCP tool and arguments, API method, path and body).
ASKED = [
    ("notebooks", "notebooks", {}, "get", "/api/notebooks", None),
    ("lines", "view", {"notebook": "zelda"}, "get", "/api/notebooks/zelda/lines", None),
    ("history", "history", {"notebook": "zelda", "n": 2}, "get", "/api/notebooks/zelda/lines/2/history", None),
    ("turn", "turn", {"notebook": "zelda"}, "get", "/api/notebooks/zelda/turn", None),
    ("no notebook", "view", {"notebook": "zeldo"}, "get", "/api/notebooks/zeldo/lines", None),
    ("no line", "history", {"notebook": "zelda", "n": 99}, "get", "/api/notebooks/zelda/lines/99/history", None),
    ("no time", "view", {"notebook": "zelda", "until": "soon"}, "get", "/api/notebooks/zelda/lines?until=soon", None),
    ("a title none could have", "turn", {"notebook": "-bad"}, "get", "/api/notebooks/-bad/turn", None),
    ("line past any", "line", {"notebook": "zelda", "n": 2**31}, "get", f"/api/notebooks/zelda/lines/{2**31}", None),
    ("line 0", "history", {"notebook": "zelda", "n": 0}, "get", "/api/notebooks/zelda/lines/0/history", None),
    ("session 0", "session", {"session": 0}, "get", "/api/sessions/0", None),
    ("line -1", "history", {"notebook": "zelda", "n": -1}, "get", "/api/notebooks/zelda/lines/-1/history", None),
    ("session -1", "session", {"session": -1}, "get", "/api/sessions/-1", None),
    (
        "a take's empty title",
        "take",
        {"notebook": "", "plan": "p"},
        "post",
        "/api/sessions",
        {"notebook": "", "plan": "p"},
    ),
    (
        "a take's bad title",
        "take",
        {"notebook": "-bad", "plan": "p"},
        "post",
        "/api/sessions",
        {"notebook": "-bad", "plan": "p"},
    ),
    (
        "dads line",
        "edit",
        {"notebook": "zelda", "n": 1, "to": "attack", "why": "no"},
        "post",
        "/api/notebooks/zelda/lines/1/edit",
        {"to": "attack", "why": "no"},
    ),
    (
        "stale",
        "edit",
        {"notebook": "zelda", "n": 2, "to": "parry", "why": "again", "expected": 2},
        "post",
        "/api/notebooks/zelda/lines/2/edit",
        {"to": "parry", "why": "again", "expected": 2},
    ),
    (
        "a dad line",
        "add",
        {"notebook": "zelda", "text": "rest", "why": "hint", "source": "dad"},
        "post",
        "/api/notebooks/zelda/lines",
        {"text": "rest", "why": "hint", "source": "dad"},
    ),
    (
        "unknown field",
        "add",
        {"notebook": "zelda", "text": "rest", "why": "hint", "sorce": "guessed"},
        "post",
        "/api/notebooks/zelda/lines",
        {"text": "rest", "why": "hint", "source": "seen", "sorce": "guessed"},
    ),
    (
        "string for a number",
        "edit",
        {"notebook": "zelda", "n": 2, "text": "parry", "why": "again", "expected": "3"},
        "post",
        "/api/notebooks/zelda/lines/2/edit",
        {"text": "parry", "why": "again", "expected": "3"},
    ),
]


async def _ask_mcp(env: dict[str, str]) -> dict:
    out: dict = {}
    async with mcp_session(env) as (client, _info):
        for name, tool, arguments, *_ in ASKED:
            result = await client.call_tool(tool, arguments)
            if result.is_error:
                code = re.search(r"(\w+) \((\d{3})\): ", result.content[0].text)
                out[name] = {"error": {"code": code.group(1) if code else result.content[0].text}}
            else:
                out[name] = result.structured_content
    return out


@pytest.fixture(scope="module")
def both(tmp_path_factory):  # noqa: ANN001, ANN201
    templates = Templates(tmp_path_factory.mktemp("parity"))
    try:
        db: Scratch = templates.new()
        token = db.run("-c", SETUP).stdout.strip().splitlines()[-1]
        asked = json.dumps([[name, method, path, body] for name, _, _, method, path, body in ASKED])
        api = json.loads(db.run("-c", API, asked, env=db.env(TOKEN=token)).stdout)
        mcp = anyio.run(_ask_mcp, db.env())
        yield api, mcp
    finally:
        templates.cleanup()


def test_the_same_lines_history_turn_and_list_on_both_sides(both):
    api, mcp = both
    for name in ("notebooks", "lines", "history", "turn"):
        assert mcp[name] == api[name], name
    assert [line["text"] for line in api["lines"]["lines"]] == ["block first", "roll after his second swing"]
    assert [e["text"] for e in api["history"]["entries"]] == ["roll after the swing", "roll after his second swing"]
    assert api["notebooks"]["notebooks"][0]["session"] is None  # the claiming session: one name on both sides


def test_the_same_refusal_codes_on_both_sides(both):
    api, mcp = both
    codes = {name: api[name]["error"]["code"] for name, *_ in ASKED if "error" in api[name]}
    assert codes == {
        "no notebook": "not_found",
        "no line": "not_found",
        "no time": "invalid",
        "a title none could have": "not_found",
        "line past any": "not_found",
        "line 0": "not_found",
        "session 0": "not_found",
        "a take's bad title": "not_found",
        "line -1": "invalid",  # no digits write it: a wrong value, not a path naming nothing
        "session -1": "invalid",
        "a take's empty title": "invalid",
        "dads line": "forbidden",
        "stale": "conflict",
        "a dad line": "forbidden",
        "unknown field": "invalid",
        "string for a number": "invalid",
    }
    assert {name: mcp[name]["error"]["code"] for name in codes} == codes


# Each MCP tool and the API operation it is: (method, path).
OPERATIONS = {
    "notebooks": ("get", "/api/notebooks"),
    "create": ("post", "/api/notebooks"),
    "view": ("get", "/api/notebooks/{notebook}/lines"),
    "search": ("get", "/api/notebooks/{notebook}/lines"),
    "line": ("get", "/api/notebooks/{notebook}/lines/{n}"),
    "turn": ("get", "/api/notebooks/{notebook}/turn"),
    "history": ("get", "/api/notebooks/{notebook}/lines/{n}/history"),
    "rows": ("get", "/api/notebooks/{notebook}/rows"),
    "add": ("post", "/api/notebooks/{notebook}/lines"),
    "edit": ("post", "/api/notebooks/{notebook}/lines/{n}/edit"),
    "retire": ("post", "/api/notebooks/{notebook}/lines/{n}/retire"),
    "restore": ("post", "/api/notebooks/{notebook}/lines/{n}/restore"),
    "put_back": ("post", "/api/notebooks/{notebook}/lines/{n}/put-back"),
    "merge": ("post", "/api/notebooks/{notebook}/merge"),
    "suggest": ("post", "/api/notebooks/{notebook}/suggestions"),
    "sessions": ("get", "/api/sessions"),
    "session": ("get", "/api/sessions/{session}"),
    "take": ("post", "/api/sessions"),
    "checkpoint": ("post", "/api/sessions/{session}/checkpoint"),
    "land": ("post", "/api/sessions/{session}/land"),
    "withdraw": ("post", "/api/sessions/{session}/withdraw"),
    "abandon": ("post", "/api/sessions/{session}/abandon"),
}


def _api_arguments(document: dict, method: str, path: str) -> dict[str, bool]:
    """An operation's arguments by name, whether each is required: its path and query parameters and its body's
    fields (headers are HTTP's own words, Idempotency-Key and If-None-Match)."""
    operation = document["paths"][path][method]
    found = {p["name"]: p.get("required", False) for p in operation.get("parameters", []) if p["in"] != "header"}
    body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    if body:
        fields = document["components"]["schemas"][body["$ref"].split("/")[-1]]
        found |= {name: name in fields.get("required", []) for name in fields["properties"]}
    return found


@pytest.mark.parametrize("editor", [False, True], ids=["agent", "editor"])
def test_every_tool_takes_its_operations_names_each_required_alike(editor):
    """One name for one thing: a write tool's arguments are its API operation's, each required or not as there; a
    read tool's are among its operation's (view leaves `q` to search, which requires it); the session a tool names
    is `session` on both sides, never `id`."""
    from notebooks.agents import mcp_server
    from notebooks.agents.api import api
    from notebooks.log.identity.roles import Actor

    document = api.get_openapi_schema(path_prefix="/api/")
    tools = anyio.run(mcp_server.build(Actor("dad" if editor else "pippa", editor=editor)).list_tools)
    assert {tool.name for tool in tools} == set(OPERATIONS)
    for tool in tools:
        method, path = OPERATIONS[tool.name]
        schema = tool.input_schema
        taken = {name: name in schema.get("required", []) for name in schema["properties"]}
        taken.pop("idempotency_key", None)  # the Idempotency-Key header, in MCP's words
        expected = _api_arguments(document, method, path)
        if method == "post":
            assert taken == expected, tool.name
        else:
            assert set(taken) <= set(expected), tool.name
