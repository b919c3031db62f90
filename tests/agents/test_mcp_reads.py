"""The reads a harness needs, through MCP as through the API: one line, a search, the rows, the sessions and one
session; and an unknown tool answered as every refusal is, structured and naming the tools there are."""

import pytest

from tests.mcp_client import run_mcp_script

SETUP = """
services.create_notebook(title="zelda", by="test")
for text in ("the bridge guard swings twice", "always attack first", "save before the boss door"):
    services.add(notebook="zelda", text=text, source="seen", by="pippa", why="seen")
taken = sessions.take(notebook="zelda", plan="one run", by="pippa")
sessions.land(session=taken.id, summary="nothing", by="pippa")
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory):  # noqa: ANN001, ANN201
    return run_mcp_script(tmp_path_factory, "mcp-reads", SETUP, _calls)


async def _calls(client, call) -> dict:  # noqa: ANN001
    out: dict = {}
    listed = await client.list_tools()
    out["tools"] = {tool.name for tool in listed.tools}
    out["line"] = await call("line", notebook="zelda", n=2)
    out["no_line"] = await call("line", notebook="zelda", n=9)
    out["search"] = await call("search", notebook="zelda", q="boss attack", match="any")
    out["rows"] = await call("rows", notebook="zelda", after=1, limit=2)
    out["sessions"] = await call("sessions", actor="pippa")
    sid = out["sessions"]["sessions"][0]["id"]
    out["session"] = await call("session", session=sid)
    out["unknown"] = await call("lines_by_number", notebook="zelda")
    out["nul_search"] = await call("search", notebook="zelda", q="boss\x00")
    out["huge_tool"] = await call("x" * 50_000, notebook="zelda")
    out["huge_title"] = await call("view", notebook="x" * 1_000_000)
    out["huge_until"] = await call("view", notebook="zelda", until="9" * 5000)
    at = out["line"]["line"]["at"]  # line 2's time, as a number: the view then holds lines 1 and 2
    out["until_number"] = await call("view", notebook="zelda", until=at)
    out["until_text"] = await call("view", notebook="zelda", until=repr(at))
    out["turn_number"] = await call("turn", notebook="zelda", until=at)
    out["until_true"] = await call("view", notebook="zelda", until=True)
    return out


def test_one_line_and_a_search_through_mcp(calls):
    assert calls["line"]["line"]["text"] == "always attack first" and calls["line"]["notebook"] == "zelda"
    assert calls["no_line"][1].startswith("not_found (404): Line #9")
    assert [x["n"] for x in calls["search"]["lines"]] == [2, 3]


def test_rows_sessions_and_one_session_through_mcp(calls):
    rows = calls["rows"]
    from notebooks.agents.paging import encode

    assert [r["seq"] for r in rows["rows"]] == [2, 3] and rows["after"] == encode("rows", 1) and rows["more"] is False
    (session,) = calls["sessions"]["sessions"]
    assert session["actor"] == "pippa" and session["state"] == "no-op"
    assert calls["session"]["id"] == session["id"] and calls["session"]["plan"] == "one run"


def test_an_unknown_tool_is_a_structured_refusal_naming_the_tools(calls):
    kind, text, structured = calls["unknown"]
    assert kind == "error" and text.startswith("not_found (404): No tool is named 'lines_by_number'")
    assert structured["error"]["code"] == "not_found"
    assert set(structured["error"]["tools"]) == calls["tools"] >= {"line", "search", "rows", "sessions", "session"}


def test_a_sessions_events_count_as_number_through_mcp(calls):
    events = calls["session"]["events"]
    assert [(e["number"], e["kind"]) for e in events] == [(1, "drift"), (2, "take"), (3, "land")]
    assert all("seq" not in e for e in events) and calls["sessions"]["sessions"][0]["events"] == events


def test_a_nul_in_a_search_is_refused_as_the_api_refuses_it(calls):
    kind, text, structured = calls["nul_search"]
    assert kind == "error" and structured["error"]["code"] == "invalid" and "NUL" in text


@pytest.mark.parametrize(
    ("name", "said"),
    [("huge_tool", "No tool is named 'xxx"), ("huge_title", "No notebook is titled 'xxx"), ("huge_until", "'999")],
)
def test_a_huge_name_or_time_is_quoted_cut_in_its_refusal(calls, name, said):
    kind, text, structured = calls[name]
    assert kind == "error" and said in text and "characters)" in text, text[:300]
    assert len(text) < 2_000 and len(str(structured)) < 4_000


def test_a_time_sent_as_the_number_an_answer_gave_reads_as_its_text(calls):
    assert calls["until_number"] == calls["until_text"]
    assert [x["n"] for x in calls["until_number"]["lines"]] == [1, 2]
    assert calls["until_number"]["until"] == calls["line"]["line"]["at"] == calls["turn_number"]["until"]
    kind, text, structured = calls["until_true"]
    assert kind == "error" and structured["error"]["code"] == "invalid"
