"""`suggest`: a helper brain's suggestions (repeat, conflict, stray) from a JSON file, stored for Dad to decide in
the Similar view (notebooks/similar/suggestions.py); no line changes."""

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from pydantic import ValidationError

from notebooks.agents import refusals, writes
from notebooks.agents.bodies import SuggestIn
from notebooks.agents.schemas import Suggested
from notebooks.cli import TITLE, Commands, arg
from notebooks.log.rules.errors import Invalid
from notebooks.similar.services import listed

EXITS = (
    "Exit status: 0 done, 2 bad input, 3 not one who may read notebooks, 4 no such notebook or a line not live, "
    "7 too many suggestions pending on the notebook."
)
command = Commands(exits=EXITS)


def _read(path: str) -> Any:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise Invalid(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}).") from None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise Invalid(f"{path} is not JSON: {exc}.") from None


def _bodies(found: Any) -> list[SuggestIn]:
    """One suggestion or a list of them, each as strict as the API's body."""
    items = found if isinstance(found, list) else [found]
    if not items:
        raise Invalid("The file holds no suggestion.")
    bodies = []
    for k, item in enumerate(items, start=1):
        try:
            bodies.append(SuggestIn.model_validate(item))
        except ValidationError as exc:
            refused = refusals.bad_input(exc.errors(), known=sorted(SuggestIn.model_fields))
            raise Invalid(f"Suggestion {k}: {refused.message}") from None
    return bodies


def _said(answer: Suggested) -> str:
    item, mark = answer.suggestion, answer.mark
    if answer.already == "not_alike":
        assert mark is not None
        return f"already marked not alike: {listed(mark.lines)} (mark {mark.id})"
    assert item is not None
    what = f"{item.kind} of {listed(item.lines)}"
    return f"already pending: suggestion {item.id}, {what}" if answer.already else f"suggestion {item.id}: {what}"


@command(
    TITLE,
    arg("file", help='a JSON file: one {"lines", "kind", "words", "keep", "why"} or a list of them (- for stdin)'),
    arg("--by", required=True, help="who suggests (an agent with a token, or a user)"),
    arg("--json", action="store_true", help='print {"suggestions": [...]}, each the API\'s answer to a suggestion'),
)
def suggest(cmd: BaseCommand, o: dict) -> None:
    """Suggest lines that repeat, contradict each other or stray, for Dad to decide; all or nothing."""
    bodies = _bodies(_read(o["file"]))
    with transaction.atomic():
        done = [writes.suggest(notebook=o["title"], by=o["by"], **b.model_dump()) for b in bodies]
    if o["json"]:
        cmd.stdout.write(json.dumps({"suggestions": [d.model_dump(mode="json") for d in done]}))
        return
    for d in done:
        cmd.stdout.write(_said(d))
