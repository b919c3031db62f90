"""`notebook suggest TITLE FILE --by NAME`: one suggestion or a list from a JSON file (or stdin), all or nothing, with
the API's refusals as exit codes (7 for too many pending)."""

import io
import json
import sys
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from notebooks.models import Suggestion
from notebooks.similar import services as marks
from tests.agent_helpers import DAD

REPEAT = {"lines": [1, 2], "kind": "repeat", "why": "both say block", "words": "block, then attack"}
STRAY = {"lines": [3], "kind": "stray", "why": "a rule, not a lesson"}


def _run(*args: str) -> str:
    out = StringIO()
    call_command("notebook", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def _file(tmp_path, found) -> str:  # noqa: ANN001
    path = tmp_path / "suggestions.json"
    path.write_text(json.dumps(found))
    return str(path)


def _refused(*args: str) -> CommandError:
    with pytest.raises(CommandError) as refused:
        _run(*args)
    return refused.value


def test_one_suggestion_and_then_a_list(zelda, pippa, tmp_path):
    said = _run("suggest", "zelda", _file(tmp_path, REPEAT), "--by", "pippa")
    first = Suggestion.objects.get()
    assert said.strip() == f"suggestion {first.pk}: repeat of #1, #2"
    said = _run("suggest", "zelda", _file(tmp_path, [REPEAT, STRAY]), "--by", "pippa", "--json")
    answers = json.loads(said)["suggestions"]
    assert answers[0]["already"] == "pending" and answers[0]["suggestion"]["id"] == first.pk
    assert answers[1]["already"] is None and answers[1]["suggestion"]["lines"] == [3]
    assert Suggestion.objects.count() == 2


def test_from_standard_input(zelda, pippa, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(STRAY)))
    assert "stray of #3" in _run("suggest", "zelda", "-", "--by", "pippa")


def test_lines_marked_not_alike_are_said(zelda, pippa, tmp_path):
    mark = marks.mark_not_alike(notebook="zelda", numbers=[1, 2], by=DAD)
    said = _run("suggest", "zelda", _file(tmp_path, REPEAT), "--by", "pippa")
    assert said.strip() == f"already marked not alike: #1, #2 (mark {mark.pk})"


def test_refusals_and_their_exit_codes_write_nothing(zelda, pippa, tmp_path, settings):
    assert _refused("suggest", "zelda", _file(tmp_path, {**REPEAT, "lines": [1, 9]}), "--by", "pippa").returncode == 4
    assert _refused("suggest", "zeldo", _file(tmp_path, REPEAT), "--by", "pippa").returncode == 4
    assert _refused("suggest", "zelda", _file(tmp_path, REPEAT), "--by", "stranger").returncode == 3
    bad = _refused("suggest", "zelda", _file(tmp_path, [REPEAT, {**STRAY, "sorce": 1}]), "--by", "pippa")
    assert bad.returncode == 2 and "Suggestion 2: 'sorce': unknown field" in str(bad)
    (tmp_path / "not.json").write_text("{")
    assert _refused("suggest", "zelda", str(tmp_path / "not.json"), "--by", "pippa").returncode == 2
    assert _refused("suggest", "zelda", _file(tmp_path, []), "--by", "pippa").returncode == 2
    settings.NOTEBOOK_PENDING_SUGGESTIONS = 1
    many = _refused("suggest", "zelda", _file(tmp_path, [REPEAT, STRAY]), "--by", "pippa")
    assert many.returncode == 7 and "the bound is 1" in str(many)
    assert not Suggestion.objects.exists()  # all or nothing: the first of the list went with the refusal


def test_its_json_is_the_apis_answer_to_the_same_suggestion(zelda, pippa, tmp_path):
    marks.mark_not_alike(notebook="zelda", numbers=[1, 2], by=DAD)
    api = pippa.post("/api/notebooks/zelda/suggestions", REPEAT).json()
    (cli,) = json.loads(_run("suggest", "zelda", _file(tmp_path, REPEAT), "--by", "pippa", "--json"))["suggestions"]
    assert cli == api and set(cli["mark"]) == {"id", "lines", "by", "at"}
