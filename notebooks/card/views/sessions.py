"""Dad's Sessions page: each session's change and drift side by side, what a landed one brought, and his decision
on one not yet landed or abandoned (open, refused by the gates, or lapsed): land it as his approval, or discard it."""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from notebooks.card.forms import DecideForm
from notebooks.card.views.respond import actor_of, back_to, editor_required, refusal_status, render_page
from notebooks.log.identity.roles import user_is_editor
from notebooks.log.rules.errors import NotebookError
from notebooks.sessions import decisions, leases
from notebooks.sessions import selectors as session_selectors
from notebooks.sessions.states import LANDED, STATES

TEMPLATE = "notebooks/sessions.html"
ROWS_SHOWN = 100  # of a session's change and of its drift
DECIDE_VERBS = (  # verb, the disclosure's label, its reason's, its button's, and the button's class
    ("land", "Land as Dad…", "Reason to land it", "Land as my approval: session", "primary"),
    ("discard", "Discard…", "Reason to discard it", "Discard session", "danger"),
)
DONE = {
    "land": "Session #{pk} landed as your approval, with your reason.",
    "discard": "Session #{pk} discarded, with your reason. Its rows never count: they stay in the log and in history.",
}
WRITTEN = (
    "Session #{pk} discarded, with your reason. Its rows, written by an older release, counted as written and still do."
)


def _context(request: HttpRequest, **more: object) -> dict[str, object]:
    return {
        "ttl": leases.ttl(),
        "can_decide": user_is_editor(request.user),
        "reason_limit": settings.NOTEBOOK_MAX_REASON,
        "decide_verbs": DECIDE_VERBS,
        **more,
    }


@require_GET
@login_required
def sessions_page(request: HttpRequest) -> HttpResponse:
    state = request.GET.get("state")
    state = state if state in STATES else None
    leases.lapse_due(by=request.user.get_username())  # decided when someone looks: Dad's page looks at every session
    views = session_selectors.recent(limit=50, state=state, rows=True, row_limit=ROWS_SHOWN, brought=True)
    return render(request, TEMPLATE, _context(request, views=views, state=state, states=STATES))


def _one(pk: int) -> session_selectors.SessionView:
    """One session as the page shows it, for the fragment htmx swaps in its place."""
    view = session_selectors.describe(session_selectors.get_session(pk), rows=True, limit=ROWS_SHOWN)
    if view.state == LANDED:
        view.brought = session_selectors.brought_by([pk]).get(pk)
    return view


def _decide(request: HttpRequest, pk: int, verb: str) -> HttpResponse:
    try:
        session_selectors.get_session(pk)
    except NotebookError as exc:  # no such session, or no session id at all
        raise Http404(exc.message) from None
    form = DecideForm(request.POST)
    error, status = "", 200
    if form.is_valid():
        decide = decisions.land_as_editor if verb == "land" else decisions.discard
        try:
            decide(session=pk, reason=form.cleaned_data["reason"], by=actor_of(request))
        except NotebookError as exc:
            status = refusal_status(exc)  # forbidden and not found raise; a decided session is 409, the rest 422
            error = exc.message
    else:
        status, error = 422, " ".join(e for errors in form.errors.values() for e in errors)
    v = _one(pk)
    done = (WRITTEN if verb == "discard" and v.counted_as_written else DONE[verb]).format(pk=pk)
    if status == 200 and not request.htmx:
        return back_to(request, reverse("card:sessions") + f"#session-{pk}", done)
    # The draft whole, as the refusal promises (a request is at most DATA_UPLOAD_MAX_MEMORY_SIZE, as every card form's).
    failed = {"verb": verb, "error": error, "reason": request.POST.get("reason", "")} if error else None
    context = _context(request, v=v, failed=failed, done=done if not error else "")
    if request.htmx:
        return render_page(request, f"{TEMPLATE}#session", context, status=status)
    views = session_selectors.recent(limit=50, rows=True, row_limit=ROWS_SHOWN, brought=True)
    return render_page(request, TEMPLATE, {**context, "views": views, "states": STATES, "state": None}, status)


@editor_required("POST")
def land(request: HttpRequest, pk: int) -> HttpResponse:
    """Land the session as Dad's approval: his name and reason on the land, the gates' reasons recorded beside it."""
    return _decide(request, pk, "land")


@editor_required("POST")
def discard(request: HttpRequest, pk: int) -> HttpResponse:
    """End the session without a land: an abandon by Dad with his reason (its rows stay in the log and never count)."""
    return _decide(request, pk, "discard")
