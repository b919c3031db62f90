"""`/healthz`: 200 with the database answering and the append-only triggers in place, 503 otherwise, no sign-in."""

import pytest
from django.db import OperationalError, connection

from notebooks.log.store import triggers


def _drop_one_trigger() -> str:
    table = "notebooks_row"
    name = sorted(triggers.expected_triggers(connection.vendor, (table,)))[0]
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TRIGGER {name}" + (f" ON {table}" if connection.vendor == "postgresql" else ""))
    return name


@pytest.mark.django_db
def test_healthz_answers_200_without_a_sign_in(client) -> None:  # noqa: ANN001
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "triggers": "ok"}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_healthz_answers_503_when_a_trigger_is_missing(client) -> None:  # noqa: ANN001
    name = _drop_one_trigger()  # rolled back with the test's transaction
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["triggers"] == "1 append-only trigger(s) missing"
    assert name not in response.content.decode()  # states only


@pytest.mark.django_db
def test_healthz_answers_503_when_the_database_does_not_answer(client, monkeypatch) -> None:  # noqa: ANN001
    secret = "password authentication failed for user notebooks_app at db.example"

    def refuse(*args: object, **kwargs: object) -> None:
        raise OperationalError(secret)

    monkeypatch.setattr(connection, "cursor", refuse)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "unreachable"}
    assert b"notebooks_app" not in response.content


@pytest.mark.django_db
def test_healthz_is_exempt_from_the_https_redirect(client, settings) -> None:  # noqa: ANN001
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/healthz").status_code == 200
    assert client.get("/accounts/login/").status_code == 301


@pytest.mark.django_db
def test_healthz_refuses_writes(client) -> None:  # noqa: ANN001
    assert client.post("/healthz").status_code == 405
