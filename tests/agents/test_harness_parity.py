"""The same harness run twice against one web server: once through a client generated from the OpenAPI document
(openapi-python-client), once through the SDK's MCP client over Streamable HTTP (/mcp). Each takes a notebook of its
own (alike at the start), reads the turn, adds a lesson, edits it with `expected`, and lands; both must leave the
same rows and get answers of the same shape and the same values, but for what names the run (its notebook, its
session) and the clock's readings."""

import copy
import json
import re
import urllib.request
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.databases import Scratch
from tests.generated_client import generated_client
from tests.web_instances import Instance, collectstatic, scratch_env, start_instance

# Two notebooks alike at the start (a title that looks like another is refused, so they are not "celeste-1/2").
TITLES = {"generated": "celeste", "mcp": "hollow"}
SETUP = """
import django
django.setup()
from notebooks.agents import tokens
from notebooks.log import services
from notebooks.log.identity.roles import Actor
dad = Actor("dad", editor=True)
for title in ("celeste", "hollow"):
    services.create_notebook(title=title, by="dad")
    services.add(notebook=title, text="Dash before the spikes.", source="dad", by=dad, why="a rule")
print(tokens.issue(actor="pippa").secret)
"""
LESSON = "The wind pushes right on the bridge."
BETTER = "The wind pushes right on the bridge; dash left into it."


@pytest.fixture(scope="module")
def site(scratch_templates, tmp_path_factory) -> Iterator[dict[str, Any]]:  # noqa: ANN001
    """One web server (one worker) on a scratch database of its own, and the client generated from the document it
    serves."""
    tmp = tmp_path_factory.mktemp("harness-parity")
    scratch: Scratch = scratch_templates.new()
    env = scratch_env(scratch.env(), tmp / "static")
    collectstatic(env)
    token = scratch.run("-c", SETUP, env=env).stdout.strip().splitlines()[-1]
    instance: Instance = start_instance(env, tmp / "server.log", workers=1, threads=2)
    try:
        served = json.load(urllib.request.urlopen(instance.base + "/api/openapi.json", timeout=30))
        with generated_client(tmp / "client", served) as load:
            yield {"base": instance.base, "token": token, "load": load}
    finally:
        instance.stop()


class Generated:
    """The harness's calls through the generated client (its sync functions: the harness awaits either kind of
    agent); each answer as the JSON it parsed (its model's to_dict), a refusal failing the test."""

    def __init__(self, site: dict[str, Any]) -> None:
        self.models = site["load"]("models")
        self.client = site["load"]("client").AuthenticatedClient(base_url=site["base"], token=site["token"])

    def _answer(self, parsed: Any) -> dict[str, Any]:
        assert not isinstance(parsed, self.models.Error), parsed.to_dict()
        return parsed.to_dict()

    async def take(self, notebook: str, plan: str) -> dict[str, Any]:
        from notebooks_client.api.sessions import take_session

        return self._answer(
            take_session.sync(client=self.client, body=self.models.TakeIn(notebook=notebook, plan=plan))
        )

    async def turn(self, notebook: str) -> dict[str, Any]:
        from notebooks_client.api.notebooks import get_turn

        return self._answer(get_turn.sync(notebook, client=self.client))

    async def add(self, notebook: str, text: str, why: str, session: int) -> dict[str, Any]:
        from notebooks_client.api.lines import add_line

        body = self.models.AddIn(text=text, source=self.models.AddInSource.SEEN, why=why, session=session)
        return self._answer(add_line.sync(notebook, client=self.client, body=body))

    async def edit(self, notebook: str, n: int, text: str, why: str, expected: int, session: int) -> dict[str, Any]:
        from notebooks_client.api.lines import edit_line

        body = self.models.EditIn(text=text, why=why, expected=expected, session=session)
        return self._answer(edit_line.sync(notebook, n, client=self.client, body=body))

    async def land(self, session: int, summary: str) -> dict[str, Any]:
        from notebooks_client.api.sessions import land_session

        return self._answer(land_session.sync(session, client=self.client, body=self.models.LandIn(summary=summary)))

    async def rows(self, notebook: str) -> dict[str, Any]:
        from notebooks_client.api.notebooks import list_rows

        return self._answer(list_rows.sync(notebook, client=self.client))


class Mcp:
    """The harness's calls as MCP tools; each answer the tool's structured content."""

    def __init__(self, client: ClientSession) -> None:
        self.client = client

    async def _call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = await self.client.call_tool(tool, arguments)
        assert not result.is_error, result.content[0].text
        return result.structured_content

    async def take(self, notebook: str, plan: str) -> dict[str, Any]:
        return await self._call("take", notebook=notebook, plan=plan)

    async def turn(self, notebook: str) -> dict[str, Any]:
        return await self._call("turn", notebook=notebook)

    async def add(self, notebook: str, text: str, why: str, session: int) -> dict[str, Any]:
        return await self._call("add", notebook=notebook, text=text, source="seen", why=why, session=session)

    async def edit(self, notebook: str, n: int, text: str, why: str, expected: int, session: int) -> dict[str, Any]:
        return await self._call("edit", notebook=notebook, n=n, text=text, why=why, expected=expected, session=session)

    async def land(self, session: int, summary: str) -> dict[str, Any]:
        return await self._call("land", session=session, summary=summary)

    async def rows(self, notebook: str) -> dict[str, Any]:
        return await self._call("rows", notebook=notebook)


