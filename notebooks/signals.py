from typing import Any

from django.contrib.auth.models import Group, Permission
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper

from notebooks.log.identity.roles import EDITOR_GROUP
from notebooks.log.store import triggers


def secure_delete(connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    """SQLite overwrites what it deletes, so redacted words don't stay in the file (most builds don't by default); a
    receiver, so every settings module's SQLite database has it."""
    if connection.vendor == "sqlite":
        connection.connection.execute("PRAGMA secure_delete = ON")  # the driver's own: not a query tests count


def before_migrate(using: str = "default", **kwargs: Any) -> None:
    """Take out the one trigger that names another table, which SQLite's table rebuilds cannot rename past."""
    triggers.ungate(connections[using])


def after_migrate(using: str = "default", **kwargs: Any) -> None:
    """Re-install the triggers (a SQLite table rebuild drops them) and make sure the editors group exists."""
    triggers.install(connections[using], gate_redactions=True)
    if "auth_group" not in connections[using].introspection.table_names():
        return  # a partial migrate before auth's tables exist
    group, _ = Group.objects.using(using).get_or_create(name=EDITOR_GROUP)
    editing = Permission.objects.using(using).filter(codename="edit_any_line", content_type__app_label="notebooks")
    group.permissions.add(*editing)  # none while auth has not made the app's permissions yet
