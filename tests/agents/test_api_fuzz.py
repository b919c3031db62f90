"""Schemathesis, in process against the WSGI app and the generated document, with an agent's token and the editor's:
requests fitting the document and not get no server error, no answer outside the declared schema and no status the
document does not declare. Bounded here; `make reliability` (NOTEBOOKS_RELIABILITY=heavy) runs many more."""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.databases import record, scale

EXAMPLES = scale(6, 40)  # per operation, mode and token
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def app(db):  # noqa: ANN001, ANN201
    """The WSGI app, kept inside the test's transaction (a real request would close the connection)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield get_wsgi_application()
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.parametrize("who", ["pippa", "dad_api"])
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=str)
def test_generated_requests_get_only_declared_answers(app, zelda, request, who, mode):
    token = request.getfixturevalue(who)
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    headers = {"Authorization": f"Bearer {token.secret}"}
    strategies = []
    for result in schema.get_all_operations():
        operation = result.ok()
        strategies.append(operation.as_strategy(generation_mode=mode, headers=headers))
        fixed = {k: v for k, v in {"notebook": "zelda", "n": 2, "id": 1}.items() if "{" + k + "}" in operation.path}
        if fixed:  # also aim at a notebook, a line and a session that exist, so writes get past the 404
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
        case.validate_response(response, checks=CHECKS)

    check()
    record("API fuzzing", token=who, mode=str(mode), requests=sum(seen.values()), statuses=dict(sorted(seen.items())))
    if mode == GenerationMode.POSITIVE:  # the run reached the app, not only its refusals
        assert any(200 <= status < 300 for status in seen), seen
    # Input outside the document (unknown query parameters and fields included) is refused: a negative run may get
    # nothing else, but for a deprecated form still taken (an edit's 'to', a no-op land without a summary).
    assert seen.get(400), seen  # and it sent input the schema refuses
