"""The card's reads: the notebooks, one notebook's card, one line, a line's history."""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.views.decorators.http import require_GET

from notebooks.card import selectors as card_selectors
from notebooks.card.views.respond import (
    CARD,
    card_context,
    card_url,
    history_or_404,
    line_or_panel,
    notebook_or_404,
    render_page,
    retired_context,
)
from notebooks.log import selectors
from notebooks.log.errors import NotFound


@login_required
@require_GET
def index(request: HttpRequest) -> HttpResponse:
    return render_page(
        request, "notebooks/index.html", {"notebooks": card_selectors.notebook_summaries(request.user.get_username())}
    )


@login_required
@require_GET
def card(request: HttpRequest, title: str) -> HttpResponse:
    notebook = notebook_or_404(title)
    extra: dict[str, Any] = {}
    retired = request.GET.get("retired", "")
    if retired.isdigit() and selectors.live_line(notebook, int(retired)) is None:
        try:
            extra = {"panel": "retired", "n": int(retired), **retired_context(notebook, int(retired))}
        except NotFound:
            pass
    context = card_context(request, notebook, **extra)
    partial = request.htmx and request.htmx.target == "lines-region"
    return render_page(request, f"{CARD}#region" if partial else CARD, context)


@login_required
@require_GET
def line(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = notebook_or_404(title)
    if not request.htmx:
        return HttpResponseRedirect(card_url(notebook, anchor=f"line-{n}"))
    if selectors.live_line(notebook, n) is None:
        try:
            return line_or_panel(request, notebook, "retired", n, **retired_context(notebook, n))
        except NotFound as exc:
            raise Http404(exc.message) from None
    return line_or_panel(request, notebook, "line", n)


@login_required
@require_GET
def history(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = notebook_or_404(title)
    return line_or_panel(request, notebook, "history", n, entries=history_or_404(notebook, n))
