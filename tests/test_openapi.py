import re

from openapi_spec_validator import validate

from notebooks.agents import urls as api_urls
from notebooks.log.rowformat import GAME_ONLY


def _doc(client):  # noqa: ANN001, ANN202
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    return response.json()


def test_the_document_is_valid_openapi_3(client):
    doc = _doc(client)
    assert doc["openapi"].startswith("3.")
    validate(doc)


def test_it_describes_every_route_of_the_api(client):
    documented = {path.removeprefix("/api/") for path in _doc(client)["paths"]}
    routed = set()
    for pattern in api_urls.urlpatterns:
        route = str(pattern.pattern)
        if route.startswith("^"):
            continue  # the catch-all that answers JSON 404s
        routed.add(re.sub(r"<(?:str:)?(\w+)>", r"{\1}", route).replace("{session_id}", "{id}"))
    assert routed == documented


def test_adding_a_line_carries_the_game_only_rule(client):
    doc = _doc(client)
    assert GAME_ONLY in doc["paths"]["/api/notebooks/{title}/lines"]["post"]["description"]


def test_every_write_of_words_carries_the_game_only_rule(client):
    paths = _doc(client)["paths"]
    assert GAME_ONLY in paths["/api/notebooks/{title}/lines/{n}/edit"]["post"]["description"]
    assert GAME_ONLY in paths["/api/notebooks/{title}/merge"]["post"]["description"]


def test_it_says_how_to_authenticate(client):
    doc = _doc(client)
    assert doc["components"]["securitySchemes"]["bearer"] == {"type": "http", "scheme": "bearer"}
    assert doc["security"] == [{"bearer": []}]
