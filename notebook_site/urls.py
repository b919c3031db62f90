from django.urls import include, path

urlpatterns = [
    path("api/", include("notebooks.agents.urls")),
    path("", include("notebooks.urls")),
]
