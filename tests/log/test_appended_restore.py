"""A restore appended to a notebook's file brings back the retired line as it was, its last words and source, as a
service's restore does (log/rules/decision.py); anything else is an edit of the new line, written as one."""

import json
import time

import pytest

from notebooks.log import redaction, services
from notebooks.log.files import imports
from notebooks.log.rules.errors import Invalid
from notebooks.log.views import selectors
from notebooks.models import Row
from tests.agent_helpers import DAD


def _append(**row: object) -> None:
    line = json.dumps({"op": "add", "by": "pippa", "why": "back", "at": time.time(), **row})
    imports.append_rows(notebook="zelda", lines=[line], by_default="harness")


@pytest.fixture
def retired(zelda, dad):  # noqa: ANN001, ANN201
    """zelda with #2 (Pippa's guess, "always attack first") retired."""
    services.retire(notebook="zelda", n=2, by="pippa", why="wrong")
    return selectors.get_notebook("zelda")


def test_an_appended_restore_brings_back_the_lines_source(retired):
    with pytest.raises(Invalid, match="last words and source"):
        _append(n=4, text="always attack first", source="seen", restores=2)
    _append(n=4, text="always attack first", source="guessed", restores=2)
    assert [(x.n, x.source) for x in selectors.view(retired)][-1] == (4, "guessed")


def test_an_appended_restore_marked_redacted_is_not_the_lines_last_words(retired):
    secret = services.add(notebook="zelda", text="the code is 1234", source="seen", by="pippa", why="seen").n
    redaction.redact(notebook="zelda", n=secret, by=DAD, why="a secret")
    gone = Row.objects.get(op="redact").redacts  # a keyed digest: one an exported row marked redacted carries
    head = selectors.head(retired)
    with pytest.raises(Invalid, match="last words and source"):
        _append(n=secret + 1, digest=gone, source="guessed", restores=2)
    assert selectors.head(retired) == head
