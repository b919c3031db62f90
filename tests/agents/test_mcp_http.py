"""MCP over Streamable HTTP at /mcp, through the web server `make serve` runs, driven by the SDK's own HTTP client:
the stdio server's tools and refusals, for the actor the bearer token speaks for; no token, no tools."""

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.databases import ROOT, Scratch
from tests.web_instances import Instance, collectstatic, scratch_env, start_instance


@pytest.fixture(scope="module")
def site(scratch_templates, tmp_path_factory) -> Iterator[dict[str, Any]]:  # noqa: ANN001
    tmp = tmp_path_factory.mktemp("mcp-http")
    scratch: Scratch = scratch_templates.new()
    env = scratch_env(scratch.env(), tmp / "static")
    collectstatic(env)
    scratch.manage("notebook", "create", "zelda", env=env)
    tokens = {name: scratch.manage("notebook", "token", name, env=env).stdout.split()[-1] for name in ("pippa", "zoe")}
    instance: Instance = start_instance(env, tmp / "server.log", workers=2, threads=2)
    try:
        yield {"base": instance.base, "tokens": tokens, "scratch": scratch, "env": env}
    finally:
        instance.stop()


async def _calls(url: str, token: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Each call's structured answer, or ("error", its text, its structured content) for a refusal."""
    out: list[Any] = []
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        async with streamable_http_client(url, http_client=http) as streams, ClientSession(*streams[:2]) as client:
            await client.initialize()
            out.append(sorted(t.name for t in (await client.list_tools()).tools))
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                if result.is_error:
                    out.append(("error", result.content[0].text, result.structured_content))
                else:
                    out.append(result.structured_content)
    return out


def run(site: dict[str, Any], who: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    return anyio.run(_calls, site["base"] + "/mcp", site["tokens"][who], calls)


def test_an_sdk_client_over_http_adds_reads_and_lands_a_session(site) -> None:  # noqa: ANN001
    tools, taken, added, view, turn = run(
        site,
        "pippa",
        [
            ("take", {"notebook": "zelda", "plan": "the forest temple"}),
            ("add", {"notebook": "zelda", "text": "Bombs open cracked walls", "why": "saw it", "source": "seen"}),
            ("view", {"notebook": "zelda"}),
            ("turn", {"notebook": "zelda"}),
        ],
    )
    assert {"add", "view", "turn", "take", "land", "history"} <= set(tools)
    assert added["n"] == 1 and [line["text"] for line in view["lines"]] == ["Bombs open cracked walls"]
    assert "Bombs open cracked walls" in turn["text"]
    # A second request (any worker) lands the session the first took: nothing is kept between requests but the rows.
    _, landed = run(site, "pippa", [("land", {"session": taken["id"], "summary": "the walls"})])
    assert landed["result"] == "landed"
    rows = site["scratch"].manage("notebook", "export", "zelda", env=site["env"]).stdout
    assert "Bombs open cracked walls" in rows and '"lands"' in rows


def test_refusals_over_http_are_the_tools_structured_errors(site) -> None:  # noqa: ANN001
    _, missing, as_dad = run(
        site,
        "zoe",
        [
            ("view", {"notebook": "zeldx"}),
            ("add", {"notebook": "zelda", "text": "x", "why": "y", "source": "dad"}),
        ],
    )
    assert missing[0] == "error" and "Did you mean 'zelda'?" in missing[1]
    assert missing[2]["error"]["code"] == "not_found"
    assert as_dad[0] == "error" and as_dad[2]["error"]["code"] == "forbidden"


@pytest.mark.parametrize(
    "authorization, says",
    [(None, "Send a token"), ("Bearer nbk_not-a-token", "unknown or revoked"), ("Basic cGlwcGE6eA==", "Send a token")],
)
def test_without_a_live_token_mcp_answers_401(site, authorization: str | None, says: str) -> None:  # noqa: ANN001
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if authorization:
        headers["Authorization"] = authorization
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    answer = httpx2.post(site["base"] + "/mcp", json=body, headers=headers, timeout=30)
    assert answer.status_code == 401 and answer.headers["WWW-Authenticate"].startswith("Bearer")
    assert says in answer.json()["error"]["message"]


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_mcp_offers_no_event_stream_and_no_session_to_end(site, method: str) -> None:  # noqa: ANN001
    headers = {"Authorization": f"Bearer {site['tokens']['pippa']}", "Accept": "text/event-stream"}
    answer = httpx2.request(method, site["base"] + "/mcp", headers=headers, timeout=30)
    assert answer.status_code == 405 and answer.headers["Allow"] == "POST"
    assert answer.json()["error"]["code"] == "method_not_allowed"  # the API's refusal, not an empty HTML page


def test_a_body_too_large_for_mcp_is_the_apis_413_not_an_html_400(zelda, pippa, settings) -> None:  # noqa: ANN001
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    arguments = {"notebook": "zelda", "text": "x" * 200, "why": "w"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": arguments}}
    answer = pippa.post("/mcp", body)
    assert answer.status_code == 413 and answer["Content-Type"].startswith("application/json")
    assert answer.json()["error"] == {"code": "too_large", "message": "The request body is too large."}


def test_the_guides_sdk_client_runs_and_prints_what_it_shows(site) -> None:  # noqa: ANN001
    """docs/agents.md's Python client, as printed there, against this server: its add answers what its comment says."""
    guide = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    code = re.search(r"The Python SDK's client.*?```python\n(.*?)```", guide, re.DOTALL)[1]
    shown = re.search(r"print\(added\.structured_content\)  # (.*)", code)[1]
    site["scratch"].manage("notebook", "create", "hyrule", env=site["env"])  # a notebook of its own: line 1, row 1
    code = code.replace("http://127.0.0.1:8000", site["base"]).replace("nbk_…", site["tokens"]["zoe"])
    done = subprocess.run(
        [sys.executable, "-c", code.replace('"notebook": "zelda"', '"notebook": "hyrule"')],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert ast.literal_eval(done.stdout.strip()) == ast.literal_eval(shown)


@pytest.mark.parametrize("request_id", ["1.5", "1e400", '{"a": 1}', "null", "true"])
def test_a_request_whose_id_is_no_string_or_whole_number_is_refused_and_not_run(zelda, pippa, request_id) -> None:  # noqa: ANN001
    add = '{"name": "add", "arguments": {"notebook": "zelda", "text": "x", "why": "w"}}'
    call = f'"method": "tools/call", "params": {add}'
    body = f'{{"jsonrpc": "2.0", "id": {request_id}, {call}}}'
    answer = pippa.post("/mcp", body)
    assert answer.status_code == 400 and answer.json()["error"]["code"] == -32600
    assert "'id' must be a string or a whole number" in answer.json()["error"]["message"]
    assert pippa.get("/api/notebooks/zelda/lines").json()["seq"] == 3  # nothing written
