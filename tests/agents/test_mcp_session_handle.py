"""Through MCP as through the API: a second take by the holder names her session, every write says which session it
went into, a write may name its session, and she mends a refused land with restore (put_back beside it), through
the SDK's stdio client against `manage.py notebook mcp` on a database of its own."""

import pytest

from tests.mcp_client import run_mcp_script

SETUP = """
for title in ("zelda", "metroid", "kirby"):
    services.create_notebook(title=title, by="test")
for text in ("the bridge guard swings twice", "always attack first", "the guard drops his shield"):
    services.add(notebook="zelda", text=text, source="seen", by="pippa", why="seen")
services.edit(notebook="zelda", n=3, to="the guard drops his shield when hit", by="pippa", why="exact")
sessions.take(notebook="metroid", plan="map it", by="reflector")
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory):  # noqa: ANN001, ANN201
    return run_mcp_script(tmp_path_factory, "mcp-handle", SETUP, _calls)


async def _calls(client, call) -> dict:  # noqa: ANN001
    out: dict = {}
    listed = await client.list_tools()
    out["tools"] = {tool.name: tool for tool in listed.tools}
    out["took"] = await call("take", notebook="zelda", plan="tidy")
    sid = out["took"]["id"]
    out["again"] = await call("take", notebook="zelda", plan="tidy from another process")
    out["added"] = await call("add", notebook="zelda", text="roll after the swing", why="seen", session=sid)
    out["foreign"] = await call("add", notebook="zelda", text="x", why="y", session=sid + 1000)
    for n in (1, 2):
        out[f"retired{n}"] = await call("retire", notebook="zelda", n=n, why="old")
    out["refused"] = await call("land", session=sid, summary="tidy")
    out["restored"] = await call("restore", notebook="zelda", n=1, why="keep it after all")
    out["put_back"] = await call("put_back", notebook="zelda", n=3, seq=3, why="the first words were right")
    out["landed"] = await call("land", session=sid, summary="tidy")
    out["view"] = await call("view", notebook="zelda")
    kirby = (await call("take", notebook="kirby", plan="first lessons"))["id"]
    await call("add", notebook="kirby", text="inhale to copy a power", why="seen", session=kirby)
    out["wrong"] = await call("add", notebook="kirby", text="the sword never misses", why="a guess", session=kirby)
    out["withdrawn"] = await call("withdraw", session=kirby, seq=out["wrong"]["seq"], why="a wrong guess")
    out["withdrawn_again"] = await call("withdraw", session=kirby, seq=out["wrong"]["seq"], why="again")
    out["kirby_landed"] = await call("land", session=kirby, summary="first lessons")
    out["kirby"] = await call("view", notebook="kirby")
    return out


def test_a_second_take_by_the_holder_names_her_session_through_mcp(calls):
    kind, text, error = calls["again"]
    sid = calls["took"]["id"]
    assert kind == "error" and text.startswith("conflict (409): ") and f"name session {sid}" in text
    assert error["error"]["session"] == sid and isinstance(error["error"]["lease_until"], float)


def test_every_write_through_mcp_says_the_session_it_went_into(calls):
    sid = calls["took"]["id"]
    assert calls["added"]["session"]["id"] == sid and calls["added"]["session"]["state"] == "open"
    assert calls["retired1"]["session"]["id"] == sid
    assert calls["foreign"][1].startswith("not_found (404): No session")


def test_restore_mends_a_refused_land_and_put_back_says_earlier_words_again_through_mcp(calls):
    assert calls["refused"][2]["error"]["code"] == "gate_refused"
    assert calls["restored"]["n"] == 5 and calls["put_back"]["n"] == 3
    assert calls["landed"]["result"] == "landed"
    texts = {line["n"]: line["text"] for line in calls["view"]["lines"]}
    assert texts == {3: "the guard drops his shield", 4: "roll after the swing", 5: "the bridge guard swings twice"}
    assert calls["view"]["session"] is None  # landed: she holds none


def test_restore_and_put_back_are_offered_with_a_session_argument(calls):
    for name in ("add", "edit", "retire", "merge", "restore", "put_back"):
        assert "session" in calls["tools"][name].input_schema["properties"], name
    assert set(calls["tools"]["put_back"].input_schema["required"]) == {"notebook", "n", "seq", "why"}


def test_she_withdraws_one_proposal_through_mcp_and_the_rest_lands_without_it(calls):
    assert calls["withdrawn"]["proposal"] == calls["wrong"]["seq"]
    kind, text, _error = calls["withdrawn_again"]
    assert kind == "error" and text.startswith("conflict (409): ")
    assert [line["text"] for line in calls["kirby"]["lines"]] == ["inhale to copy a power"]
