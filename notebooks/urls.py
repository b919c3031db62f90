"""The web pages: sign-in, the notebooks, one notebook's card with its inline actions, the audit, the sessions."""

from django.contrib.auth import views as auth_views
from django.urls import path

from notebooks.card.security import ThrottledLoginView
from notebooks.card.views import lines, pages, selection, similar
from notebooks.card.views import sessions as session_views

app_name = "card"

urlpatterns = [
    path("accounts/login/", ThrottledLoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", pages.index, name="index"),
    path("audit/", pages.audit, name="audit"),
    path("sessions/", session_views.sessions_page, name="sessions"),
    path("sessions/<int:pk>/land/", session_views.land, name="session-land"),
    path("sessions/<int:pk>/discard/", session_views.discard, name="session-discard"),
    path("notebooks/<str:title>/", pages.card, name="notebook"),
    path("notebooks/<str:title>/archive/", pages.archive, name="archive"),
    path("notebooks/<str:title>/add/", selection.add, name="add"),
    path("notebooks/<str:title>/selected/", selection.selected, name="selected"),
    path("notebooks/<str:title>/similar/", similar.decide, name="similar"),
    path("notebooks/<str:title>/similar/<int:mark>/undo/", similar.undo_not_alike, name="similar-undo"),
    path("notebooks/<str:title>/suggestions/<int:suggestion>/", similar.suggestion, name="suggestion"),
    path("notebooks/<str:title>/lines/<int:n>/", pages.line, name="line"),
    path("notebooks/<str:title>/lines/<int:n>/edit/", lines.edit, name="edit"),
    path("notebooks/<str:title>/lines/<int:n>/retire/", lines.retire, name="retire"),
    path("notebooks/<str:title>/lines/<int:n>/move/", lines.move, name="move"),
    path("notebooks/<str:title>/lines/<int:n>/history/", pages.history, name="history"),
    path("notebooks/<str:title>/lines/<int:n>/redact/", lines.redact, name="redact"),
    path("notebooks/<str:title>/reviewed/", pages.reviewed, name="reviewed"),
    path("notebooks/<str:title>/lines/<int:n>/restore/", lines.restore, name="restore"),
    path("notebooks/<str:title>/lines/<int:n>/put-back/", lines.put_back, name="put-back"),
    path("notebooks/<str:title>/lines/<int:n>/undo-merge/", similar.undo_merge, name="undo-merge"),
]
