"""Retries are safe: a write sent again with its Idempotency-Key (the API's header, the MCP tools' idempotency_key)
answers its first answer and writes nothing; the key with another request is refused; keys are each actor's own and
last a day; the key and the write's rows are stored together or not at all."""

import json
import re

import anyio
import psycopg
import pytest
from django.db import connection

from notebooks.agents import idempotency
from notebooks.log import services
from notebooks.models import IdempotencyKey, Row, Session, SessionEvent
from tests.mcp_client import mcp_session

LINES = "/api/notebooks/zelda/lines"
ADD = {"text": "roll after the second swing", "source": "seen", "why": "died twice"}


def send(api, path, body, key=None):  # noqa: ANN001, ANN201
    """A POST of `body` with the api's token and, when given, an Idempotency-Key."""
    headers = {"HTTP_AUTHORIZATION": f"Bearer {api.secret}"}
    if key is not None:
        headers["HTTP_IDEMPOTENCY_KEY"] = key
    return api.client.post(path, json.dumps(body), content_type="application/json", **headers)


def twice(api, path, body, key):  # noqa: ANN001, ANN201
    """The write sent, then sent again as a client that lost the first answer would; the rows each added."""
    before = Row.objects.count()
    first = send(api, path, body, key)
    middle = Row.objects.count()
    again = send(api, path, body, key)
    return first, again, middle - before, Row.objects.count() - middle


