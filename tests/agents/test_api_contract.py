"""The contract the harness relies on (docs/agents.md): today's documented requests replayed in order, each
answer's status, shape and error code checked, so a change of how the API is built cannot change what it says."""

import pytest

from notebooks.agents import paging
from notebooks.log.files import rowformat
from notebooks.log.identity import wordkeys
from tests.agent_helpers import Api

LINE_KEYS = {"n", "text", "source", "by", "at", "seq"}
SESSION_KEYS = {
    "id",
    "notebook",
    "actor",
    "role",
    "plan",
    "base",
    "at",
    "state",
    "events",
    "change_rows",
    "drift_rows",
    "lapsed_at",
}


def _error(response, status: int, code: str) -> dict:  # noqa: ANN001
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == code and isinstance(error["message"], str) and error["message"]
    return error


def test_the_reads_answer_as_documented(zelda, pippa):
    listed = {
        "notebooks": [{"title": "zelda", "head": 3, "session": None}],
        "after": None,
        "next": None,
        "more": False,
    }
    assert pippa.get("/api/notebooks").json() == listed
    lines = pippa.get("/api/notebooks/zelda/lines")
    assert lines.status_code == 200
    body = lines.json()
    assert set(body) == {
        "notebook",
        "until",
        "seq",
        "hash",
        "lines",
        "after",
        "next",
        "more",
        "session",
        "lapsed",
        "lapsed_retired",
    }
    assert (body["session"], body["lapsed"]) == (None, [])  # pippa holds no session
    assert (body["notebook"], body["until"], body["seq"], len(body["hash"])) == ("zelda", None, 3, 64)
    assert [(x["n"], x["text"], x["source"], x["by"], x["seq"]) for x in body["lines"]] == [
        (1, "the bridge guard swings twice", "seen", "pippa", 1),
        (2, "always attack first", "guessed", "pippa", 2),
        (3, "block first, then attack", "dad", "dad", 3),
    ]
    assert all(set(x) == LINE_KEYS and isinstance(x["at"], float) for x in body["lines"])
    at = body["lines"][0]["at"]
    then = pippa.get("/api/notebooks/zelda/lines", until=str(at)).json()
    assert (then["until"], then["seq"], [x["n"] for x in then["lines"]]) == (at, 1, [1])

    turn = pippa.get("/api/notebooks/zelda/turn").json()
    assert set(turn) == {"notebook", "until", "text", "session", "lapsed", "lapsed_retired"}
    assert turn["text"].startswith("# Notebook 'zelda' as it stood at ")
    assert turn["text"].splitlines()[-1] == rowformat.GAME_ONLY

    history = pippa.get("/api/notebooks/zelda/lines/2/history").json()
    assert (history["notebook"], history["n"]) == ("zelda", 2)
    entry = history["entries"][0]
    assert (entry["seq"], entry["op"], entry["text"], entry["source"], entry["by"], entry["why"]) == (
        2,
        "add",
        "always attack first",
        "guessed",
        "pippa",
        "a hunch",
    )

    rows = pippa.get("/api/notebooks/zelda/rows", after="1", limit="1").json()
    assert set(rows) == {"notebook", "after", "rows", "next", "more"}
    cursors = (rows["after"], rows["next"], rows["more"], [r["seq"] for r in rows["rows"]])
    assert cursors == (paging.encode("rows", 1), paging.encode("rows", 2), True, [2])
    assert {"op", "n", "seq", "hash", "at", "text", "source", "by"} <= set(rows["rows"][0])


