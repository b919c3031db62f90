"""The API's and MCP's own fixtures (the shared agents, pippa and reflector, are in tests/conftest.py)."""

import pytest


@pytest.fixture
def dad_api(dad):  # noqa: ANN001, ANN201
    from notebooks.agents import tokens
    from tests.agent_helpers import Api

    return Api(tokens.issue(actor="dad", editor=True).secret)
