from django.apps import AppConfig


class PeerConfig(AppConfig):
    name = "bench.peer"
    label = "peer"
    default_auto_field = "django.db.models.BigAutoField"
