"""The MCP tool `suggest`, through the SDK's stdio client against `manage.py notebook mcp` on a database of its own:
the API's answers (writes.suggest) and refusals, in the tool's words."""

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[2]
SETUP = """
import os, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notebook_site.settings")
django.setup()
from django.core.management import call_command
from notebooks.log import services
call_command("migrate", "--no-input", verbosity=0)
services.create_notebook(title="zelda", by="test")
for text in ("the big dinosaur swallows bombs", "King Dodongo: throw a bomb into his mouth", "buy milk"):
    services.add(notebook="zelda", text=text, source="seen", by="pippa", why="seen")
services.retire(notebook="zelda", n=3, by="pippa", why="not the game")
"""
REPEAT = {"notebook": "zelda", "lines": [1, 2], "kind": "repeat", "why": "one boss"}


@pytest.fixture(scope="module")
def calls(tmp_path_factory):  # noqa: ANN001, ANN201
    path = tmp_path_factory.mktemp("mcp-suggest") / "notebooks.sqlite3"
    url = f"sqlite:///{path}"
    subprocess.run([sys.executable, "-c", SETUP], cwd=ROOT, env={**os.environ, "DATABASE_URL": url}, check=True,
                   capture_output=True)  # fmt: skip
    return anyio.run(_calls, url)


async def _calls(url: str) -> dict:
    server = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "notebook", "mcp", "--actor", "pippa"],
        env={"DATABASE_URL": url, "NOTEBOOK_PENDING_SUGGESTIONS": "1"},
        cwd=str(ROOT),
    )
    out: dict = {}
    with open(os.devnull, "w") as quiet:
        async with stdio_client(server, errlog=quiet) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            out["tools"] = {tool.name: tool for tool in (await client.list_tools()).tools}

            async def call(**arguments: object) -> object:
                result = await client.call_tool("suggest", arguments)
                if result.is_error:
                    return ("error", result.content[0].text, result.structured_content)
                return result.structured_content

            out["new"] = await call(**REPEAT, words="King Dodongo: throw a bomb into his mouth", idempotency_key="k1")
            out["replayed"] = await call(
                **REPEAT, words="King Dodongo: throw a bomb into his mouth", idempotency_key="k1"
            )
            out["pending"] = await call(**{**REPEAT, "why": "again"})
            out["gone"] = await call(notebook="zelda", lines=[3], kind="stray", why="milk")
            out["bad_kind"] = await call(**{**REPEAT, "kind": "dupe"})
            out["string_lines"] = await call(**{**REPEAT, "lines": ["1", "2"]})
            out["too_many"] = await call(notebook="zelda", lines=[1, 2], kind="conflict", keep=1, why="which")
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
