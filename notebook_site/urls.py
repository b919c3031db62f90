from django.urls import include, path

urlpatterns = [
    path("api/", include("notebooks.api_urls")),
    path("", include("notebooks.urls")),
]
