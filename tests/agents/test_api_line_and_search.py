"""The reads a harness needs beside the whole view: one line by its number, and the card's search on the lines."""

from notebooks.log import services

URL = "/api/notebooks/zelda"


def test_one_live_line_is_read_by_its_number(zelda, pippa):
    answer = pippa.get(f"{URL}/lines/2")
    assert answer.status_code == 200
    body = answer.json()
    assert (body["notebook"], body["seq"], body["session"]) == ("zelda", 3, None)
    assert (body["line"]["n"], body["line"]["text"], body["line"]["source"]) == (2, "always attack first", "guessed")


def test_a_line_not_live_is_a_404_and_a_past_line_is_read_with_until(zelda, pippa):
    at = pippa.get(f"{URL}/lines/2").json()["line"]["at"]
    services.retire(notebook="zelda", n=2, by="pippa", why="wrong")
    gone = pippa.get(f"{URL}/lines/2")
    assert gone.status_code == 404 and "not live" in gone.json()["error"]["message"]
    assert pippa.get(f"{URL}/lines/99").status_code == 404
    assert pippa.get(f"{URL}/lines/2", until=str(at)).json()["line"]["text"] == "always attack first"
    assert pippa.get(f"{URL}/lines/2.0").status_code == 400


def test_the_holder_reads_her_own_pending_line_by_its_number(zelda, pippa, reflector):
    pippa.post("/api/sessions", {"notebook": "zelda", "plan": "one run"})
    n = pippa.post(f"{URL}/lines", {"text": "roll after the swing", "source": "seen", "why": "seen"}).json()["n"]
    mine = pippa.get(f"{URL}/lines/{n}").json()
    assert mine["line"]["text"] == "roll after the swing" and mine["session"]["state"] == "open"
    assert reflector.get(f"{URL}/lines/{n}").status_code == 404  # pending: not in anyone else's view


def test_q_finds_lines_as_the_cards_search_does(zelda, pippa):
    found = pippa.get(f"{URL}/lines", q="ATTACK").json()
    assert [x["n"] for x in found["lines"]] == [2, 3] and found["seq"] == 3
    assert [x["n"] for x in pippa.get(f"{URL}/lines", q="guard attack").json()["lines"]] == []
    assert [x["n"] for x in pippa.get(f"{URL}/lines", q="guard attack", match="any").json()["lines"]] == [1, 2, 3]
    assert [x["n"] for x in pippa.get(f"{URL}/lines", q="swinging").json()["lines"]] == [1]  # a common ending off
    assert [x["n"] for x in pippa.get(f"{URL}/lines", q="#3").json()["lines"]] == [3]
    assert [x["n"] for x in pippa.get(f"{URL}/lines", q="attack", limit="1").json()["lines"]] == [2]


def test_a_bad_search_is_a_400(zelda, pippa):
    assert pippa.get(f"{URL}/lines", q="x" * 201).status_code == 400
    assert pippa.get(f"{URL}/lines", q="attack", match="some").status_code == 400
