from django.apps import AppConfig


class NotebooksConfig(AppConfig):
    name = "notebooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate, pre_migrate

        from notebooks import checks, signals  # noqa: F401 - registers the system checks

        pre_migrate.connect(signals.before_migrate, sender=self)
        post_migrate.connect(signals.after_migrate, sender=self)
