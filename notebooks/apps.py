from django.apps import AppConfig


class NotebooksConfig(AppConfig):
    name = "notebooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created
        from django.db.models.signals import post_migrate, pre_migrate

        from notebooks import checks, signals  # noqa: F401 - registers the system checks
        from notebooks.log.rules import guards
        from notebooks.log.store import append
        from notebooks.log.views import caches
        from notebooks.sessions.claims import WRITE_GUARD
        from notebooks.vault import wiring

        guards.register(WRITE_GUARD)  # the core enforces sessions' rule on every write without importing them
        append.register(caches.Caches())  # the store tells the views' caches of every write without importing them
        wiring.install()  # the vault's hooks around sessions, when a vault is configured

        pre_migrate.connect(signals.before_migrate, sender=self)
        post_migrate.connect(signals.after_migrate, sender=self)
        connection_created.connect(signals.secure_delete, dispatch_uid="notebooks.secure_delete")