def test_the_writes_answer_as_documented(zelda, pippa, dad_api):
    added = pippa.post("/api/notebooks/zelda/lines", {"text": "roll after the swing", "source": "seen", "why": "saw"})
    assert (added.status_code, added.json()) == (201, {"n": 4, "seq": 4, "session": None, "similar": []})
    edited = pippa.post("/api/notebooks/zelda/lines/4/edit", {"to": "roll twice", "why": "again", "expected": 4})
    assert (edited.status_code, edited.json()) == (200, {"n": 4, "seq": 5, "session": None})
    stale = _error(
        pippa.post("/api/notebooks/zelda/lines/4/edit", {"to": "x", "why": "y", "expected": 4}), 409, "conflict"
    )
    assert (stale["current"], stale["current_seq"]) == ("roll twice", 5)
    retired = pippa.post("/api/notebooks/zelda/lines/4/retire", {"why": "said by #1", "into": 1, "expected": 5})
    assert (retired.status_code, retired.json()) == (200, {"n": 4, "seq": 6, "session": None})
    merged = pippa.post("/api/notebooks/zelda/merge", {"numbers": [1, 2], "text": "one line", "why": "same"})
    assert (merged.status_code, merged.json()) == (201, {"n": 5, "seq": 7, "session": None, "seqs": [7, 8, 9]})
    merged = dad_api.post(
        "/api/notebooks/zelda/merge", {"numbers": [3, 5], "text": "both", "why": "same", "source": "dad"}
    )
    assert merged.status_code == 201 and merged.json()["n"] == 6
    # A merged line's history names the lines merged into it, each with what it said then (issue 21).
    history = pippa.get("/api/notebooks/zelda/lines/5/history").json()["entries"]
    assert [(e["op"], e["from_n"], e["how"], e["merged_from"]) for e in history] == [
        ("add", None, "", [1, 2]),
        ("retired_into", 1, "merged", []),
        ("retired_into", 2, "merged", []),
        ("strike", None, "merged", []),
    ]
    assert [e["text"] for e in history[1:3]] == ["the bridge guard swings twice", "always attack first"]
    redacted = dad_api.post("/api/notebooks/zelda/lines/6/redact", {"why": "a secret"})
    assert (redacted.status_code, redacted.json()) == (200, {"n": 6, "seq": 13, "session": None})
    by_digest = {"why": "x", "digest": wordkeys.keyed("zelda", "roll twice")[1]}
    assert dad_api.post("/api/notebooks/zelda/lines/4/redact", by_digest).status_code == 200


def test_the_sessions_answer_as_documented(zelda, pippa, reflector, dad_api):
    taken = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "tidy"})
    assert taken.status_code == 201
    sid = taken.json()["id"]
    assert taken.json() == {"id": sid, "notebook": "zelda", "base": 3, "drift": 3}
    holder = _error(reflector.post("/api/sessions", {"notebook": "zelda", "plan": "mine"}), 409, "conflict")
    assert holder["holder"] == "pippa"
    assert pippa.get("/api/notebooks").json()["notebooks"][0]["session"] == {"id": sid, "actor": "pippa"}
    pippa.post("/api/notebooks/zelda/lines", {"text": "new", "source": "seen", "why": "saw"})
    checkpoint = pippa.post(f"/api/sessions/{sid}/checkpoint", {"note": "one in"})
    assert (checkpoint.status_code, checkpoint.json()) == (200, {"id": sid, "base": 3, "head": 4})
    listed = pippa.get("/api/sessions", state="open").json()["sessions"]
    assert [s["id"] for s in listed] == [sid] and set(listed[0]) == SESSION_KEYS
    one = pippa.get(f"/api/sessions/{sid}").json()
    assert set(one) == SESSION_KEYS | {"change", "drift", "after", "next", "more"} and one["state"] == "open"
    assert [e["kind"] for e in one["events"]] == ["drift", "take", "checkpoint"]
    landed = pippa.post(f"/api/sessions/{sid}/land", {"summary": "one line"})
    assert landed.status_code == 200
    # head 5: the land's copy of the session's one proposal (seq 4), at the land's place in the log
    assert landed.json() == {"id": sid, "result": "landed", "base": 3, "head": 5, "rows": 1, "drift": 0}
    again = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "nothing"}).json()["id"]
    assert pippa.post(f"/api/sessions/{again}/land", {}).json()["result"] == "no-op"
    third = pippa.post("/api/sessions", {"notebook": "zelda", "plan": "give up"}).json()["id"]
    abandoned = dad_api.post(f"/api/sessions/{third}/abandon", {"why": "stuck"})
    assert abandoned.status_code == 200
    assert abandoned.json() == {"id": third, "result": "abandoned", "head": 5, "rows": 0, "drift": 0}
    _error(pippa.post(f"/api/sessions/{third}/land", {}), 409, "conflict")


