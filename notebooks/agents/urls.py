"""The agent's JSON API (token-authenticated), included at /api/ (api.py; described at /api/openapi.json)."""

from django.urls import path, re_path

from notebooks.agents import api

urlpatterns = [
    path("openapi.json", api.openapi, name="api-openapi"),
    path("notebooks", api.notebooks, name="api-notebooks"),
    path("notebooks/<str:title>/lines", api.lines, name="api-lines"),
    path("notebooks/<str:title>/turn", api.turn, name="api-turn"),
    path("notebooks/<str:title>/rows", api.rows, name="api-rows"),
    path("notebooks/<str:title>/merge", api.merge, name="api-merge"),
    path("notebooks/<str:title>/lines/<str:n>/history", api.history, name="api-history"),
    path("notebooks/<str:title>/lines/<str:n>/edit", api.edit, name="api-edit"),
    path("notebooks/<str:title>/lines/<str:n>/retire", api.retire, name="api-retire"),
    path("notebooks/<str:title>/lines/<str:n>/redact", api.redact, name="api-redact"),
    path("sessions", api.sessions_, name="api-sessions"),
    path("sessions/<str:session_id>", api.session, name="api-session"),
    path("sessions/<str:session_id>/checkpoint", api.checkpoint, name="api-checkpoint"),
    path("sessions/<str:session_id>/land", api.land, name="api-land"),
    path("sessions/<str:session_id>/abandon", api.abandon, name="api-abandon"),
    re_path(r"^(?P<rest>.*)$", api.unknown, name="api-unknown"),
]
