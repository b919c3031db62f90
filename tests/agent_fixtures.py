"""Fixtures for the agent's side: API clients holding a token (import them into a test module)."""

import json
from typing import Any

import pytest
from django.test import Client

from notebooks.agents import tokens
from notebooks.log import services
from notebooks.log.roles import Actor

DAD = Actor(name="dad", editor=True)


class Api:
    """The test client speaking JSON with a bearer token."""

    def __init__(self, secret: str | None) -> None:
        self.client = Client()
        self.secret = secret

    def _headers(self) -> dict[str, str]:
        return {"HTTP_AUTHORIZATION": f"Bearer {self.secret}"} if self.secret else {}

    def get(self, path: str, **params: Any) -> Any:
        return self.client.get(path, params, **self._headers())

    def post(self, path: str, body: Any = None) -> Any:
        data = body if isinstance(body, str | bytes) else json.dumps(body)
        return self.client.post(path, data, content_type="application/json", **self._headers())


@pytest.fixture(name="pippa")
def pippa_fixture(db) -> Api:  # noqa: ANN001
    return Api(tokens.issue(actor="pippa").secret)


@pytest.fixture(name="reflector")
def reflector_fixture(db) -> Api:  # noqa: ANN001
    return Api(tokens.issue(actor="reflector").secret)


@pytest.fixture(name="dad_api")
def dad_api_fixture(dad) -> Api:  # noqa: ANN001
    return Api(tokens.issue(actor="dad", editor=True).secret)


@pytest.fixture(name="zelda")
def zelda_fixture(notebook):  # noqa: ANN001, ANN201
    """Notebook zelda with two lines of Pippa's (#1, #2) and one of Dad's (#3)."""
    services.add(notebook="zelda", text="the bridge guard swings twice", source="seen", by="pippa", why="seen")
    services.add(notebook="zelda", text="always attack first", source="guessed", by="pippa", why="a hunch")
    services.add(notebook="zelda", text="block first, then attack", source="dad", by=DAD, why="rule")
    return notebook
