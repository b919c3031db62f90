"""Every list the API answers pages alike (`limit`, the cursor `after`; answering `next` and `more`), and a query
parameter no operation takes is a 400, as an unknown field of a body is. tests/agents/test_cursors.py holds the
convention itself, on the API and MCP alike."""

from urllib.parse import quote

import pytest

from notebooks.agents.paging import encode
from notebooks.log import services
from tests.agent_helpers import DAD


def _pages(api, path: str, key: str, cursor, **params):  # noqa: ANN001, ANN202
    """Every page of a list, following `next` while `more` says so."""
    pages, after = [], None
    while True:
        query = {**params, **({"after": after} if after is not None else {})}
        body = api.get(path, **query).json()
        pages.append([cursor(item) for item in body[key]])
        if not body["more"]:
            return pages
        after = body["next"]


def test_an_unknown_query_parameter_is_a_400_naming_it(zelda, pippa):
    response = pippa.get("/api/notebooks/zelda/rows", afer="1")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid" and error["fields"] == ["afer"]
    assert "'afer'" in error["message"] and "after, limit" in error["message"]
    assert pippa.get("/api/notebooks/zelda/lines/1/history", until="1").status_code == 400  # it takes none
    assert pippa.get("/api/notebooks/zelda/rows", after="1").status_code == 200


def test_a_query_parameter_given_twice_is_a_400_naming_it_not_a_guess_at_which_counts(zelda, pippa):
    response = pippa.get("/api/notebooks/zelda/lines", limit=["1", "2"], q="roll")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error == {
        "code": "invalid",
        "message": "'limit': given 2 times: send each query parameter once.",
        "fields": ["limit"],
    }
    assert pippa.get("/api/notebooks/zelda/lines", limit="1").status_code == 200


def test_an_unknown_query_parameter_on_a_write_is_a_400_and_writes_nothing(zelda, pippa):
    body = '{"text": "the moat", "source": "seen", "why": "saw it"}'
    response = pippa.client.post(
        "/api/notebooks/zelda/lines?dry=1", body, content_type="application/json", **pippa._headers()
    )
    assert response.status_code == 400 and response.json()["error"]["fields"] == ["dry"]
    assert pippa.get("/api/notebooks/zelda/lines").json()["seq"] == 3


def test_lines_page_through_a_notebook_two_at_a_time(zelda, pippa):
    services.add(notebook="zelda", text="the moat floods at night", source="seen", by="pippa", why="saw")
    first = pippa.get("/api/notebooks/zelda/lines", limit="2").json()
    assert ([x["n"] for x in first["lines"]], first["next"], first["more"]) == ([1, 2], encode("lines", 2), True)
    assert first["seq"] == 4 and len(first["hash"]) == 64  # the page names the view it was cut from
    assert _pages(pippa, "/api/notebooks/zelda/lines", "lines", lambda x: x["n"], limit="2") == [[1, 2], [3, 4]]
    whole = pippa.get("/api/notebooks/zelda/lines").json()  # no limit: a page of 100, all of them here
    assert ([x["n"] for x in whole["lines"]], whole["next"], whole["more"]) == ([1, 2, 3, 4], None, False)


def test_lines_pages_of_a_frozen_view_stay_that_view(zelda, pippa):
    at = pippa.get("/api/notebooks/zelda/lines").json()["lines"][1]["at"]
    services.add(notebook="zelda", text="the moat floods at night", source="seen", by="pippa", why="saw")
    pages = _pages(pippa, "/api/notebooks/zelda/lines", "lines", lambda x: x["n"], limit="1", until=str(at))
    assert pages == [[1], [2]]


def test_notebooks_page_by_title(zelda, pippa):
    for title in ("metroid", "axiom", "celeste"):
        services.create_notebook(title=title, by="test")
    pages = _pages(pippa, "/api/notebooks", "notebooks", lambda x: x["title"], limit="3")
    assert pages == [["axiom", "celeste", "metroid"], ["zelda"]]
    assert len(pippa.get("/api/notebooks").json()["notebooks"]) == 4


