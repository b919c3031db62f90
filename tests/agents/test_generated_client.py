"""A client generated from /api/openapi.json by openapi-python-client runs the agent's flow (docs/agents.md: take,
read, add, edit, land) in process against the WSGI app: every answer parses into its typed model, refusals too."""

import httpx
import pytest
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections

from tests.generated_client import generated_client


@pytest.fixture(scope="module")
def generated(tmp_path_factory):  # noqa: ANN001, ANN201
    """The client package, generated once from the document the app serves."""
    with generated_client(tmp_path_factory.mktemp("client")) as load:
        yield load


@pytest.fixture
def client(generated, db, pippa):  # noqa: ANN001, ANN201
    """The generated client over the WSGI app, inside the test's transaction (a real request closes the connection)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    transport = httpx.WSGITransport(app=get_wsgi_application())
    wired = generated("client").AuthenticatedClient(base_url="http://testserver", token=pippa.secret)
    headers = {"Authorization": f"Bearer {pippa.secret}"}
    wired.set_httpx_client(httpx.Client(transport=transport, base_url="http://testserver", headers=headers))
    yield wired
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def test_a_generated_client_runs_the_agents_flow(generated, client):
    models = generated("models")
    from notebooks_client.api.lines import add_line, edit_line, list_lines
    from notebooks_client.api.notebooks import create_notebook, get_turn, list_notebooks
    from notebooks_client.api.sessions import get_session, land_session, take_session

    made = create_notebook.sync(client=client, body=models.NotebookIn(title="celeste"))
    assert isinstance(made, models.NotebookItem) and made.head == 0
    taken = take_session.sync(client=client, body=models.TakeIn(notebook="celeste", plan="write the first climb"))
    assert isinstance(taken, models.Taken) and taken.base == 0
    for words in ("dash up then left", "the wind pushes right"):
        added = add_line.sync(
            "celeste", client=client, body=models.AddIn(text=words, source=models.AddInSource.SEEN, why="saw it")
        )
        assert isinstance(added, models.Added), added
    page = list_lines.sync("celeste", client=client, limit=1)
    assert isinstance(page, models.Lines) and [x.n for x in page.lines] == [1] and page.more is True
    rest = list_lines.sync("celeste", client=client, after=page.next_, limit=1)
    assert [x.n for x in rest.lines] == [2] and rest.more is False
    edited = edit_line.sync(
        "celeste", 1, client=client, body=models.EditIn(text="dash up, then left", why="exact", expected=1)
    )
    assert isinstance(edited, models.Written) and edited.seq == 3
    stale = edit_line.sync("celeste", 1, client=client, body=models.EditIn(text="x", why="y", expected=1))
    assert isinstance(stale, models.Error)  # the refusal parses into its model, its fields typed
    assert (stale.error.code.value, stale.error.current, stale.error.current_seq) == (
        "conflict",
        "dash up, then left",
        3,
    )
    landed = land_session.sync(taken.id, client=client, body=models.LandIn(summary="the first climb"))
    assert isinstance(landed, models.Landed) and landed.rows == 3
    read = get_session.sync(taken.id, client=client)
    assert isinstance(read, models.SessionRows) and read.state.value == "landed" and read.more is False
    turn = get_turn.sync("celeste", client=client)
    assert isinstance(turn, models.Turn) and "dash up, then left" in turn.text
    listed = list_notebooks.sync(client=client)
    assert [x.title for x in listed.notebooks] == ["celeste"]


def test_a_generated_clients_unknown_query_and_bad_body_are_typed_refusals(generated, client):
    models = generated("models")
    from notebooks_client.api.notebooks import create_notebook

    refused = create_notebook.sync(client=client, body=models.NotebookIn(title=" celeste"))
    assert isinstance(refused, models.Error) and refused.error.code.value == "invalid"
    answer = client.get_httpx_client().get("/api/notebooks", params={"afer": "1"})
    parsed = models.Error.from_dict(answer.json())
    assert answer.status_code == 400 and parsed.error.fields == ["afer"]
