"""What starts a notebook, at every door: a title that looks like a taken one is refused with "did you mean", and an
agent may create only so many notebooks per window (429, Retry-After). MCP's doors: tests/agents/test_mcp.py."""

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from notebooks.agents import creation_limit, tokens
from notebooks.log import services
from notebooks.log.files import imports
from notebooks.log.rules.alike import alike_key
from notebooks.log.rules.errors import LooksAlike
from notebooks.log.views import selectors
from notebooks.models import Notebook
from tests.agent_helpers import Api
from tests.vault.vaulttools import outside

LOOKALIKES = ["Zelda-demo", "zelda_demo", "zelda-demo.", "ZELDA DEMO", "zelda.demo", "zelda--demo..."]


@pytest.fixture
def demo(db):  # noqa: ANN001, ANN201
    return services.create_notebook(title="zelda-demo", by="test")


@pytest.fixture
def vault(db, tmp_path, settings):  # noqa: ANN001, ANN201
    from notebooks.vault import Vault

    settings.NOTEBOOK_VAULT = str(tmp_path / "vault")
    return Vault().ensure()


def _titles() -> list[str]:
    return sorted(Notebook.objects.values_list("title", flat=True))


def test_one_key_reads_every_lookalike_the_same_and_different_titles_apart():
    assert {alike_key(t) for t in [*LOOKALIKES, "zelda-demo", "ｚｅｌｄａ-Demo!"]} == {"zeldademo"}
    assert alike_key("zelda-demo-2") != alike_key("zelda-demo")
    assert alike_key("c++") != alike_key("c")
    assert alike_key("metroid") != alike_key("metroid prime")


@pytest.mark.parametrize("title", LOOKALIKES)
def test_the_core_refuses_a_lookalike_naming_the_taken_title(demo, title):
    with pytest.raises(LooksAlike) as refused:
        services.create_notebook(title=title, by="pippa")
    assert refused.value.code == "title_looks_alike" and refused.value.status == 409
    assert "did you mean 'zelda-demo'?" in refused.value.message and refused.value.details == {"existing": "zelda-demo"}
    assert _titles() == ["zelda-demo"]


def test_other_titles_are_still_created_and_existing_lookalikes_keep_working(demo):
    services.create_notebook(title="zelda-demo-2", by="pippa")
    Notebook.objects.create(title="Zelda_Demo", created_by="before")  # made before the rule: still readable, writable
    services.add(notebook="Zelda_Demo", text="still here", source="seen", by="pippa", why="seen")
    assert [x.text for x in selectors.view(selectors.get_notebook("Zelda_Demo"))] == ["still here"]
    assert _titles() == ["Zelda_Demo", "zelda-demo", "zelda-demo-2"]


def test_the_api_answers_409_title_looks_alike(demo, pippa):
    answer = pippa.post("/api/notebooks", {"title": "zelda_demo"})
    assert answer.status_code == 409
    error = answer.json()["error"]
    assert error["code"] == "title_looks_alike" and error["existing"] == "zelda-demo"
    assert "did you mean 'zelda-demo'?" in error["message"]
    assert _titles() == ["zelda-demo"]


def test_the_cli_refuses_a_lookalike(demo):
    with pytest.raises(CommandError, match="did you mean 'zelda-demo'") as refused:
        call_command("notebook", "create", "Zelda-demo", stdout=StringIO())
    assert refused.value.returncode == 5
    assert _titles() == ["zelda-demo"]


def test_an_import_under_a_lookalike_title_starts_nothing(demo, tmp_path):
    rows = [json.dumps({"op": "add", "n": 1, "text": "x", "source": "seen", "by": "pippa", "at": 1.7e9})]
    with pytest.raises(LooksAlike):
        imports.import_notebook(title="zelda-demo.", lines=rows, by="import")
    path = tmp_path / "in.jsonl"
    path.write_text(rows[0] + "\n")
    with pytest.raises(CommandError, match="did you mean 'zelda-demo'"):
        call_command("notebook", "import", str(path), "--title", "ZELDA_DEMO", stdout=StringIO(), stderr=StringIO())
    assert _titles() == ["zelda-demo"]


