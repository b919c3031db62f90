"""The rule book's pure modules import no Django (docs/architecture.md): they run, and are tested, without a database."""

import subprocess
import sys

import pytest

from tests.databases import ROOT

PURE = ("notebooks.log.fold", "notebooks.log.history", "notebooks.log.errors", "notebooks.log.signing")


@pytest.mark.parametrize("module", PURE)
def test_a_pure_module_imports_no_django(module):
    probe = f"import sys, {module}; print(sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'psycopg')))"
    found = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]", f"{module} imports {found.stdout.strip()}"


def test_the_models_sources_are_the_rule_books():
    from notebooks.log import fold
    from notebooks.models import Source

    assert tuple(Source.values) == fold.SOURCES
    assert fold.AGENT_SOURCES | fold.DAD_SOURCES == set(Source.values)
