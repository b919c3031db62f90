"""A write refused because the database's disk is full answers 503 with Retry-After, through the API and the card."""

import pytest
from django.db import OperationalError

from notebooks.log import services
from notebooks.log.views import selectors


@pytest.fixture
def disk_full(monkeypatch):  # noqa: ANN001, ANN201
    def full(**kwargs: object) -> None:
        raise OperationalError("database or disk is full")

    monkeypatch.setattr(services, "add", full)


def test_an_api_write_on_a_full_disk_is_a_503_saying_so(zelda, pippa, disk_full):
    response = pippa.post("/api/notebooks/zelda/lines", {"text": "the moat", "source": "seen", "why": "saw it"})
    assert response.status_code == 503
    assert response["Retry-After"] == "10"
    assert response.json()["error"]["code"] == "unavailable"
    assert "disk is full" in response.json()["error"]["message"]
    assert len(selectors.view(zelda)) == 3


def test_a_card_write_on_a_full_disk_is_a_503(editor_client, zelda, disk_full):
    response = editor_client.post("/notebooks/zelda/add/", {"words": "the moat", "reason": "saw it"})
    assert response.status_code == 503
    assert b"disk is full" in response.content


def test_any_other_database_error_is_left_alone(zelda, pippa, monkeypatch):
    def broken(**kwargs: object) -> None:
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(services, "add", broken)
    with pytest.raises(OperationalError):
        pippa.post("/api/notebooks/zelda/lines", {"text": "the moat", "source": "seen", "why": "saw it"})


def test_an_mcp_write_on_a_full_disk_is_a_503_refusal_saying_so_not_a_crash(db, monkeypatch):
    from django.db import connections

    from notebooks.agents.mcp_server import _tool

    monkeypatch.setattr(connections, "close_all", lambda: None)  # the test's own connection stays open

    @_tool
    def write() -> None:
        raise OperationalError("database or disk is full")

    result = write()
    assert result.is_error and result.structured_content["error"]["code"] == "unavailable"
    assert result.content[0].text.startswith("unavailable (503): The database's disk is full: nothing was written")

    @_tool
    def broken() -> None:
        raise OperationalError("server closed the connection unexpectedly")

    with pytest.raises(OperationalError):  # any other database error is left alone
        broken()