def assert_alike(first, again) -> None:  # noqa: ANN001
    assert (again.status_code, again.content) == (first.status_code, first.content)
    assert again["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first


# ----- a retry with one key writes once and answers alike ----------------------------------------------------------


def test_a_retried_add_with_one_key_writes_one_line_and_answers_alike(zelda, pippa):
    first, again, wrote, rewrote = twice(pippa, LINES, ADD, "add-1")
    assert first.status_code == 201 and first.json()["n"] == 4
    assert_alike(first, again)
    assert (wrote, rewrote) == (1, 0)
    assert [x["n"] for x in pippa.get(LINES).json()["lines"]] == [1, 2, 3, 4]


def test_a_retried_create_with_one_key_makes_one_notebook_and_answers_alike(zelda, pippa):
    from notebooks.models import Notebook

    first = send(pippa, "/api/notebooks", {"title": "hollow knight"}, "nb-1")
    again = send(pippa, "/api/notebooks", {"title": "hollow knight"}, "nb-1")
    assert first.status_code == 201 and first.json()["title"] == "hollow knight"
    assert_alike(first, again)
    assert Notebook.objects.filter(title="hollow knight").count() == 1
    unkeyed = send(pippa, "/api/notebooks", {"title": "hollow knight"})
    assert unkeyed.status_code == 409  # without a key a second create is the title taken


def test_a_retried_edit_with_one_key_writes_one_row_and_answers_alike(zelda, pippa):
    first, again, wrote, rewrote = twice(pippa, f"{LINES}/2/edit", {"to": "block first", "why": "learned"}, "e-1")
    assert first.status_code == 200 and first.json() == {"n": 2, "seq": 4, "session": None}
    assert_alike(first, again)
    assert (wrote, rewrote) == (1, 0)


def test_a_retried_retire_with_one_key_writes_one_strike_and_answers_alike(zelda, pippa):
    first, again, wrote, rewrote = twice(pippa, f"{LINES}/2/retire", {"why": "said by #1", "into": 1}, "r-1")
    assert first.status_code == 200
    assert_alike(first, again)
    assert (wrote, rewrote) == (1, 0)


def test_a_retried_merge_with_one_key_writes_one_merge_and_answers_alike(zelda, pippa):
    body = {"numbers": [1, 2], "text": "one line", "why": "same"}
    first, again, wrote, rewrote = twice(pippa, "/api/notebooks/zelda/merge", body, "m-1")
    assert first.status_code == 201 and first.json() == {"n": 4, "seq": 4, "session": None, "seqs": [4, 5, 6]}
    assert_alike(first, again)
    assert (wrote, rewrote) == (3, 0)


def test_a_retried_take_and_land_with_one_key_each_take_and_land_once(zelda, pippa):
    took, took_again, *_ = twice(pippa, "/api/sessions", {"notebook": "zelda", "plan": "tidy"}, "take-1")
    assert took.status_code == 201
    assert_alike(took, took_again)
    assert Session.objects.count() == 1
    sid = took.json()["id"]
    send(pippa, LINES, ADD)
    landed, landed_again, *_ = twice(pippa, f"/api/sessions/{sid}/land", {"summary": "the guard"}, "land-1")
    assert landed.status_code == 200 and landed.json()["result"] == "landed"
    assert_alike(landed, landed_again)
    assert SessionEvent.objects.filter(session_id=sid, kind="land").count() == 1


def test_a_retried_checkpoint_and_abandon_with_one_key_each_write_one_event(zelda, pippa):
    sid = send(pippa, "/api/sessions", {"notebook": "zelda", "plan": "tidy"}).json()["id"]
    for verb, body in (("checkpoint", {"note": "so far"}), ("abandon", {"why": "wrong plan"})):
        first, again, *_ = twice(pippa, f"/api/sessions/{sid}/{verb}", body, f"{verb}-1")
        assert first.status_code == 200
        assert_alike(first, again)
        assert SessionEvent.objects.filter(session_id=sid, kind=verb).count() == 1, verb


def test_a_retried_redaction_with_one_key_redacts_once(zelda, dad_api):
    first, again, wrote, rewrote = twice(dad_api, f"{LINES}/1/redact", {"why": "a secret"}, "red-1")
    assert first.status_code == 200
    assert_alike(first, again)
    assert (wrote, rewrote) == (1, 0)


# ----- the key with another request, another actor, an old key ----------------------------------------------------


def test_a_key_sent_with_another_body_is_refused_with_nothing_written(zelda, pippa):
    send(pippa, LINES, ADD, "k")
    before = Row.objects.count()
    response = send(pippa, LINES, {**ADD, "text": "parry the third swing"}, "k")
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "idempotency_mismatch" and "'k'" in error["message"]
    assert error["fields"] == ["Idempotency-Key"]
    assert Row.objects.count() == before


def test_a_key_sent_to_another_write_is_refused_with_nothing_written(zelda, pippa):
    send(pippa, LINES, ADD, "k")
    before = Row.objects.count()
    response = send(pippa, f"{LINES}/2/retire", {"why": "wrong"}, "k")
    assert response.status_code == 422 and response.json()["error"]["code"] == "idempotency_mismatch"
    assert Row.objects.count() == before and Session.objects.count() == 0


def test_the_same_body_in_another_order_is_the_same_request(zelda, pippa):
    first = send(pippa, LINES, ADD, "k")
    again = send(pippa, LINES, dict(reversed(list(ADD.items()))), "k")
    assert_alike(first, again)


def test_two_actors_keys_are_their_own(zelda, pippa, reflector):
    mine = send(pippa, LINES, ADD, "shared-key")
    theirs = send(reflector, LINES, ADD, "shared-key")
    assert (mine.json()["n"], theirs.json()["n"]) == (4, 5)
    assert "Idempotent-Replayed" not in theirs
    assert IdempotencyKey.objects.filter(key="shared-key").count() == 2


def test_a_key_older_than_a_day_is_a_fresh_write(zelda, pippa, settings):
    first = send(pippa, LINES, ADD, "old")
    IdempotencyKey.objects.update(at=IdempotencyKey.objects.get().at - settings.NOTEBOOK_IDEMPOTENCY_TTL - 1)
    again = send(pippa, LINES, ADD, "old")
    assert (first.json()["n"], again.json()["n"]) == (4, 5)
    assert "Idempotent-Replayed" not in again
    assert IdempotencyKey.objects.filter(key="old").count() == 1  # the old use gave way to the new one


def test_a_keyed_write_sweeps_the_keys_older_than_a_day(zelda, pippa, settings):
    send(pippa, LINES, ADD, "old")
    IdempotencyKey.objects.update(at=IdempotencyKey.objects.get().at - settings.NOTEBOOK_IDEMPOTENCY_TTL - 1)
    send(pippa, f"{LINES}/2/retire", {"why": "wrong"}, "new")
    assert list(IdempotencyKey.objects.values_list("key", flat=True)) == ["new"]


# ----- what is not kept, and what a retry without a key does -----------------------------------------------------


def test_a_refusal_is_not_kept_so_its_retry_runs_again(pippa, db):
    body = {"notebook": "zelda", "plan": "tidy"}
    assert send(pippa, "/api/sessions", body, "t").status_code == 404  # no such notebook yet
    services.create_notebook(title="zelda", by="test")
    assert send(pippa, "/api/sessions", body, "t").status_code == 201
    assert IdempotencyKey.objects.count() == 1


def test_a_retry_without_a_key_writes_again_as_it_always_has(zelda, pippa):
    assert [send(pippa, LINES, ADD).json()["n"] for _ in range(2)] == [4, 5]


def test_a_retried_edit_without_a_key_is_refused_as_unchanged_not_as_bad_input(zelda, pippa):
    body = {"to": "block first", "why": "learned"}
    assert send(pippa, f"{LINES}/2/edit", body).status_code == 200
    again = send(pippa, f"{LINES}/2/edit", body)
    assert again.status_code == 400 and again.json()["error"]["code"] == "unchanged"


def test_a_retried_edit_without_a_key_sent_with_expected_is_a_conflict_showing_the_words_written(zelda, pippa):
    body = {"text": "block first, then strike", "why": "learned", "expected": 2}
    first = send(pippa, f"{LINES}/2/edit", body)
    assert first.status_code == 200
    again = send(pippa, f"{LINES}/2/edit", body)
    assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"  # not 400 unchanged
    error = again.json()["error"]
    assert (error["current"], error["current_seq"]) == ("block first, then strike", first.json()["seq"])


@pytest.mark.parametrize("key", ["", "a b", "x" * 256, "caf\u00e9", 'say "hi"', "back\\slash"])
def test_a_bad_key_is_a_400_naming_the_header_with_nothing_written(zelda, pippa, key):
    before = Row.objects.count()
    response = send(pippa, LINES, ADD, key)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid" and error["fields"] == ["Idempotency-Key"]
    assert Row.objects.count() == before and IdempotencyKey.objects.count() == 0


def test_the_drafts_quoted_key_is_the_key_inside_the_quotes(zelda, pippa):
    first = send(pippa, LINES, ADD, '"8e03978e-40d5-43e8-bc93-6894a57f9324"')
    assert_alike(first, send(pippa, LINES, ADD, "8e03978e-40d5-43e8-bc93-6894a57f9324"))


# ----- a key still being answered; a crash between rows and key ---------------------------------------------------


def test_a_key_sent_again_while_its_first_request_runs_is_a_409(zelda, pippa, monkeypatch):
    meanwhile = []
    add = services.add

    def add_and_retry(**kwargs):  # noqa: ANN003, ANN202
        meanwhile.append(send(pippa, LINES, ADD, "busy"))  # the client's retry, while the first is still running
        return add(**kwargs)

    monkeypatch.setattr(services, "add", add_and_retry)
    first = send(pippa, LINES, ADD, "busy")
    assert first.status_code == 201
    (retry,) = meanwhile
    assert retry.status_code == 409 and retry.json()["error"]["code"] == "idempotency_in_progress"
    assert Row.objects.filter(op="add").count() == 4


def test_a_key_still_being_answered_says_when_to_send_it_again(zelda, pippa, monkeypatch):
    meanwhile = []
    add = services.add

    def add_and_retry(**kwargs):  # noqa: ANN003, ANN202
        meanwhile.append(send(pippa, LINES, ADD, "soon"))
        return add(**kwargs)

    monkeypatch.setattr(services, "add", add_and_retry)
    assert send(pippa, LINES, ADD, "soon").status_code == 201
    (retry,) = meanwhile
    assert retry.status_code == 409 and retry["Retry-After"] == str(idempotency.IN_PROGRESS_RETRY)
    assert 1 <= idempotency.IN_PROGRESS_RETRY <= 10


@pytest.mark.vendor("postgresql")
def test_a_key_held_by_another_process_is_a_409_on_postgresql(zelda, pippa):
    lock = f"{idempotency.PG_LOCK}\npippa\nelsewhere"
    cfg = connection.settings_dict
    other = psycopg.connect(
        dbname=cfg["NAME"], host=cfg["HOST"] or "127.0.0.1", port=cfg["PORT"] or 5432, user=cfg["USER"],
        password=cfg["PASSWORD"] or None, autocommit=True,
    )  # fmt: skip
    with other:
        assert other.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", [lock]).fetchone()[0]
        response = send(pippa, LINES, ADD, "elsewhere")
    assert response.status_code == 409 and response.json()["error"]["code"] == "idempotency_in_progress"
    assert Row.objects.filter(op="add").count() == 3


def _crash_once_stored(monkeypatch):  # noqa: ANN001, ANN202
    """The key and its answer stored, then a failure before the transaction commits (a crash, a lost connection)."""
    store = idempotency._store

    def store_then_fail(asked, answer):  # noqa: ANN001, ANN202
        store(asked, answer)
        assert IdempotencyKey.objects.filter(key=asked.key).exists()  # written, in the rows' own transaction
        raise RuntimeError("the process died before the commit")

    monkeypatch.setattr(idempotency, "_store", store_then_fail)


def test_a_failure_after_the_key_is_stored_leaves_neither_the_line_nor_the_key(zelda, pippa, monkeypatch):
    _crash_once_stored(monkeypatch)
    before = Row.objects.count()
    with pytest.raises(RuntimeError, match="died"):
        send(pippa, LINES, ADD, "crash")
    assert Row.objects.count() == before and IdempotencyKey.objects.count() == 0
    monkeypatch.undo()
    assert send(pippa, LINES, ADD, "crash").json()["n"] == 4  # the retry then writes it, once


def test_a_failure_after_a_takes_key_is_stored_leaves_neither_the_session_nor_the_key(zelda, pippa, monkeypatch):
    _crash_once_stored(monkeypatch)
    with pytest.raises(RuntimeError, match="died"):
        send(pippa, "/api/sessions", {"notebook": "zelda", "plan": "tidy"}, "crash")
    assert Session.objects.count() == 0 and SessionEvent.objects.count() == 0
    assert IdempotencyKey.objects.count() == 0


def test_a_failure_after_a_lands_key_is_stored_leaves_the_session_open_and_no_key(zelda, pippa, monkeypatch):
    sid = send(pippa, "/api/sessions", {"notebook": "zelda", "plan": "tidy"}).json()["id"]
    send(pippa, LINES, ADD)
    _crash_once_stored(monkeypatch)
    with pytest.raises(RuntimeError, match="died"):
        send(pippa, f"/api/sessions/{sid}/land", {"summary": "the guard"}, "crash")
    assert not SessionEvent.objects.filter(session_id=sid, kind="land").exists()
    assert IdempotencyKey.objects.count() == 0


# ----- the document -------------------------------------------------------------------------------------------------


def test_the_document_declares_the_header_and_the_422_on_every_write(pippa, db):
    doc = pippa.client.get("/api/openapi.json").json()
    writes = [op for methods in doc["paths"].values() for verb, op in methods.items() if verb == "post"]
    # create, add, edit, retire, restore, put back, redact, merge, suggest, take, checkpoint, withdraw, land, abandon
    assert len(writes) == 14
    for op in writes:
        (header,) = [p for p in op["parameters"] if p["name"] == "Idempotency-Key"]
        assert header["in"] == "header" and not header["required"] and header["schema"]["maxLength"] == 255
        assert "idempotency_mismatch" in op["responses"]["422"]["description"], op["operationId"]
        assert op["responses"]["422"]["content"] == op["responses"]["400"]["content"]
    reads = [op for methods in doc["paths"].values() for verb, op in methods.items() if verb == "get"]
    assert not any(p["name"] == "Idempotency-Key" for op in reads for p in op.get("parameters", []))


# ----- MCP: the idempotency_key argument ----------------------------------------------------------------------------

SETUP = """
import django
django.setup()
from notebooks.log import services
from notebooks.log.identity.roles import Actor
services.create_notebook(title="zelda", by="test")
services.create_notebook(title="metroid", by="test")
for text in ("the bridge guard swings twice", "always attack first", "roll late"):
    services.add(notebook="zelda", text=text, source="seen", by="pippa", why="seen")
services.add(notebook="metroid", text="bomb the floor", source="seen", by="pippa", why="seen")
"""
COUNT = """
import django
django.setup()
from notebooks.models import IdempotencyKey, Row, SessionEvent
print(Row.objects.count(), SessionEvent.objects.filter(kind="land").count(), IdempotencyKey.objects.count())
"""


async def _mcp_twice(env: dict[str, str]) -> dict:
    out: dict = {}
    async with mcp_session(env) as (client, _info):
        out["inputs"] = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}

        async def call(name: str, **arguments: object) -> object:
            result = await client.call_tool(name, arguments)
            if result.is_error:
                return ("error", result.content[0].text)
            return result.structured_content

        async def both(name: str, key: str, **arguments: object) -> tuple:
            first = await call(name, idempotency_key=key, **arguments)
            return first, await call(name, idempotency_key=key, **arguments)

        out["add"] = await both("add", "a", notebook="metroid", text="wall jump", why="did it")
        out["edit"] = await both("edit", "e", notebook="metroid", n=1, to="bomb the wall", why="it was")
        out["retire"] = await both("retire", "r", notebook="metroid", n=2, why="wrong")
        out["take"] = await both("take", "t", notebook="zelda", plan="tidy the bridge")
        sid = out["take"][0]["id"]
        out["merge"] = await both("merge", "m", notebook="zelda", numbers=[1, 3], text="roll late", why="same")
        out["land"] = await both("land", "l", session=sid, summary="one line for two")
        out["other"] = await call("add", idempotency_key="a", notebook="metroid", text="other", why="x")
        out["bad"] = await call("add", idempotency_key="a b", notebook="metroid", text="other", why="x")
    return out