REFUSALS = [
    ("get", "/api/notebooks/zelda/lines", None, None, 401, "unauthorized"),
    ("get", "/api/notebooks/zelda/lines", {"until": "yesterday"}, "pippa", 400, "invalid"),
    ("get", "/api/notebooks/zelda/rows", {"limit": "0"}, "pippa", 400, "invalid"),
    ("get", "/api/notebooks/zelda/rows", {"after": "x"}, "pippa", 400, "invalid"),
    ("get", "/api/sessions", {"state": "sideways"}, "pippa", 400, "invalid"),
    ("get", "/api/notebooks/zeldo/lines", None, "pippa", 404, "not_found"),
    ("get", "/api/notebooks/zelda/lines/99/history", None, "pippa", 404, "not_found"),
    ("get", "/api/notebooks/zelda/lines/x/history", None, "pippa", 400, "invalid"),
    ("get", "/api/sessions/999", None, "pippa", 404, "not_found"),
    ("get", "/api/nothing", None, "pippa", 404, "not_found"),
    ("post", "/api/notebooks/zelda/lines", "{not json", "pippa", 400, "invalid"),
    (
        "post",
        "/api/notebooks/zelda/lines",
        {"text": "x", "source": "seen", "why": "y", "by": "dad"},
        "pippa",
        400,
        "invalid",
    ),  # fmt: skip
    ("post", "/api/notebooks/zelda/lines", {"text": 7, "source": "seen", "why": "y"}, "pippa", 400, "invalid"),
    (
        "post",
        "/api/notebooks/zelda/lines",
        {"text": "x" * 5000, "source": "seen", "why": "y"},
        "pippa",
        400,
        "invalid",
    ),  # fmt: skip
    ("post", "/api/notebooks/zelda/lines/2/edit", {"to": "x", "why": "y", "expected": 2**64}, "pippa", 400, "invalid"),
    ("post", "/api/notebooks/zelda/lines", {"text": "x", "source": "dad", "why": "y"}, "pippa", 403, "forbidden"),
    ("post", "/api/notebooks/zelda/lines/3/retire", {"why": "mine"}, "pippa", 403, "forbidden"),
    ("post", "/api/notebooks/zelda/lines/2/redact", {"why": "mine"}, "pippa", 403, "forbidden"),
    ("post", "/api/notebooks/zeldo/lines", {"text": "x", "source": "seen", "why": "y"}, "pippa", 404, "not_found"),
    ("post", "/api/sessions/999/land", {}, "pippa", 404, "not_found"),
    ("post", "/api/sessions/abc/land", {}, "pippa", 400, "invalid"),
    ("delete", "/api/notebooks/zelda/lines", None, "pippa", 405, "method_not_allowed"),
    ("post", "/api/notebooks/zelda/turn", {}, "pippa", 405, "method_not_allowed"),
    ("post", "/api/openapi.json", {}, None, 405, "method_not_allowed"),
]


@pytest.mark.parametrize(("method", "path", "data", "who", "status", "code"), REFUSALS, ids=range(len(REFUSALS)))
def test_each_refusal_keeps_its_status_and_code(zelda, pippa, method, path, data, who, status, code):
    api = pippa if who else Api(None)
    if method == "get":
        response = api.get(path, **(data or {}))
    elif method == "post":
        response = api.post(path, data)
    else:
        response = api.client.delete(path, **api._headers())
    _error(response, status, code)
    if status == 401:
        assert response["WWW-Authenticate"].startswith("Bearer")
    if status == 405:
        assert response["Allow"]


def test_a_body_too_large_is_a_413(zelda, pippa, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    _error(
        pippa.post("/api/notebooks/zelda/lines", {"text": "x" * 200, "source": "seen", "why": "y"}), 413, "too_large"
    )


def test_the_document_is_served_without_a_token(zelda):
    doc = Api(None).get("/api/openapi.json")
    assert doc.status_code == 200 and doc.json()["openapi"].startswith("3.")
    paths = doc.json()["paths"]
    for path, methods in {
        "/api/notebooks": {"get", "post"},
        "/api/notebooks/{notebook}/lines": {"get", "post"},
        "/api/notebooks/{notebook}/turn": {"get"},
        "/api/notebooks/{notebook}/lines/{n}/history": {"get"},
        "/api/notebooks/{notebook}/rows": {"get"},
        "/api/notebooks/{notebook}/lines/{n}/edit": {"post"},
        "/api/notebooks/{notebook}/lines/{n}/retire": {"post"},
        "/api/notebooks/{notebook}/lines/{n}/redact": {"post"},
        "/api/notebooks/{notebook}/merge": {"post"},
        "/api/sessions": {"get", "post"},
        "/api/sessions/{session}": {"get"},
        "/api/sessions/{session}/checkpoint": {"post"},
        "/api/sessions/{session}/land": {"post"},
        "/api/sessions/{session}/abandon": {"post"},
    }.items():
        assert methods <= set(paths[path]), path
