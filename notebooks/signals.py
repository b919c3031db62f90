from typing import Any

from django.db import connections


def after_migrate(using: str = "default", **kwargs: Any) -> None:
    """Re-install the triggers (a SQLite table rebuild drops them) and make sure the editors group exists."""
    from django.contrib.auth.models import Group, Permission

    from . import triggers
    from .roles import EDITOR_GROUP

    triggers.install(connections[using])
    if "auth_group" not in connections[using].introspection.table_names():
        return  # a partial migrate before auth's tables exist
    group, _ = Group.objects.using(using).get_or_create(name=EDITOR_GROUP)
    permission = (
        Permission.objects.using(using).filter(codename="edit_any_line", content_type__app_label="notebooks").first()
    )
    if permission is not None:
        group.permissions.add(permission)
