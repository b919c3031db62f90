"""POST /api/notebooks/<title>/suggestions: a suggestion stored (201) for Dad to decide, or the one already there
(200, already); refused with the API's codes (a line not live 404 naming it, 401, 400, 429 with Retry-After); a
retry with its Idempotency-Key answers its first answer; the document declares it."""

import json

import pytest

from notebooks.agents import tokens
from notebooks.log import services
from notebooks.models import Row, Suggestion
from notebooks.similar import services as marks
from tests.agent_helpers import DAD

URL = "/api/notebooks/zelda/suggestions"
REPEAT = {"lines": [1, 2], "kind": "repeat", "why": "both say block before you attack", "words": "block, then attack"}


@pytest.fixture
def game(zelda):  # noqa: ANN001, ANN201
    services.add(notebook="zelda", text="buy milk", source="guessed", by="pippa", why="a hunch")  # #4
    return zelda


def test_a_suggestion_is_stored_201_and_writes_no_row(game, pippa):
    rows = Row.objects.count()
    answer = pippa.post(URL, REPEAT)
    assert answer.status_code == 201
    body = answer.json()
    assert body["already"] is None and body["mark"] is None
    item = body["suggestion"]
    assert {k: item[k] for k in ("notebook", "lines", "kind", "words", "keep", "why", "by")} == {
        "notebook": "zelda", "lines": [1, 2], "kind": "repeat", "words": "block, then attack", "keep": None,
        "why": "both say block before you attack", "by": "pippa",
    }  # fmt: skip
    assert item["id"] == Suggestion.objects.get().pk and item["at"] > 0
    assert Row.objects.count() == rows


def test_the_same_pending_answers_200_already_pending(game, pippa, reflector):
    first = pippa.post(URL, REPEAT).json()["suggestion"]
    again = reflector.post(URL, {**REPEAT, "why": "mine too"})
    assert again.status_code == 200 and again.json()["already"] == "pending"
    assert again.json()["suggestion"] == first and Suggestion.objects.count() == 1


def test_lines_marked_not_alike_answer_200_already_not_alike(game, pippa):
    mark = marks.mark_not_alike(notebook="zelda", numbers=[1, 2], by=DAD)
    answer = pippa.post(URL, REPEAT)
    assert answer.status_code == 200
    assert answer.json()["already"] == "not_alike" and answer.json()["mark"]["id"] == mark.pk
    assert answer.json()["mark"]["lines"] == [1, 2] and answer.json()["suggestion"] is None
    assert not Suggestion.objects.exists()


def test_a_line_not_live_is_404_naming_it(game, pippa):
    services.retire(notebook="zelda", n=2, by="pippa", why="gone")
    answer = pippa.post(URL, {**REPEAT, "lines": [1, 2, 40]})
    assert answer.status_code == 404
    error = answer.json()["error"]
    assert error["code"] == "not_found" and error["lines"] == [2, 40] and "#2, #40" in error["message"]


def test_no_notebook_is_404_and_no_token_or_a_revoked_one_401(game, pippa):
    assert pippa.post("/api/notebooks/zeldo/suggestions", REPEAT).status_code == 404
    from tests.agent_helpers import Api

    assert Api(None).post(URL, REPEAT).status_code == 401
    tokens.revoke(actor="pippa")
    refused = pippa.post(URL, REPEAT)
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
    assert not Suggestion.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        {**REPEAT, "kind": "dupe"},
        {**REPEAT, "lines": []},
        {**REPEAT, "lines": [1]},
        {**REPEAT, "lines": ["1", "2"]},
        {**REPEAT, "why": ""},
        {**REPEAT, "extra": 1},
        {**REPEAT, "keep": 3},
        {"lines": [1, 2], "kind": "conflict", "why": "x", "words": "y"},
        {"lines": [1, 2], "kind": "repeat"},
    ],
)
def test_bad_input_is_400(game, pippa, body):
    answer = pippa.post(URL, body)
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid"
    assert not Suggestion.objects.exists()


def test_past_the_bound_429_too_many_suggestions_with_retry_after(game, pippa, settings):
    settings.NOTEBOOK_PENDING_SUGGESTIONS = 1
    assert pippa.post(URL, REPEAT).status_code == 201
    refused = pippa.post(URL, {"lines": [4], "kind": "stray", "why": "not the game"})
    assert refused.status_code == 429 and refused["Retry-After"] == "3600"
    assert refused.json()["error"]["code"] == "too_many_suggestions" and refused.json()["error"]["limit"] == 1
    assert pippa.post(URL, REPEAT).status_code == 200  # the one there is still answered


def test_a_retry_with_its_key_answers_the_first_answer(game, pippa, settings):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {pippa.secret}", "HTTP_IDEMPOTENCY_KEY": "suggest-1"}
    send = lambda: pippa.client.post(URL, json.dumps(REPEAT), content_type="application/json", **headers)  # noqa: E731
    first, again = send(), send()
    assert first.status_code == again.status_code == 201 and first.content == again.content
    assert again["Idempotent-Replayed"] == "true" and Suggestion.objects.count() == 1


def test_the_document_declares_it(client, db):
    doc = client.get("/api/openapi.json").json()
    op = doc["paths"]["/api/notebooks/{notebook}/suggestions"]["post"]
    assert op["operationId"] == "suggestLines" and op["tags"] == ["lines"]
    assert {"200", "201", "400", "401", "403", "404", "409", "413", "422", "429", "503"} <= set(op["responses"])
    assert "too many suggestions pending" in op["responses"]["429"]["headers"]["Retry-After"]["description"].lower()
    body = doc["components"]["schemas"]["SuggestIn"]
    assert body["properties"]["kind"]["enum"] == ["repeat", "conflict", "stray"]
    assert set(body["required"]) == {"lines", "kind", "why"} and body["additionalProperties"] is False
    assert "too_many_suggestions" in doc["components"]["schemas"]["Problem"]["properties"]["code"]["enum"]
