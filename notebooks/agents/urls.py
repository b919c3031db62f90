"""The agent's JSON API (token-authenticated), included at /api/: ninja's routes (api/), the generated document at
/api/openapi.json, the docs at /api/docs, and a JSON 404 for anything else."""

from django.urls import re_path

from notebooks.agents import api

app_name = "api"
urlpatterns = [*api.urlpatterns(), re_path(r"^(?P<rest>.*)$", api.unknown, name="unknown")]
