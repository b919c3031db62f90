"""A write the database could not take (its disk full, its connection lost) answers 503 with Retry-After, through the
API, the card and MCP; any other database error is left alone."""

import pytest
from django.db import InterfaceError, OperationalError

from notebooks.log import services
from notebooks.log.store import storage
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


class AdminShutdown(Exception):
    sqlstate = "57P01"  # as psycopg's error for pg_terminate_backend carries it


def connection_lost() -> OperationalError:
    exc = OperationalError("terminating connection due to administrator command")
    exc.__cause__ = AdminShutdown("terminating connection due to administrator command")
    return exc


@pytest.fixture
def lost(monkeypatch):  # noqa: ANN001, ANN201
    def cut(**kwargs: object) -> None:
        raise connection_lost()

    monkeypatch.setattr(services, "add", cut)


def test_an_api_write_whose_connection_was_lost_is_a_503_that_says_it_may_stand(zelda, pippa, lost):
    response = pippa.post("/api/notebooks/zelda/lines", {"text": "the moat", "source": "seen", "why": "saw it"})
    assert response.status_code == 503
    assert response["Retry-After"] == "10"
    assert response.json()["error"]["code"] == "unavailable"
    assert "may or may not stand" in response.json()["error"]["message"]


def test_a_card_write_whose_connection_was_lost_is_a_503(editor_client, zelda, lost):
    response = editor_client.post("/notebooks/zelda/add/", {"words": "the moat", "reason": "saw it"})
    assert response.status_code == 503
    assert b"connection to the database was lost" in response.content


@pytest.mark.parametrize(
    "exc",
    [
        OperationalError("server closed the connection unexpectedly"),
        OperationalError("consuming input failed: server closed the connection unexpectedly"),
        InterfaceError("connection already closed"),
        connection_lost(),
    ],
    ids=["closed", "consuming", "interface", "sqlstate"],
)
def test_each_way_a_connection_is_lost_is_told_from_other_errors(exc):
    assert storage.unavailable(exc) == storage.CONNECTION_LOST


def test_any_other_database_error_is_left_alone(zelda, pippa, monkeypatch):
    def broken(**kwargs: object) -> None:
        raise OperationalError("no such table: notebooks_row")

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
    def cut() -> None:
        raise connection_lost()

    result = cut()
    assert result.is_error and result.structured_content["error"]["code"] == "unavailable"
    assert "may or may not stand" in result.content[0].text

    @_tool
    def broken() -> None:
        raise OperationalError("no such table: notebooks_row")

    with pytest.raises(OperationalError):  # any other database error is left alone
        broken()
