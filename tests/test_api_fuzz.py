"""Schemathesis, in process against the WSGI app: generated requests (fitting the document and not) never get a 5xx."""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.generation import GenerationMode

EXAMPLES = 10  # per operation and mode: bounded so the run stays within seconds


@pytest.fixture
def app(db):  # noqa: ANN001, ANN201
    """The WSGI app, kept inside the test's transaction (a real request would close the connection)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield get_wsgi_application()
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=str)
def test_generated_requests_never_get_a_server_error(app, zelda, pippa, mode):
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    headers = {"Authorization": f"Bearer {pippa.secret}"}
    strategies = []
    for result in schema.get_all_operations():
        operation = result.ok()
        strategies.append(operation.as_strategy(generation_mode=mode, headers=headers))
        if "{title}" in operation.path:  # also aim at a notebook that exists, so writes get past the 404
            fixed = {"title": "zelda"}
            strategies.append(operation.as_strategy(generation_mode=mode, headers=headers, path_parameters=fixed))
    seen: dict[int, int] = {}

    @given(case=st.one_of(strategies))
    @settings(
        max_examples=EXAMPLES * len(strategies),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case):  # noqa: ANN001, ANN202
        response = case.call()
        seen[response.status_code] = seen.get(response.status_code, 0) + 1
        assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.text[:500]}"

    check()
    assert any(200 <= status < 300 for status in seen), seen  # the run reached the app, not only its refusals
