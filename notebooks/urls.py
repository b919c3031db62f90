from django.urls import path

from . import session_views

urlpatterns: list = [
    path("sessions/", session_views.sessions_page, name="sessions"),
]
