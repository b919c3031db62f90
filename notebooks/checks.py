from typing import Any

from django.conf import settings
from django.core.checks import Error, register
from django.db import DatabaseError, connections
from django.db.migrations.loader import MigrationLoader

from notebooks.log.identity.writer_keys import UNPROVEN_POLICIES
from notebooks.log.rules.checks import problem_of_name
from notebooks.log.store import triggers


@register()
def append_only_triggers(app_configs: Any = None, databases: Any = None, **kwargs: Any) -> list[Error]:
    """Fail when a table of the log exists without its append-only triggers."""
    errors: list[Error] = []
    for alias in databases or ["default"]:
        connection = connections[alias]
        try:
            missing = triggers.missing(connection)  # none on a table not made yet: migrate installs them
        except DatabaseError:
            continue
        if missing:
            errors.append(
                Error(
                    f"The append-only triggers are missing on database {alias!r}: {', '.join(missing)}.",
                    hint="Run 'python manage.py migrate --skip-checks': after every migrate they are re-installed.",
                    id="notebooks.E001",
                )
            )
    return errors


@register()
def outside_writer_settings(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """A bad NOTEBOOK_VAULT_UNPROVEN or outside agent's name is said at start, not by the first sweep."""
    errors: list[Error] = []
    policy = settings.NOTEBOOK_VAULT_UNPROVEN
    if policy not in UNPROVEN_POLICIES:
        errors.append(
            Error(
                f"NOTEBOOK_VAULT_UNPROVEN is {str(policy)[:40]!r}; it is 'agent' or 'refuse'.",
                hint="Unset it for 'agent' (an unproven outside row is the outside agent's); docs/vault.md.",
                id="notebooks.E002",
            )
        )
    problem = problem_of_name(settings.NOTEBOOK_VAULT_OUTSIDE_AGENT)
    if problem:
        errors.append(
            Error(
                f"NOTEBOOK_VAULT_OUTSIDE_AGENT {problem}.",
                hint="It names the agent an unproven outside row is by (default 'outside'); docs/vault.md.",
                id="notebooks.E003",
            )
        )
    return errors


@register()
def no_newer_schema(app_configs: Any = None, databases: Any = None, **kwargs: Any) -> list[Error]:
    """Fail when a newer release migrated the database: this code would misread its rows and write rows without them."""
    errors: list[Error] = []
    for alias in databases or ["default"]:
        try:
            loader = MigrationLoader(connections[alias], ignore_no_migrations=True)
        except DatabaseError:
            continue
        mine = {name for app, name in loader.disk_migrations if app == "notebooks"}
        mine |= {name for m in loader.disk_migrations.values() for app, name in m.replaces if app == "notebooks"}
        last = max(map(_number, mine), default=0)  # a renamed or squashed migration of the past is no newer
        newer = sorted(n for app, n in loader.applied_migrations if app == "notebooks" and _number(n) > last)
        if newer:
            errors.append(
                Error(
                    f"Database {alias!r} was migrated by a newer release ({', '.join(newer)}) than this code.",
                    hint="Run the release that migrated it (docs/DEPLOY.md, 'PostgreSQL roles'); never an older one.",
                    id="notebooks.E004",
                )
            )
    return errors


def _number(migration: str) -> int:
    return int(migration[:4]) if migration[:4].isdigit() else 0
