from django.urls import include, path

from notebooks.agents import mcp_http
from notebooks.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("api/", include("notebooks.agents.urls")),
    path("mcp", mcp_http.endpoint, name="mcp"),
    path("", include("notebooks.urls")),
]
