""".ci/run's two parts: which tests count as touching a database (run again on PostgreSQL), and the report check
that fails when a part left tests out."""

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import touches_database
from tests.databases import ROOT
from tests.web_instances import environ_without_test_settings


@dataclass
class Item:
    fspath: Path
    fixturenames: list[str] = field(default_factory=list)
    markers: tuple[str, ...] = ()

    def get_closest_marker(self, name: str) -> object | None:
        return name if name in self.markers else None


def _module(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "test_module.py"
    path.write_text(source)
    return path


def test_a_database_fixture_or_mark_touches_a_database(tmp_path):
    pure = _module(tmp_path, "def test_sum():\n    assert 1 + 1 == 2\n")
    assert not touches_database(Item(pure))
    assert touches_database(Item(pure, fixturenames=["db"]))
    assert touches_database(Item(pure, fixturenames=["live_sites", "browser"]))
    assert touches_database(Item(pure, markers=("django_db",)))


def test_a_module_that_starts_processes_touches_a_database_unless_marked_free(tmp_path):
    starts = _module(tmp_path, "import subprocess\n\ndef test_run():\n    subprocess.run(['true'])\n")
    assert touches_database(Item(starts))
    assert not touches_database(Item(starts, markers=("database_free",)))
    assert touches_database(Item(starts, fixturenames=["db"], markers=("database_free",)))


def test_the_second_part_leaves_out_the_browser_tests_of_a_pages_client_side():
    files = ["tests/browser/test_browser_a11y.py", "tests/browser/test_browser_selection.py"]
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly", "--database-only", *files],
        cwd=ROOT,
        env={k: v for k, v in environ_without_test_settings().items() if k != "DATABASE_URL"},  # the SQLite part's
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert "test_browser_selection.py::" in listed
    assert "test_browser_a11y.py::" not in listed  # marked client_side: the SQLite part ran it


def test_a_run_on_postgresql_leaves_out_the_browser_modules_whose_site_is_sqlite():
    files = ["tests/browser/test_browser_move.py", "tests/browser/test_browser_selection.py"]
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly", *files],
        cwd=ROOT,
        env={**environ_without_test_settings(), "DATABASE_URL": "postgres://nobody@127.0.0.1:1/never_opened"},
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert "test_browser_selection.py::" in listed
    assert "test_browser_move.py::" not in listed  # marked vendor("sqlite"): the SQLite part ran it


PARTS = ("sqlite", "postgresql")


def _check(tmp_path: Path, sqlite: dict | None, postgresql: dict | None) -> subprocess.CompletedProcess:
    (tmp_path / "var").mkdir(exist_ok=True)
    for name, report in zip(PARTS, (sqlite, postgresql), strict=True):
        if report is not None:
            (tmp_path / "var" / f"report-{name}.json").write_text(json.dumps(report))
    return subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "check_reports.py"), *(f"var/report-{n}.json" for n in PARTS)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )


GOOD = {"exitstatus": 0, "passed": 10, "browser_passed": 2}
PG = {**GOOD, "vendor": "postgresql"}


@pytest.mark.parametrize(
    ("sqlite", "postgresql", "problem"),
    [
        ({**GOOD, "vendor": "sqlite", "database_only": False}, {**PG, "database_only": True}, None),
        ({**GOOD, "vendor": "sqlite", "database_only": True}, {**GOOD, "vendor": "postgresql"}, "ran nowhere"),
        ({**GOOD, "vendor": "sqlite"}, {**GOOD, "vendor": "postgresql"}, "ran nowhere"),  # an old report says nothing
        ({**GOOD, "vendor": "sqlite", "database_only": False}, None, "did not run"),
        ({**GOOD, "vendor": "sqlite", "database_only": False}, {**GOOD, "vendor": "postgresql", "browser_passed": 0},
         "browser tests did not run"),
    ],
)  # fmt: skip
def test_the_report_check_fails_when_a_part_left_tests_out(tmp_path, sqlite, postgresql, problem):
    done = _check(tmp_path, sqlite, postgresql)
    if problem is None:
        assert done.returncode == 0, done.stdout
    else:
        assert done.returncode == 1 and problem in done.stdout, done.stdout