async def harness(agent: Generated | Mcp, notebook: str) -> dict[str, dict[str, Any]]:
    """examples/harness.py's run, grown by one step: take, read the turn, add a lesson, edit it with the seq the add
    answered as `expected`, land. Every answer, by step, and the notebook's rows after it."""
    said: dict[str, dict[str, Any]] = {}
    said["take"] = await agent.take(notebook, "one play run: the bridge")
    session = said["take"]["id"]
    said["turn"] = await agent.turn(notebook)
    said["add"] = await agent.add(notebook, LESSON, "saw it on the bridge", session)
    said["edit"] = await agent.edit(notebook, said["add"]["n"], BETTER, "how to beat it", said["add"]["seq"], session)
    said["land"] = await agent.land(session, f"one lesson: line #{said['add']['n']}")
    said["rows"] = await agent.rows(notebook)
    return said


async def _through_mcp(site: dict[str, Any]) -> dict[str, dict[str, Any]]:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {site['token']}"}, timeout=30) as http:
        async with (
            streamable_http_client(site["base"] + "/mcp", http_client=http) as streams,
            ClientSession(*streams[:2]) as client,
        ):
            await client.initialize()
            return await harness(Mcp(client), TITLES["mcp"])


@pytest.fixture(scope="module")
def both(site) -> dict[str, dict[str, dict[str, Any]]]:  # noqa: ANN001
    generated = anyio.run(harness, Generated(site), TITLES["generated"])
    return {"generated": generated, "mcp": anyio.run(_through_mcp, site)}


def shape(value: Any) -> Any:
    """A JSON value's shape: each object's keys with their values' shapes, a list's items', a scalar's type."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return type(value).__name__


def same_but_names(answer: Any, who: str) -> Any:
    """The answer with what differs by nature between the two runs put aside: the notebook's title (each run has its
    own), the session's lease's time, a row's time, its hash (which chains the time) and its words' salted digest,
    and in the turn's header the time it stands at and its head's hash."""
    if isinstance(answer, dict):
        return {
            key: "…" if key in ("at", "hash", "lease_until", "digest", "salt") else same_but_names(item, who)
            for key, item in answer.items()
        }
    if isinstance(answer, list):
        return [same_but_names(item, who) for item in answer]
    if isinstance(answer, str):
        answer = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", "<time>", answer)
        return re.sub(r"head [0-9a-f]{16}", "head <hash>", answer.replace(TITLES[who], "<notebook>"))
    return answer


def words(row: dict[str, Any]) -> str:
    """A row's words, whichever its op names them by (an add's text, an edit's to, a proposal's of either)."""
    return next(row[key] for key in ("text", "to", "proposed_text", "proposed_to") if key in row)


def test_both_clients_run_the_harness_to_the_same_rows(both) -> None:  # noqa: ANN001
    rows = {who: [same_but_names(row, who) for row in said["rows"]["rows"]] for who, said in both.items()}
    assert rows["generated"] == rows["mcp"]
    assert [
        (row["op"], row.get("proposes"), row["n"], row["source"], row["by"], words(row)) for row in rows["mcp"]
    ] == [
        ("add", None, 1, "dad", "dad", "Dash before the spikes."),
        ("propose", "add", 2, "seen", "pippa", LESSON),  # the session's rows, pending until it lands...
        ("propose", "edit", 2, "seen", "pippa", BETTER),
        ("add", None, 2, "seen", "pippa", LESSON),  # ...and their landed copies, each naming the row it lands
        ("edit", None, 2, "seen", "pippa", BETTER),
    ]
    assert [row.get("lands") for row in rows["mcp"]] == [None, None, None, 2, 3]


def test_both_clients_get_answers_of_the_same_shape_and_values(both) -> None:  # noqa: ANN001
    said = copy.deepcopy(both)
    for step in ("take", "turn", "add", "edit", "land"):
        assert shape(said["generated"][step]) == shape(said["mcp"][step]), step
    for who, answers in said.items():  # each run's session is its own: the answers name it, and only it
        session = answers["take"].pop("id")
        assert answers["land"].pop("id") == session, who
        for step in ("turn", "add", "edit"):
            assert answers[step]["session"].pop("id") == session, (who, step)
    for step in ("take", "turn", "add", "edit", "land"):
        assert same_but_names(said["generated"][step], "generated") == same_but_names(said["mcp"][step], "mcp"), step
    mcp = said["mcp"]
    assert mcp["take"] == {"notebook": "hollow", "base": 1, "drift": 1}  # Dad's line, written outside any session
    assert "[#1 dad] Dash before the spikes." in mcp["turn"]["text"]
    assert (mcp["add"]["n"], mcp["add"]["seq"], mcp["edit"]["seq"]) == (2, 2, 3)  # the edit's expected: the add's seq
    assert mcp["add"]["session"]["state"] == mcp["edit"]["session"]["state"] == "open"
    assert mcp["add"]["similar"] and mcp["add"]["similar"][0]["n"] == 1
    assert (mcp["land"]["result"], mcp["land"]["rows"], mcp["land"]["head"]) == ("landed", 2, 5)
