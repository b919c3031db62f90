"""examples/suggest_step.py: the prompt carries the turn's lines and the GAME_ONLY rule, the model's JSON groups are
parsed and posted as suggestions (each with an Idempotency-Key of its content), refusals are reported one by one and
429 stops the step. The model is a scripted stand-in; the API is the Django test client."""

import json
import sys
from pathlib import Path

import pytest

from notebooks.log import services
from notebooks.log.files.rowformat import GAME_ONLY
from notebooks.models import Row, Suggestion

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))
try:
    import harness
    import suggest_step
finally:
    sys.path.remove(str(EXAMPLES))


class ClientNotebooks(harness.Notebooks):
    """The harness's API client, speaking to the Django test client instead of a socket."""

    def __init__(self, api) -> None:  # noqa: ANN001
        super().__init__("", api.secret)
        self.api = api
        self.keys: list[str | None] = []

    def send(self, method: str, path: str, body: dict | None = None, key: str | None = None, tag: str | None = None):  # noqa: ANN201
        return self.call(method, path, body, key), None  # no conditional reads here: every read is answered in full

    def call(self, method: str, path: str, body: dict | None = None, key: str | None = None) -> dict:
        headers = {"HTTP_AUTHORIZATION": f"Bearer {self.token}"}
        if key is not None:
            headers["HTTP_IDEMPOTENCY_KEY"] = key
        self.keys.append(key)
        if method == "GET":
            answer = self.api.client.get(path, **headers)
        else:
            answer = self.api.client.post(path, json.dumps(body), content_type="application/json", **headers)
        found = answer.json()
        if answer.status_code >= 400:
            raise harness.Refused(found["error"]["code"], answer.status_code, found["error"]["message"])
        return found


ANSWER = """Here are the groups:
```json
{"groups": [
  {"lines": [1, 4], "kind": "repeat", "words": "The bridge guard swings twice; roll after the second.",
   "why": "both about the bridge guard", "confidence": 0.9},
  {"lines": [2, 3], "kind": "conflict", "keep": 3, "why": "attack first or block first"},
  {"lines": [5], "kind": "stray", "why": "not the game"},
  {"lines": [1, 99], "kind": "repeat", "why": "a line that is not there"},
  "not a group"
]}
```"""


@pytest.fixture
def game(zelda):  # noqa: ANN001, ANN201
    """zelda #1-#3 (tests/conftest.py), #4 a paraphrase of #1, #5 a stray."""
    services.add(notebook="zelda", text="guard on the bridge: two swings, then roll", source="seen", by="pippa",
                 why="seen")  # fmt: skip
    services.add(notebook="zelda", text="buy milk on the way home", source="guessed", by="pippa", why="a hunch")
    return zelda


def scripted(asked: list[str], answer: str = ANSWER):  # noqa: ANN201
    def model(prompt: str) -> str:
        asked.append(prompt)
        return answer

    return model


def test_the_prompt_is_documented_and_carries_the_game_only_rule():
    assert GAME_ONLY in suggest_step.PROMPT
    docs = (EXAMPLES.parent / "docs" / "agents.md").read_text()
    assert " ".join(suggest_step.PROMPT.split()) in " ".join(docs.split())  # the prompt in the guide, word for word


def test_the_step_posts_the_models_groups_as_suggestions(game, reflector):
    api, asked = ClientNotebooks(reflector), []
    rows = Row.objects.count()
    done = suggest_step.step(api, "zelda", scripted(asked))
    [prompt] = asked
    assert prompt.startswith(suggest_step.PROMPT) and "[#4 seen] guard on the bridge" in prompt
    assert "[#5 guessed] buy milk" in prompt
    said = [p.said for p in done]
    stored = list(Suggestion.objects.order_by("id"))
    assert said[:3] == [f"suggestion {s.pk}" for s in stored] and len(stored) == 3
    assert said[3].startswith("refused: not_found (404): ") and "#99" in said[3] and len(done) == 4
    repeat, conflict, stray = stored
    assert (repeat.lines, repeat.kind, repeat.by) == ([1, 4], "repeat", "reflector")
    assert repeat.words == "The bridge guard swings twice; roll after the second."  # "confidence" left out
    assert (conflict.keep, stray.lines) == (3, [5])
    assert Row.objects.count() == rows  # no line changed
    keys = [k for k in api.keys if k]
    assert len(keys) == 4 and len(set(keys)) == 4


def test_a_second_run_posts_nothing_twice(game, reflector):
    api = ClientNotebooks(reflector)
    first = suggest_step.step(api, "zelda", scripted([]))
    again = suggest_step.step(api, "zelda", scripted([]))
    assert [p.said for p in again] == [p.said for p in first]  # the same keys: the first answers, replayed
    assert Suggestion.objects.count() == 3
    other = ANSWER.replace("both about the bridge guard", "the same guard")  # another key, the same group
    assert suggest_step.step(api, "zelda", scripted([], other))[0].said.startswith("already pending: suggestion ")
    assert Suggestion.objects.count() == 3


def test_too_many_pending_stops_the_step(game, reflector, settings):
    settings.NOTEBOOK_PENDING_SUGGESTIONS = 1
    done = suggest_step.step(ClientNotebooks(reflector), "zelda", scripted([]))
    assert len(done) == 2 and done[1].status == 429 and "too_many_suggestions" in done[1].said
    assert Suggestion.objects.count() == 1


@pytest.mark.parametrize(
    ("answer", "groups"),
    [
        ("no JSON here", []),
        ('{"groups": "none"}', []),
        ("{broken", []),
        (
            '[{"lines": [1, 2], "kind": "repeat", "why": "w", "words": null}]',
            [{"lines": [1, 2], "kind": "repeat", "why": "w"}],
        ),  # fmt: skip
        ('{"lines": [5], "kind": "stray", "why": "w"}', [{"lines": [5], "kind": "stray", "why": "w"}]),
    ],
)
def test_the_models_answer_is_parsed_leniently(answer, groups):
    assert suggest_step.groups_of(answer) == groups
