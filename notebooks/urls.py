"""The web pages: sign-in, the notebooks, one notebook's card with its inline actions, the audit, the sessions."""

from django.contrib.auth import views as auth_views
from django.urls import path, register_converter

from notebooks.card.security import ThrottledLoginView
from notebooks.card.views import lines, pages, selection, similar
from notebooks.card.views import sessions as session_views
from notebooks.log.rules.checks import MAX_ID, MAX_NUMBER


class Id:
    """A row's id in a URL: digits for 1 to a bigint's most; any other number names nothing (404, never a 500)."""

    regex, most = "[0-9]{1,19}", MAX_ID

    def to_python(self, value: str) -> int:
        if not 1 <= int(value) <= self.most:
            raise ValueError(value)  # no match: the URL names nothing
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


class LineNumber(Id):
    regex, most = "[0-9]{1,10}", MAX_NUMBER


register_converter(Id, "id")
register_converter(LineNumber, "line")
app_name = "card"

urlpatterns = [
    path("accounts/login/", ThrottledLoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", pages.index, name="index"),
    path("audit/", pages.audit, name="audit"),
    path("sessions/", session_views.sessions_page, name="sessions"),
    path("sessions/<id:pk>/land/", session_views.land, name="session-land"),
    path("sessions/<id:pk>/discard/", session_views.discard, name="session-discard"),
    path("notebooks/<str:title>/", pages.card, name="notebook"),
    path("notebooks/<str:title>/archive/", pages.archive, name="archive"),
    path("notebooks/<str:title>/add/", selection.add, name="add"),
    path("notebooks/<str:title>/selected/", selection.selected, name="selected"),
    path("notebooks/<str:title>/similar/", similar.decide, name="similar"),
    path("notebooks/<str:title>/similar/<id:mark>/undo/", similar.undo_not_alike, name="similar-undo"),
    path("notebooks/<str:title>/suggestions/<id:suggestion>/", similar.suggestion, name="suggestion"),
    path("notebooks/<str:title>/lines/<line:n>/", pages.line, name="line"),
    path("notebooks/<str:title>/lines/<line:n>/edit/", lines.edit, name="edit"),
    path("notebooks/<str:title>/lines/<line:n>/retire/", lines.retire, name="retire"),
    path("notebooks/<str:title>/lines/<line:n>/move/", lines.move, name="move"),
    path("notebooks/<str:title>/lines/<line:n>/history/", pages.history, name="history"),
    path("notebooks/<str:title>/lines/<line:n>/redact/", lines.redact, name="redact"),
    path("notebooks/<str:title>/reviewed/", pages.reviewed, name="reviewed"),
    path("notebooks/<str:title>/lines/<line:n>/restore/", lines.restore, name="restore"),
    path("notebooks/<str:title>/lines/<line:n>/put-back/", lines.put_back, name="put-back"),
    path("notebooks/<str:title>/lines/<line:n>/undo-merge/", similar.undo_merge, name="undo-merge"),
]
