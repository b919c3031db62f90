"""The card's reads: the notebooks, one notebook's card, one line, a line's history."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.views.decorators.http import require_GET

from notebooks.card import search
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
    asked = search.parse(request.GET.get("q", "")).number
    if asked and not request.htmx and "line" not in request.GET:
        # Without JavaScript, a number searched for opens the page holding that line, scrolled to it.
        return HttpResponseRedirect(card_url(notebook, request.GET.dict(), anchor=f"line-{asked}", line=asked))
    context = card_context(request, notebook)
    retired = request.GET.get("retired", "")
    gone = context["missing_line"] or (int(retired) if retired.isdigit() else None)
    if gone and selectors.live_line(notebook, gone) is None:
        try:
            notice = retired_context(notebook, gone)
        except NotFound:
            notice = {}
        if notice.get("strike"):  # a line that was retired or merged: its notice, with its history
            context.update(panel="retired", n=gone, missing_line=None, **notice)
    target = request.htmx.target if request.htmx else None
    part = {"lines-region": "#region", "more": "#page"}.get(target or "", "")
    return render_page(request, f"{CARD}{part}", context)


@login_required
@require_GET
def line(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = notebook_or_404(title)
    if not request.htmx:  # a link to any line: the page of the card holding it
        return HttpResponseRedirect(card_url(notebook, anchor=f"line-{n}", line=n))
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
