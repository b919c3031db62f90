"""Which notebooks are claimed by an open session: the watcher writes their files but commits them only at land."""

from django.conf import settings
from django.utils.module_loading import import_string


def claimed_titles() -> frozenset[str]:
    """The titles claimed now, from the function settings.NOTEBOOK_VAULT_CLAIMS names."""
    return frozenset(import_string(settings.NOTEBOOK_VAULT_CLAIMS)())


def open_session_titles() -> set[str]:
    """Titles with an open session.

    Sessions (issue 4) are not on main yet, so nothing is claimed through this default: until they are,
    callers pass `claimed=` explicitly. Wiring: return the titles of the sessions that are open
    (taken, neither landed nor abandoned), read with one query.
    """
    return set()
