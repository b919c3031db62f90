from typing import Any

from django.core.checks import Error, register
from django.db import DatabaseError, connections

from notebooks.log import triggers


@register()
def append_only_triggers(app_configs: Any = None, databases: Any = None, **kwargs: Any) -> list[Error]:
    """Fail when a table of the log exists without its append-only triggers."""
    errors: list[Error] = []
    for alias in databases or ["default"]:
        connection = connections[alias]
        try:
            tables = set(connection.introspection.table_names())
            if "notebooks_row" not in tables:
                continue  # not migrated yet: migrate installs them
            missing = triggers.missing(connection)
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