def test_a_vault_file_under_a_lookalike_title_starts_nothing(demo, vault):
    vault.sweep(claimed=set())
    vault.path("Zelda_demo").write_text(outside(n=1, text="a new file", source="seen") + "\n")
    result = vault.sweep(claimed=set())
    assert any("did you mean 'zelda-demo'" in p.message for p in result.problems)
    assert _titles() == ["zelda-demo"]
    with pytest.raises(LooksAlike):
        imports.append_rows(notebook="zelda-demo.", lines=[outside(n=1, text="x", source="seen")], by_default="h")


# ----- how many notebooks one actor may start ------------------------------------------------------------------


@pytest.fixture
def few(settings):  # noqa: ANN001, ANN201
    settings.NOTEBOOK_NEW_NOTEBOOKS = 3
    settings.NOTEBOOK_NEW_NOTEBOOKS_EDITOR = 5
    settings.NOTEBOOK_NEW_NOTEBOOKS_WINDOW = 600
    return settings


def test_the_api_answers_429_with_retry_after_past_the_limit(few, pippa, reflector):
    for i in range(3):
        assert pippa.post("/api/notebooks", {"title": f"game {i}"}).status_code == 201
    refused = pippa.post("/api/notebooks", {"title": "game 3"})
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 601
    error = refused.json()["error"]
    assert error["code"] == "too_many_notebooks" and error["limit"] == 3 and error["window"] == 600
    assert "game 3" not in _titles()
    assert reflector.post("/api/notebooks", {"title": "game 3"}).status_code == 201  # per actor: another may


def test_a_refused_create_counts_nothing(few, pippa, demo):
    for _ in range(4):
        assert pippa.post("/api/notebooks", {"title": "zelda_demo"}).status_code == 409
    assert [pippa.post("/api/notebooks", {"title": f"g{i}"}).status_code for i in range(4)] == [201, 201, 201, 429]


def test_the_window_passes_and_the_actor_may_create_again(few, pippa, monkeypatch):
    for i in range(3):
        pippa.post("/api/notebooks", {"title": f"game {i}"})
    later = timezone.now() + timedelta(seconds=601)
    monkeypatch.setattr(creation_limit, "now", lambda: later)
    assert pippa.post("/api/notebooks", {"title": "game 3"}).status_code == 201


def test_dad_has_a_limit_of_his_own(few, dad_api):
    codes = [dad_api.post("/api/notebooks", {"title": f"game {i}"}).status_code for i in range(6)]
    assert codes == [201] * 5 + [429]


def test_the_cli_is_the_operators_and_not_limited(db, few):
    for i in range(5):
        call_command("notebook", "create", f"game {i}", "--by", "pippa", stdout=StringIO())
    assert len(_titles()) == 5
    assert Api(tokens.issue(actor="pippa").secret).post("/api/notebooks", {"title": "one more"}).status_code == 429


def test_the_openapi_document_declares_the_429_and_its_retry_after(db, pippa):
    create = pippa.get("/api/openapi.json").json()["paths"]["/api/notebooks"]["post"]
    assert "Retry-After" in create["responses"]["429"]["headers"]


CREATES = """
import json, os, sys, django
django.setup()
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()
client = Client(HTTP_AUTHORIZATION="Bearer " + os.environ["TOKEN"])
codes = [client.post("/api/notebooks", json.dumps({"title": f"game {sys.argv[1]}-{i}"}),
                     content_type="application/json").status_code for i in range(3)]
print(json.dumps(codes))
"""


def test_parallel_creates_of_one_actor_never_pass_the_limit(scratch_db):
    """Two processes, three creates each, a limit of four: exactly four are made, whichever process wins."""
    db = scratch_db()
    token = db.manage("notebook", "token", "pippa").stdout.strip().splitlines()[-1]
    env = db.env(TOKEN=token, NOTEBOOK_NEW_NOTEBOOKS="4")
    workers = [db.start("-c", CREATES, str(i), env=env) for i in range(2)]
    codes = []
    for worker in workers:
        out, err = worker.communicate(timeout=240)
        assert worker.returncode == 0, err
        codes += json.loads(out.strip().splitlines()[-1])
    assert sorted(codes) == [201] * 4 + [429] * 2
    count = "import django; django.setup(); from notebooks.models import Notebook; print(Notebook.objects.count())"
    assert db.run("-c", count).stdout.strip() == "4"
