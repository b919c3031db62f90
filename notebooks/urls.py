from django.urls import path  # noqa: F401 - the card and the API add their routes here

urlpatterns: list = []