def test_sessions_page_newest_first_and_filter_by_actor_notebook_and_state(zelda, pippa, reflector):
    from notebooks.sessions import services as sessions

    services.create_notebook(title="metroid", by="test")
    ids = []
    for who, title in (("pippa", "zelda"), ("reflector", "metroid"), ("pippa", "metroid")):
        taken = sessions.take(notebook=title, plan="a plan", by=who)
        ids.append(taken.id)
        sessions.abandon(session=taken.id, why="done", by=who)
    open_one = sessions.take(notebook="zelda", plan="still open", by="reflector").id
    every = _pages(pippa, "/api/sessions", "sessions", lambda x: x["id"], limit="2")
    assert every == [[open_one, ids[2]], [ids[1], ids[0]]]
    assert [x["id"] for x in pippa.get("/api/sessions", actor="pippa").json()["sessions"]] == [ids[2], ids[0]]
    on_metroid = pippa.get("/api/sessions", notebook="metroid").json()["sessions"]
    assert [x["id"] for x in on_metroid] == [ids[2], ids[1]]
    mine_abandoned = pippa.get("/api/sessions", actor="reflector", state="abandoned").json()["sessions"]
    assert [x["id"] for x in mine_abandoned] == [ids[1]]


def test_a_sessions_rows_page_change_and_drift_together_in_log_order(zelda, pippa):
    from notebooks.sessions import services as sessions

    sid = sessions.take(notebook="zelda", plan="a plan", by="pippa").id
    services.add(notebook="zelda", text="roll after the swing", source="seen", by="pippa", why="saw")  # seq 4
    services.add(notebook="zelda", text="the guard sleeps", source="dad", by=DAD, why="drift")  # seq 5
    services.add(notebook="zelda", text="the moat is deep", source="seen", by="pippa", why="saw")  # seq 6
    sessions.land(session=sid, summary="two lines", by="pippa")

    def seqs(body: dict) -> list[int]:
        return sorted(r["seq"] for r in [*body["change"], *body["drift"]])

    # Rows 1-3 were written before the take: pending drift, recorded by it.
    first = pippa.get(f"/api/sessions/{sid}", limit="2").json()
    assert (seqs(first), first["next"], first["more"]) == ([1, 2], encode("session", 2), True)
    assert (first["change_rows"], first["drift_rows"]) == (2, 4)  # the totals, whatever the page
    second = pippa.get(f"/api/sessions/{sid}", limit="2", after=first["next"]).json()
    assert [r["seq"] for r in second["drift"]] == [3] and [r["seq"] for r in second["change"]] == [4]
    assert _pages(pippa, f"/api/sessions/{sid}", "change", lambda r: r["seq"], limit="2") == [[], [4], [6]]
    assert _pages(pippa, f"/api/sessions/{sid}", "drift", lambda r: r["seq"], limit="2") == [[1, 2], [3], [5]]
    whole = pippa.get(f"/api/sessions/{sid}").json()
    assert (seqs(whole), whole["next"], whole["more"]) == ([1, 2, 3, 4, 5, 6], None, False)


def test_a_bad_cursor_or_limit_is_a_400(zelda, pippa):
    assert pippa.get("/api/notebooks/zelda/lines", limit="0").status_code == 400
    assert pippa.get("/api/notebooks/zelda/lines", after="x").status_code == 400
    assert pippa.get("/api/sessions", limit="100000").status_code == 400
    assert pippa.get("/api/sessions", state="lost").status_code == 400


def test_a_nul_in_a_title_or_name_to_look_for_is_a_400_naming_it(zelda, pippa):
    """No title or name holds one, and PostgreSQL refuses to compare text with a NUL (it was a 500 there)."""
    for path, name, value in (
        ("/api/notebooks", "after", "a\x00"),
        ("/api/sessions", "actor", "\x00"),
        ("/api/sessions", "notebook", "zel\x00da"),
    ):
        response = pippa.get(path, **{name: value})
        assert response.status_code == 400, (path, name, response.content[:300])
        error = response.json()["error"]
        assert (error["code"], error["fields"]) == ("invalid", [name])
        assert len(error["message"]) < 200


@pytest.mark.parametrize("written", [" 9", "9.0", "+9", "1e1", "٩", "0x9"])
def test_a_number_in_a_path_or_query_is_digits_only(zelda, pippa, written):
    history = pippa.client.get(f"/api/notebooks/zelda/lines/{quote(written)}/history", **pippa._headers())
    assert history.status_code == 400 and history.json()["error"]["code"] == "invalid"
    assert pippa.get("/api/notebooks/zelda/rows", after=written).status_code == 400
    assert pippa.get("/api/notebooks/zelda/lines", limit=written).status_code == 400
    assert pippa.get("/api/sessions", after=written).status_code == 400
    assert pippa.get(f"/api/sessions/{quote(written)}").status_code == 400


def test_a_number_in_digits_is_read_as_before(zelda, pippa):
    assert pippa.get("/api/notebooks/zelda/lines/1/history").status_code == 200
    assert pippa.get("/api/notebooks/zelda/lines/01/history").json()["n"] == 1
    assert pippa.get("/api/notebooks/zelda/lines", limit="2").json()["more"] is True