@pytest.fixture(scope="module")
def mcp_calls(scratch_templates):  # noqa: ANN001, ANN201
    db = scratch_templates.new()
    db.run("-c", SETUP)
    out = anyio.run(_mcp_twice, db.env())
    out["counts"] = [int(x) for x in db.run("-c", COUNT).stdout.split()]
    return out


def test_a_retried_mcp_write_with_one_key_answers_alike(mcp_calls):
    for name in ("add", "edit", "retire", "take", "merge", "land"):
        first, again = mcp_calls[name]
        assert isinstance(first, dict) and first == again, name
    assert mcp_calls["land"][0]["result"] == "landed" and mcp_calls["land"][0]["rows"] == 3


def test_retried_mcp_writes_with_one_key_each_write_once(mcp_calls):
    rows, lands, keys = mcp_calls["counts"]
    # The setup's, an add, an edit, a strike, a merge's three proposals (add, 2 strikes), the land's copies of those.
    assert rows == 4 + 1 + 1 + 1 + 3 + 3
    assert (lands, keys) == (1, 6)


def test_an_mcp_key_with_other_arguments_is_refused_in_the_projects_words(mcp_calls):
    kind, text = mcp_calls["other"]
    assert kind == "error" and "idempotency_mismatch (422): idempotency_key 'a' was already used" in text
    kind, text = mcp_calls["bad"]
    assert kind == "error" and re.search(r"invalid \(400\): Bad idempotency_key", text)


def test_every_mcp_write_tool_takes_an_optional_idempotency_key(mcp_calls):
    for name in ("add", "edit", "retire", "merge", "take", "checkpoint", "land", "abandon"):
        schema = mcp_calls["inputs"][name]
        assert "idempotency_key" in schema["properties"] and "idempotency_key" not in schema.get("required", []), name
    assert "idempotency_key" not in mcp_calls["inputs"]["view"]["properties"]
