"""Dad's Sessions page: each session with its change and its drift side by side, and what a landed one brought."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from notebooks.sessions import leases
from notebooks.sessions import selectors as session_selectors

STATES = ("open", "landed", "no-op", "abandoned", "lapsed")


@require_GET
@login_required
def sessions_page(request: HttpRequest) -> HttpResponse:
    state = request.GET.get("state")
    state = state if state in STATES else None
    leases.lapse_due(by=request.user.get_username())  # decided when someone looks: Dad's page looks at every session
    views = session_selectors.recent(limit=50, state=state, rows=True, row_limit=100, brought=True)
    return render(
        request, "notebooks/sessions.html", {"views": views, "state": state, "states": STATES, "ttl": leases.ttl()}
    )
