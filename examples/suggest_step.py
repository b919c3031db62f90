"""A harness step that asks a model which lines of a notebook repeat, contradict each other or stray, and posts its
groups as suggestions for Dad to decide in his Similar view (they change no line). Copy it beside harness.py.

    python examples/suggest_step.py --url http://127.0.0.1:8000 --token nbk_... --notebook zelda-demo \
        --model-command "my-model --json"

The model is any callable taking the prompt and answering text; from the command line, a command that reads the
prompt on standard input and prints its answer. It needs only the standard library. Each group is posted with an
Idempotency-Key made from its content, so running the step again posts nothing twice. A group the API refuses (a
line not live, bad input) is reported and the others go on; too many suggestions pending (429) stops the step
(exit 7). The prompt is documented in docs/agents.md, "Suggestions".
"""

import argparse
import hashlib
import json
import subprocess
import sys
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import EXIT, Notebooks, Refused  # noqa: E402

KINDS = ("repeat", "conflict", "stray")
FIELDS = ("lines", "kind", "words", "keep", "why")
PROMPT = """You help clean a game's notebook. Below are its live lines, each tagged [#N source]. Find groups of
lines that say one thing (kind "repeat"), lines that contradict each other ("conflict"), and lines that are not a
lesson of this game ("stray"). Answer with JSON only:
{"groups": [{"lines": [N, ...], "kind": "repeat", "words": "...", "keep": N, "why": "..."}]}
- lines: the numbers as tagged below, two or more for a repeat or a conflict, one or more for a stray;
- words: a repeat only, the one line that says them all (leave it out to keep one line's words);
- keep: a conflict only, the number of the line that is right, if you know it;
- why: in a few words, what makes them one group.
Name only numbers you see below. Leave out a group you are unsure of: Dad decides every group you send, and a wrong
one costs him a click. Write only what the game taught you in this notebook; it is not the coordination log.

"""


@dataclass(frozen=True)
class Posted:
    group: dict[str, Any]
    said: str  # "suggestion 12", "already pending: suggestion 12", "already not alike", or "refused: CODE ..."
    status: int = 0  # a refusal's HTTP status


def prompt_for(turn: str) -> str:
    """The prompt the model is given: the instructions above, then the turn's text (its lines, tagged)."""
    return PROMPT + turn


def groups_of(answer: str) -> list[dict[str, Any]]:
    """The model's groups: the JSON object (or list) in its answer, fences and words around it ignored; each group
    keeps only the fields a suggestion takes. An answer with no JSON is no groups."""
    starts = [i for i in (answer.find("{"), answer.find("[")) if i >= 0]
    if not starts:
        return []
    start = min(starts)
    end = max(answer.rfind("}"), answer.rfind("]"))
    try:
        found = json.loads(answer[start : end + 1])
    except ValueError:
        return []
    if isinstance(found, dict):
        found = found.get("groups", [found] if "lines" in found else [])
    if not isinstance(found, list):
        return []
    return [{k: g[k] for k in FIELDS if k in g and g[k] is not None} for g in found if isinstance(g, dict)]


def _key(notebook: str, group: dict[str, Any]) -> str:
    canonical = json.dumps({"notebook": notebook, **group}, sort_keys=True, ensure_ascii=False)
    return "suggest-" + hashlib.sha256(canonical.encode()).hexdigest()[:40]


def _said(answer: dict[str, Any]) -> str:
    if answer.get("already") == "not_alike":
        return "already not alike"
    item = answer["suggestion"]
    return f"already pending: suggestion {item['id']}" if answer.get("already") else f"suggestion {item['id']}"


def step(api: Notebooks, notebook: str, model: Callable[[str], str]) -> list[Posted]:
    """Ask the model about the turn's lines and post each of its groups; what became of each, in order."""
    turn = api.turn(notebook)
    path = f"/api/notebooks/{urllib.parse.quote(notebook, safe='')}/suggestions"
    done = []
    for group in groups_of(model(prompt_for(turn))):
        try:
            said = _said(api.call("POST", path, group, key=_key(notebook, group)))
        except Refused as refused:
            done.append(Posted(group, refused.line(), refused.status))
            if refused.status == 429:  # Dad has enough waiting: the rest would be refused too
                break
            continue
        done.append(Posted(group, said))
    return done


def command_model(command: str) -> Callable[[str], str]:
    """A model run as a shell command: the prompt on its standard input, its answer on its standard output."""

    def ask(prompt: str) -> str:
        done = subprocess.run(command, shell=True, input=prompt, capture_output=True, text=True, check=True)
        return done.stdout

    return ask


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Ask a model for groups of lines and post them as suggestions.")
    parser.add_argument("--url", required=True, help="where the app answers, e.g. http://127.0.0.1:8000")
    parser.add_argument("--token", required=True, help="an agent token (python manage.py notebook token reflector)")
    parser.add_argument("--notebook", required=True, help="the notebook's title")
    parser.add_argument("--model-command", required=True, help="reads the prompt on stdin, prints the JSON answer")
    o = parser.parse_args(argv)
    try:
        done = step(Notebooks(o.url, o.token), o.notebook, command_model(o.model_command))
    except Refused as refused:  # the turn could not be read
        print(refused.line(), file=sys.stderr)
        return EXIT.get(refused.status, 1)
    for posted in done:
        lines = ", ".join(f"#{n}" for n in posted.group.get("lines", []) if isinstance(n, int))
        print(f"{posted.group.get('kind', '?')} of {lines}: {posted.said}")
    return 7 if done and done[-1].status == 429 else 0  # 7: too many pending, as the CLI's suggest exits


if __name__ == "__main__":
    sys.exit(main())
