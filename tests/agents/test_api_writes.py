import pytest

from notebooks.models import Row

LINES = "/api/notebooks/zelda/lines"


def test_it_adds_a_line_and_answers_201_with_its_number_and_seq(zelda, pippa):
    response = pippa.post(LINES, {"text": "roll after the second swing", "source": "seen", "why": "died twice"})
    assert response.status_code == 201
    assert response.json() == {"n": 4, "seq": 4, "session": None, "similar": []}


def test_an_add_names_the_live_lines_most_like_it_and_refuses_nothing(zelda, pippa):
    response = pippa.post(LINES, {"text": "The bridge guard swings twice!", "source": "seen", "why": "again"})
    assert response.status_code == 201
    body = response.json()
    assert body["n"] == 4 and [x["n"] for x in body["similar"]][:1] == [1]
    assert 0 < body["similar"][0]["score"] <= 1 and len(body["similar"]) <= 3
    assert 4 not in [x["n"] for x in body["similar"]]  # never the new line itself


def test_it_edits_a_line(zelda, pippa):
    response = pippa.post(f"{LINES}/2/edit", {"to": "block first", "why": "learned", "expected": 2})
    assert response.status_code == 200
    assert response.json() == {"n": 2, "seq": 4, "session": None}


def test_a_stale_edit_is_a_409_carrying_the_current_words(zelda, pippa):
    pippa.post(f"{LINES}/2/edit", {"to": "block first", "why": "learned"})
    response = pippa.post(f"{LINES}/2/edit", {"to": "parry", "why": "again", "expected": 2})
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "conflict" and error["current"] == "block first" and error["current_seq"] == 4


def test_it_retires_a_line_into_another(zelda, pippa):
    response = pippa.post(f"{LINES}/2/retire", {"why": "said by #1", "into": 1})
    assert response.status_code == 200
    assert [line["n"] for line in pippa.get(LINES).json()["lines"]] == [1, 3]


def test_retiring_a_retired_line_is_a_409(zelda, pippa):
    pippa.post(f"{LINES}/2/retire", {"why": "wrong"})
    assert pippa.post(f"{LINES}/2/retire", {"why": "wrong"}).status_code == 409


def test_it_merges_lines_and_answers_201(zelda, pippa):
    response = pippa.post("/api/notebooks/zelda/merge", {"numbers": [1, 2], "text": "one line", "why": "same"})
    assert response.status_code == 201
    assert response.json() == {"n": 4, "seq": 4, "session": None, "seqs": [4, 5, 6]}


def test_a_write_to_an_unknown_line_is_a_404(zelda, pippa):
    assert pippa.post(f"{LINES}/42/edit", {"to": "x", "why": "y"}).status_code == 404
    assert pippa.post(f"{LINES}/42/retire", {"why": "y"}).status_code == 404


def test_a_write_to_an_unknown_notebook_is_a_404(zelda, pippa):
    body = {"text": "x", "source": "seen", "why": "y"}
    assert pippa.post("/api/notebooks/zeldo/lines", body).status_code == 404


BAD_BODIES = [
    ("not json", "{text: 1"),
    ("not an object", "[1, 2]"),
    ("null", "null"),
    ("empty", ""),
    ("unknown field", {"text": "x", "source": "seen", "why": "y", "by": "dad"}),
    ("missing why", {"text": "x", "source": "seen"}),
    ("text not a string", {"text": 7, "source": "seen", "why": "y"}),
    ("blank text", {"text": "   ", "source": "seen", "why": "y"}),
    ("blank why", {"text": "x", "source": "seen", "why": ""}),
    ("unknown source", {"text": "x", "source": "hearsay", "why": "y"}),
    ("source not a string", {"text": "x", "source": ["seen"], "why": "y"}),
    ("too long", {"text": "x" * 5000, "source": "seen", "why": "y"}),
    ("NUL", {"text": "a\x00b", "source": "seen", "why": "y"}),
    ("lone surrogate", '{"text": "\\ud800", "source": "seen", "why": "y"}'),
    ("huge number", '{"text": 1' + "0" * 5000 + ', "source": "seen", "why": "y"}'),
    ("deep nesting", '{"text": ' + "[" * 100000 + "]" * 100000 + ', "source": "seen", "why": "y"}'),
    ("NaN", '{"text": NaN, "source": "seen", "why": "y"}'),
]


@pytest.mark.parametrize(("case", "body"), BAD_BODIES, ids=[c for c, _ in BAD_BODIES])
def test_bad_input_to_add_is_a_400_and_writes_nothing(zelda, pippa, case, body):
    response = pippa.post(LINES, body)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "invalid"
    assert Row.objects.count() == 3


BAD_NUMBERS = [
    ("edit", {"to": "x", "why": "y", "expected": 2**64}),
    ("edit", {"to": "x", "why": "y", "expected": "2"}),
    ("edit", {"to": "x", "why": "y", "expected": True}),
    ("edit", {"to": "x", "why": "y", "expected": 1.5}),
    ("retire", {"why": "y", "into": 2**40}),
    ("retire", {"why": "y", "into": -1}),
    ("retire", {"why": "y", "into": "1"}),
]


