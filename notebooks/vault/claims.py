"""Which notebooks are claimed by an open session: the watcher writes their files but commits them only at land."""

from django.conf import settings
from django.utils.module_loading import import_string

from notebooks.sessions import leases
from notebooks.sessions.claims import open_sessions


def claimed_titles() -> frozenset[str]:
    return frozenset(import_string(settings.NOTEBOOK_VAULT_CLAIMS)())


def open_session_titles() -> set[str]:
    """Titles with an open session (taken, neither landed nor abandoned, nor lapsed). The sweep looks here, so the
    lapse of a session whose lease ran out is recorded first: its file's automatic commits resume."""
    leases.lapse_due(by=VAULT_LOOKER)
    return set(open_sessions().values_list("notebook__title", flat=True))


VAULT_LOOKER = "vault"  # who a lapse found by the sweep is recorded by
