"""Which notebooks are claimed by an open session: the watcher writes their files but commits them only at land."""

from django.conf import settings
from django.utils.module_loading import import_string

from notebooks.sessions import leases
from notebooks.sessions.claims import open_sessions


def claimed_titles() -> frozenset[str]:
    return frozenset(import_string(settings.NOTEBOOK_VAULT_CLAIMS)())


def open_session_titles() -> set[str]:
    """Titles with an open session; a lease that ran out lapses first (by "vault"), so its file's commits resume."""
    leases.lapse_due(by="vault")
    return set(open_sessions().values_list("notebook__title", flat=True))