@pytest.mark.parametrize(("verb", "body"), BAD_NUMBERS)
def test_wrong_or_huge_numbers_are_a_400(zelda, pippa, verb, body):
    response = pippa.post(f"{LINES}/2/{verb}", body)
    assert response.status_code == 400, response.content
    assert Row.objects.count() == 3


@pytest.mark.parametrize(
    "numbers", [[1], [1, 1], "1,2", [1, "2"], [1, 2**40], list(range(1, 1003)), [1, None]], ids=str
)
def test_a_bad_merge_list_is_a_400(zelda, pippa, numbers):
    response = pippa.post("/api/notebooks/zelda/merge", {"numbers": numbers, "text": "x", "why": "y"})
    assert response.status_code == 400
    assert Row.objects.count() == 3


def test_a_body_over_the_upload_limit_is_a_413(zelda, pippa, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    response = pippa.post(LINES, {"text": "x" * 200, "source": "seen", "why": "y"})
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"


def test_the_api_needs_no_csrf_token(zelda, pippa):
    pippa.client = type(pippa.client)(enforce_csrf_checks=True)
    response = pippa.post(LINES, {"text": "dodge", "source": "seen", "why": "seen"})
    assert response.status_code == 201


def test_a_refused_body_names_its_fields(zelda, pippa):
    error = pippa.post(LINES, {"text": "x", "source": "seen", "why": "y", "by": "dad"}).json()["error"]
    assert error["fields"] == ["by"] and "'by'" in error["message"]
    assert pippa.post(LINES, {"text": "x", "source": "seen"}).json()["error"]["fields"] == ["why"]
    merge = {"numbers": [1, "2"], "text": "x", "why": "y"}
    assert pippa.post("/api/notebooks/zelda/merge", merge).json()["error"]["fields"] == ["numbers"]
    assert "JSON object" in pippa.post(LINES, "[1]").json()["error"]["message"]


def test_an_agent_creates_a_notebook_and_writes_to_it(db, pippa):
    created = pippa.post("/api/notebooks", {"title": "celeste"})
    assert (created.status_code, created.json()) == (201, {"title": "celeste", "head": 0, "session": None})
    added = pippa.post("/api/notebooks/celeste/lines", {"text": "dash up then left", "source": "seen", "why": "saw"})
    assert added.status_code == 201 and added.json()["n"] == 1
    assert [x["title"] for x in pippa.get("/api/notebooks").json()["notebooks"]] == ["celeste"]


def test_a_notebook_is_created_once_and_only_under_a_title(zelda, pippa):
    taken = pippa.post("/api/notebooks", {"title": "zelda"})
    assert taken.status_code == 409 and "already exists" in taken.json()["error"]["message"]
    for bad in ({"title": " zelda"}, {"title": ""}, {"title": 5}, {"name": "celeste"}, {}):
        response = pippa.post("/api/notebooks", bad)
        assert response.status_code == 400 and response.json()["error"]["code"] == "invalid", bad
    assert [x["title"] for x in pippa.get("/api/notebooks").json()["notebooks"]] == ["zelda"]


def test_no_notebook_is_created_while_the_actor_holds_a_session_elsewhere(zelda, pippa):
    sid = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "tidy"}).json()["id"]
    refused = pippa.post("/api/notebooks", {"title": "celeste"})
    assert refused.status_code == 409
    assert (refused.json()["error"]["session"], refused.json()["error"]["notebook"]) == (sid, "zelda")
    assert [x["title"] for x in pippa.get("/api/notebooks").json()["notebooks"]] == ["zelda"]


def test_an_edit_takes_text_and_still_its_old_name_to(zelda, pippa):
    edited = pippa.post("/api/notebooks/zelda/lines/1/edit", {"text": "the guard swings three times", "why": "saw"})
    assert (edited.status_code, edited.json()) == (200, {"n": 1, "seq": 4, "session": None})
    old = pippa.post(
        "/api/notebooks/zelda/lines/1/edit", {"to": "the guard swings twice", "why": "wrong", "expected": 4}
    )
    assert (old.status_code, old.json()) == (200, {"n": 1, "seq": 5, "session": None})
    both = pippa.post("/api/notebooks/zelda/lines/1/edit", {"text": "a", "to": "b", "why": "c"})
    assert both.status_code == 400 and both.json()["error"]["fields"] == ["to"]
    neither = pippa.post("/api/notebooks/zelda/lines/1/edit", {"why": "c"})
    assert neither.status_code == 400 and neither.json()["error"]["fields"] == ["text"]
    assert pippa.get("/api/notebooks/zelda/lines").json()["seq"] == 5


def test_an_unknown_body_field_is_refused_naming_the_fields_the_body_takes(zelda, pippa):
    response = pippa.post("/api/notebooks/zelda/lines", {"text": "x", "source": "seen", "why": "y", "sorce": "seen"})
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert "'sorce': unknown field (it takes session, source, text, why)" in message  # as MCP's refusal says it


def test_an_add_without_a_source_is_seen_as_through_mcp(zelda, pippa):
    response = pippa.post("/api/notebooks/zelda/lines", {"text": "roll after the swing", "why": "saw it"})
    assert response.status_code == 201
    line = pippa.get(f"/api/notebooks/zelda/lines/{response.json()['n']}").json()["line"]
    assert line["source"] == "seen"
