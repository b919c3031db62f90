"""The API reads a redacted line as "[redacted: why]" everywhere; the secret is in no answer."""

from notebooks.log import redaction
from tests.agent_helpers import DAD


def test_no_api_read_gives_redacted_words(zelda, pippa):
    redaction.redact(notebook="zelda", n=2, by=DAD, why="a password")
    mark = "[redacted: a password]"
    answers = [
        pippa.get("/api/notebooks/zelda/lines"),
        pippa.get("/api/notebooks/zelda/lines/2/history"),
        pippa.get("/api/notebooks/zelda/turn"),
        pippa.get("/api/notebooks/zelda/rows"),
    ]
    for answer in answers:
        assert answer.status_code == 200
        body = answer.content.decode()
        assert "always attack first" not in body
        assert mark in body
    lines = answers[0].json()["lines"]
    assert [line["text"] for line in lines if line["n"] == 2] == [mark]
