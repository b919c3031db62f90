from notebooks.agents import tokens
from notebooks.models import Token
from tests.agent_helpers import Api


def test_it_answers_401_without_a_token(zelda):
    response = Api(None).get("/api/notebooks")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_it_answers_401_for_an_unknown_token(zelda):
    assert Api("nbk_not-a-real-token").get("/api/notebooks").status_code == 401


def test_it_answers_401_for_another_scheme(zelda, pippa):
    response = pippa.client.get("/api/notebooks", HTTP_AUTHORIZATION=f"Basic {pippa.secret}")
    assert response.status_code == 401


def test_it_answers_401_for_a_revoked_token(zelda, pippa):
    assert pippa.get("/api/notebooks").status_code == 200
    tokens.revoke(token=pippa.secret, why="leaked")
    assert pippa.get("/api/notebooks").status_code == 401


def test_it_keeps_only_the_digest_of_a_token(db):
    issued = tokens.issue(actor="pippa")
    stored = Token.objects.get(pk=issued.token.pk)
    assert issued.secret not in {stored.digest, stored.hint}
    assert stored.digest == tokens.digest_of(issued.secret)


def test_it_refuses_an_editor_token_for_an_actor_without_the_role(db):
    from notebooks.log.rules.errors import Forbidden

    try:
        tokens.issue(actor="pippa", editor=True)
    except Forbidden as exc:
        assert "editor" in exc.message
    else:
        raise AssertionError("an editor token was issued to an agent")


def test_an_editor_token_stops_acting_as_editor_once_the_role_is_taken_away(dad):
    secret = tokens.issue(actor="dad", editor=True).secret
    assert tokens.authenticate(secret).editor
    dad.groups.clear()
    assert not tokens.authenticate(secret).editor


def test_an_agent_token_cannot_add_a_dad_line(zelda, pippa):
    response = pippa.post("/api/notebooks/zelda/lines", {"text": "a rule", "source": "dad", "why": "I say so"})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden"


def test_an_agent_token_cannot_edit_dads_line(zelda, pippa):
    response = pippa.post("/api/notebooks/zelda/lines/3/edit", {"to": "attack first", "why": "I disagree"})
    assert response.status_code == 403


def test_an_agent_token_cannot_retire_dads_line(zelda, pippa):
    assert pippa.post("/api/notebooks/zelda/lines/3/retire", {"why": "stale"}).status_code == 403


def test_an_agent_token_cannot_merge_dads_line(zelda, pippa):
    body = {"numbers": [1, 3], "text": "one line", "why": "same"}
    assert pippa.post("/api/notebooks/zelda/merge", body).status_code == 403


def test_an_editor_token_may_correct_an_agents_line(zelda, dad_api):
    response = dad_api.post("/api/notebooks/zelda/lines/2/edit", {"to": "block first", "why": "got her killed"})
    assert response.status_code == 200
    lines = {line["n"]: line for line in dad_api.get("/api/notebooks/zelda/lines").json()["lines"]}
    assert lines[2]["source"] == "dad_correction"
    assert lines[2]["by"] == "dad"


def test_an_editor_token_may_add_a_dad_line(zelda, dad_api):
    response = dad_api.post("/api/notebooks/zelda/lines", {"text": "rest at camp", "source": "dad", "why": "hint"})
    assert response.status_code == 201


def test_writes_are_recorded_under_the_tokens_actor(zelda, pippa):
    pippa.post("/api/notebooks/zelda/lines", {"text": "dodge left", "source": "seen", "why": "saw it"})
    last = pippa.get("/api/notebooks/zelda/lines").json()["lines"][-1]
    assert (last["text"], last["by"]) == ("dodge left", "pippa")
