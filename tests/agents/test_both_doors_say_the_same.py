"""Each operation is described once (agents/operation_texts.py): an agent reading the OpenAPI document and one reading
MCP's tool list are told the same thing, but for the paging each door appends in its own words."""

import anyio

from notebooks.agents.api import api
from notebooks.agents.api.operations import PAGING
from notebooks.agents.mcp_server import PAGED, build
from notebooks.log.identity.roles import Actor

# Each tool and the API operation it calls the same function as.
OPERATION_OF = {
    "notebooks": "listNotebooks",
    "create": "createNotebook",
    "view": "listLines",
    "turn": "getTurn",
    "line": "getLine",
    "rows": "listRows",
    "sessions": "listSessions",
    "session": "getSession",
    "history": "getHistory",
    "add": "addLine",
    "edit": "editLine",
    "retire": "retireLine",
    "restore": "restoreLine",
    "put_back": "putBackWords",
    "merge": "mergeLines",
    "suggest": "suggestLines",
    "take": "takeSession",
    "checkpoint": "checkpointSession",
    "land": "landSession",
    "withdraw": "withdrawProposal",
    "abandon": "abandonSession",
}
OWN_TEXT = {"search"}  # the API's listLines with 'q': a tool of its own, said apart


def _operations() -> dict[str, dict]:
    doc = api.get_openapi_schema(path_prefix="/api/")
    return {op["operationId"]: op for methods in doc["paths"].values() for op in methods.values()}


def _tools(actor: Actor) -> dict[str, str]:
    return {tool.name: tool.description for tool in anyio.run(build(actor).list_tools)}


def test_each_tool_says_word_for_word_what_its_api_operation_says():
    operations = _operations()
    for actor in (Actor("pippa"), Actor("dad", editor=True)):
        tools = _tools(actor)
        assert set(tools) == set(OPERATION_OF) | OWN_TEXT  # a new tool is paired, or said apart on purpose
        for tool, operation_id in OPERATION_OF.items():
            op = operations[operation_id]
            api_said = f"{op['summary']} {op['description']}"
            api_paged = api_said.endswith(" " + PAGING)
            tool_paged = tools[tool].endswith(" " + PAGED)
            assert api_paged == tool_paged, tool  # a list pages through both doors, or through neither
            assert tools[tool].removesuffix(" " + PAGED) == api_said.removesuffix(" " + PAGING), tool


def test_the_search_tool_answers_as_view_and_says_so():
    tools = _tools(Actor("pippa"))
    assert tools["search"].endswith(" " + PAGED)
    assert _operations()["listLines"]["description"].removesuffix(" " + PAGING) in tools["search"]
