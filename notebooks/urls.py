"""The web pages: sign-in, the notebooks, one notebook's card with its inline actions, the audit, the sessions."""

from django.contrib.auth import views as auth_views
from django.urls import path

from notebooks.card import views
from notebooks.card.security import ThrottledLoginView
from notebooks.sessions import views as session_views

app_name = "card"

urlpatterns = [
    path("accounts/login/", ThrottledLoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", views.index, name="index"),
    path("audit/", views.audit, name="audit"),
    path("sessions/", session_views.sessions_page, name="sessions"),
    path("notebooks/<str:title>/", views.card, name="notebook"),
    path("notebooks/<str:title>/add/", views.add, name="add"),
    path("notebooks/<str:title>/selected/", views.selected, name="selected"),
    path("notebooks/<str:title>/lines/<int:n>/", views.line, name="line"),
    path("notebooks/<str:title>/lines/<int:n>/edit/", views.edit, name="edit"),
    path("notebooks/<str:title>/lines/<int:n>/retire/", views.retire, name="retire"),
    path("notebooks/<str:title>/lines/<int:n>/history/", views.history, name="history"),
    path("notebooks/<str:title>/lines/<int:n>/redact/", views.redact, name="redact"),
]
