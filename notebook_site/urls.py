from django.urls import include, path

from notebooks.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("api/", include("notebooks.agents.urls")),
    path("", include("notebooks.urls")),
]
