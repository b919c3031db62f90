"""The human editor is a recorded user holding the role, on every path: a name alone grants nothing."""

import json
import time

import pytest

from notebooks.log.files import imports, rowformat
from notebooks.log.rules.errors import Forbidden, Invalid
from notebooks.log.views import selectors
from tests.vault.vaulttools import signed

DADS_RULE = {"op": "add", "n": 1, "text": "write only what the game taught you", "source": "dad", "by": "dad"}


def _row(**fields) -> str:  # noqa: ANN003
    return json.dumps({**DADS_RULE, "why": "a rule", "at": time.time(), **fields})


def test_a_vault_row_by_dad_is_refused_when_no_user_dad_holds_the_role(notebook):
    # Signed with a key of dad's (an agent's key: no user dad holds the role), the row is dad's, as an agent.
    with pytest.raises(Forbidden, match="line 1: dad is an agent and may write only seen or guessed lines"):
        imports.append_rows(notebook="zelda", lines=signed(_row()), by_default="harness")
    assert selectors.head(notebook).seq == 0


def test_an_unsigned_vault_row_by_dad_is_never_his(notebook, dad):
    with pytest.raises(Forbidden, match="line 1: "):
        imports.append_rows(notebook="zelda", lines=[_row()], by_default="harness")
    assert selectors.head(notebook).seq == 0


def test_a_vault_row_by_dad_is_his_when_he_is_a_recorded_editor(notebook, dad):
    appended = imports.append_rows(notebook="zelda", lines=signed(_row()), by_default="harness")
    assert appended.by == ("dad",)
    assert [(line.n, line.source) for line in selectors.view(notebook)] == [(1, "dad")]


def test_an_imported_redact_row_by_dad_is_refused_unless_dad_is_a_recorded_editor(db):
    words = "the admin password is hunter2"
    rows = [
        json.dumps({"op": "add", "n": 1, "text": words, "source": "seen", "by": "pippa", "at": 1.0}),
        json.dumps({"op": "redact", "n": 1, "redacts": rowformat.digest_of(words),
                    "by": "dad", "why": "a password", "at": 2.0}),
    ]  # fmt: skip
    with pytest.raises(Invalid, match="line 2: a redact row must be by the human editor"):
        imports.import_notebook(title="zelda", lines=rows, by="test")
