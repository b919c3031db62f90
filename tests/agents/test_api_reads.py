import json

from notebooks.agents.paging import encode
from notebooks.log import redaction, services
from notebooks.log.files.rowformat import GAME_ONLY


def test_it_lists_the_notebooks_with_their_heads(zelda, pippa):
    body = pippa.get("/api/notebooks").json()
    assert body["notebooks"] == [{"title": "zelda", "head": 3, "session": None}]
    assert (body["after"], body["next"], body["more"]) == (None, None, False)  # nothing left: no cursor


def test_it_lists_live_lines_with_number_text_source_by_at_and_seq(zelda, pippa):
    body = pippa.get("/api/notebooks/zelda/lines").json()
    assert [line["n"] for line in body["lines"]] == [1, 2, 3]
    assert set(body["lines"][0]) == {"n", "text", "source", "by", "at", "seq"}
    assert body["seq"] == 3 and len(body["hash"]) == 64


def test_it_reads_lines_as_they_stood_until_a_time(zelda, pippa):
    first = pippa.get("/api/notebooks/zelda/lines").json()["lines"][0]
    services.retire(notebook="zelda", n=1, by="pippa", why="wrong")
    now = pippa.get("/api/notebooks/zelda/lines").json()
    then = pippa.get("/api/notebooks/zelda/lines", until=str(first["at"])).json()
    assert [line["n"] for line in now["lines"]] == [2, 3]
    assert [line["n"] for line in then["lines"]] == [1]
    assert then["seq"] == 1 and then["until"] == first["at"]


def test_a_time_before_the_first_row_reads_an_empty_notebook(zelda, pippa):
    body = pippa.get("/api/notebooks/zelda/lines", until="2000-01-01T00:00").json()
    assert body["lines"] == [] and body["seq"] == 0 and body["hash"] is None


def test_it_refuses_a_time_it_cannot_read(zelda, pippa):
    for bad in ("yesterday", "1e999", "nan", "-inf", "9" * 400, "0001-01-01T00:00:00+14:00"):
        response = pippa.get("/api/notebooks/zelda/lines", until=bad)
        assert response.status_code in (200, 400), bad
        if response.status_code == 400:
            assert response.json()["error"]["code"] == "invalid"
            assert response.json()["error"]["fields"] == ["until"], bad  # as every refusal of bad input names it
    assert pippa.get("/api/notebooks/zelda/lines", until="yesterday").status_code == 400


def test_the_turn_starts_with_a_header_naming_the_notebook_and_its_time(zelda, pippa):
    text = pippa.get("/api/notebooks/zelda/turn").json()["text"]
    first, *rest = text.splitlines()
    assert first.startswith("# Notebook 'zelda' as it stood at ") and "(seq 3," in first
    assert rest[0] == "[#3 dad] block first, then attack"
    assert rest[-1] == GAME_ONLY


def test_the_turn_reads_a_past_time(zelda, pippa):
    at = pippa.get("/api/notebooks/zelda/lines").json()["lines"][0]["at"]
    text = pippa.get("/api/notebooks/zelda/turn", until=str(at)).json()["text"]
    assert "(seq 1," in text.splitlines()[0] and "[#3 dad]" not in text


def test_it_reads_a_lines_history(zelda, pippa):
    services.edit(notebook="zelda", n=2, to="block first", by="pippa", why="learned")
    body = pippa.get("/api/notebooks/zelda/lines/2/history").json()
    assert [e["text"] for e in body["entries"]] == ["always attack first", "block first"]
    assert [e["op"] for e in body["entries"]] == ["add", "edit"]


def test_it_pages_raw_rows_after_a_seq_in_the_export_format(zelda, pippa):
    body = pippa.get("/api/notebooks/zelda/rows", after="1", limit="1").json()
    assert [r["seq"] for r in body["rows"]] == [2]
    assert body["rows"][0]["op"] == "add" and "hash" in body["rows"][0] and "text" in body["rows"][0]
    assert body["next"] == encode("rows", 2) and body["more"] is True
    last = pippa.get("/api/notebooks/zelda/rows", after=body["next"]).json()
    assert [r["seq"] for r in last["rows"]] == [3] and last["more"] is False and last["next"] is None


def test_rows_after_a_huge_seq_are_none(zelda, pippa):
    body = pippa.get("/api/notebooks/zelda/rows", after=str(2**63 - 1)).json()
    assert body["rows"] == [] and body["next"] is None and body["after"] == encode("rows", 2**63 - 1)


def test_it_refuses_a_bad_after_or_limit(zelda, pippa):
    for params in ({"after": "-1"}, {"after": "x"}, {"after": str(2**64)}, {"limit": "0"}, {"limit": "99999"}):
        assert pippa.get("/api/notebooks/zelda/rows", **params).status_code == 400, params


def test_it_answers_404_for_an_unknown_notebook(zelda, pippa):
    response = pippa.get("/api/notebooks/zeldaa/lines")
    assert response.status_code == 404
    assert "Did you mean 'zelda'" in response.json()["error"]["message"]


def test_it_answers_404_for_a_title_no_notebook_could_have(zelda, pippa):
    assert pippa.get("/api/notebooks/%00bad/turn").status_code == 404


def test_it_answers_404_for_an_unknown_line(zelda, pippa):
    assert pippa.get("/api/notebooks/zelda/lines/99/history").status_code == 404
    assert pippa.get(f"/api/notebooks/zelda/lines/{10**30}/history").status_code == 404


def test_it_answers_400_for_a_line_number_that_is_no_number(zelda, pippa):
    assert pippa.get("/api/notebooks/zelda/lines/x1/history").status_code == 400


def test_it_answers_404_as_json_for_an_unknown_path(pippa):
    response = pippa.get("/api/nothing/here")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_it_answers_405_as_json_for_a_wrong_method(zelda, pippa):
    response = pippa.client.delete("/api/notebooks/zelda/lines", HTTP_AUTHORIZATION=f"Bearer {pippa.secret}")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert response["Allow"] == "GET, POST"


def test_too_many_query_fields_is_a_json_400(zelda, pippa, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 3
    response = pippa.get("/api/notebooks/zelda/rows", **{f"x{i}": "1" for i in range(10)})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


def test_an_empty_query_value_reads_as_none_given(zelda, pippa):
    assert pippa.get("/api/notebooks/zelda/rows", after="", limit="").json()["after"] is None
    assert pippa.get("/api/notebooks/zelda/lines", until="").json()["until"] is None


def test_the_live_lines_kept_as_json_follow_every_change_and_read_as_made_anew(zelda, pippa, dad):
    from notebooks.agents import answers

    def read() -> dict:
        body = pippa.get("/api/notebooks/zelda/lines").content
        assert json.loads(body) == answers.lines("zelda", None).model_dump()  # made anew from the log
        return json.loads(body)

    assert read() == read()  # a second read of the same head
    services.add(notebook="zelda", text="a fourth line", source="seen", by="pippa", why="seen")
    assert [(line["n"], line["text"]) for line in read()["lines"]][-1] == (4, "a fourth line")
    services.edit(notebook="zelda", n=2, to="other words", by="pippa", why="clearer")
    assert read()["lines"][1]["text"] == "other words"
    services.retire(notebook="zelda", n=1, by="pippa", why="wrong")
    assert [line["n"] for line in read()["lines"]] == [2, 3, 4]
    redaction.redact(notebook="zelda", n=3, by="dad", why="private")
    after = read()
    assert after["lines"][1]["text"].startswith("[redacted") and after["seq"] == 7
