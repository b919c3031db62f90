"""collectstatic without what the app never serves: ninja's ReDoc (the docs page is its Swagger UI)."""

from django.contrib.staticfiles.apps import StaticFilesConfig


class StaticFiles(StaticFilesConfig):
    ignore_patterns = [*StaticFilesConfig.ignore_patterns, "redoc.*"]
