"""Settings of the outside writers are checked at start (system checks), with the setting named, before any sweep.
The registered checks read the database (E001), hence the db fixture. A relative SQLite path is the checkout's."""

import subprocess
import sys

from django.core import checks

from tests.databases import ROOT


def _ids(settings, **values) -> list[str]:  # noqa: ANN001
    for name, value in values.items():
        setattr(settings, name, value)
    return [m.id for m in checks.run_checks(include_deployment_checks=False) if m.id.startswith("notebooks.E00")]


def test_a_bad_unproven_policy_is_an_error_naming_it(db, settings):
    assert "notebooks.E002" in _ids(settings, NOTEBOOK_VAULT_UNPROVEN="reject")
    message = next(m for m in checks.run_checks() if m.id == "notebooks.E002").msg
    assert message == "NOTEBOOK_VAULT_UNPROVEN is 'reject'; it is 'agent' or 'refuse'."


def test_a_bad_outside_agents_name_is_an_error(db, settings):
    assert "notebooks.E003" in _ids(settings, NOTEBOOK_VAULT_OUTSIDE_AGENT="out\nside")


def test_the_defaults_and_refuse_pass(db, settings):
    assert _ids(settings) == []
    assert _ids(settings, NOTEBOOK_VAULT_UNPROVEN="refuse") == []


def test_a_relative_sqlite_path_is_the_checkouts_wherever_the_command_runs(tmp_path):
    name = f"var/test-relative-{tmp_path.name}.sqlite3"
    env = {
        "PATH": "/usr/bin:/bin",
        "DATABASE_URL": f"sqlite:///{name}",
        "DJANGO_SETTINGS_MODULE": "notebook_site.settings",
    }
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); from django.conf import settings; "
         "print(settings.DATABASES['default']['NAME'])"],
        cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(ROOT / name) and not (tmp_path / "var").exists()
