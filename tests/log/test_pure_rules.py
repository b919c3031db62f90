"""The rule book's pure modules import no Django (docs/architecture.md): they run and are tested without a database."""

import subprocess
import sys

import pytest

from tests.databases import ROOT

PURE = (
    "notebooks.log.rules.fold",
    "notebooks.log.rules.decision",
    "notebooks.log.rules.alike",
    "notebooks.log.views.history",
    "notebooks.log.rules.errors",
    "notebooks.log.identity.signing",
)


@pytest.mark.parametrize("module", PURE)
def test_a_pure_module_imports_no_django(module):
    probe = f"import sys, {module}; print(sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'psycopg')))"
    found = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]", f"{module} imports {found.stdout.strip()}"


def test_the_models_sources_are_the_rule_books():
    from notebooks.log.rules import fold
    from notebooks.models import Source

    assert tuple(Source.values) == fold.SOURCES
    assert fold.AGENT_SOURCES | fold.DAD_SOURCES == set(Source.values)


def test_a_redaction_takes_the_row_named_or_else_the_lines_current_words():
    from notebooks.log.rules.fold import redacted_seq

    worded = [(2, "add"), (5, "adopt"), (7, "edit"), (9, "adopt")]
    assert redacted_seq(worded, None) == 7  # its own last words, not an adopted row after them
    assert redacted_seq(worded, 5) == 5
    assert redacted_seq(worded, 6) is None
    assert redacted_seq([(3, "adopt")], None) is None  # an adopted row is named by its seq
