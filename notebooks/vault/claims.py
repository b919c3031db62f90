"""Which notebooks are claimed by an open session: the watcher writes their files but commits them only at land."""

from django.conf import settings
from django.utils.module_loading import import_string

from notebooks.sessions.claims import open_sessions


def claimed_titles() -> frozenset[str]:
    """The titles claimed now, from the function settings.NOTEBOOK_VAULT_CLAIMS names."""
    return frozenset(import_string(settings.NOTEBOOK_VAULT_CLAIMS)())


def open_session_titles() -> set[str]:
    """Titles with an open session (taken, neither landed nor abandoned)."""
    return set(open_sessions().values_list("notebook__title", flat=True))
