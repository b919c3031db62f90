"""Settings of the outside writers are checked at start (system checks), with the setting named, before any sweep.
The registered checks read the database (E001), hence the db fixture."""

from django.core import checks


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
