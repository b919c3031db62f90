"""Helpers for the agent's side: the JSON API client, Dad as an actor (their fixtures are in conftest.py), and a
reader of the notebook file as an older agent reads it."""

import json
from collections.abc import Iterable
from typing import Any

from django.test import Client

from notebooks.log.identity.roles import Actor

DAD = Actor(name="dad", editor=True)


def older_reader(lines: Iterable[str]) -> dict[int, str]:
    """A reader of the seed's format: add, edit, strike; any other op skipped."""
    view: dict[int, str] = {}
    for row in map(json.loads, lines):
        if row["op"] == "add":
            view[row["n"]] = row["text"]
        elif row["op"] == "edit" and row["n"] in view:
            view[row["n"]] = row["to"]
        elif row["op"] == "strike":
            view.pop(row["n"], None)
    return view


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
