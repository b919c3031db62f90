"""The card's pages: the notebooks, a notebook's card, a line and its history, the audit of every row; and what Dad
does to a whole notebook: archive it, mark it reviewed."""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.http import require_GET

from notebooks.card import search
from notebooks.card import selectors as card_selectors
from notebooks.card import services as card_services
from notebooks.card.forms import AuditForm, ReviewedForm
from notebooks.card.views.respond import (
    CARD,
    back_to,
    card_context,
    card_url,
    editor_required,
    history_or_404,
    line_or_panel,
    notebook_or_404,
    refusal_status,
    region,
    render_page,
    retired_context,
    view_state,
)
from notebooks.log.identity.roles import user_is_editor
from notebooks.log.rules import checks
from notebooks.log.rules.errors import Invalid, NotebookError
from notebooks.log.views import selectors


@login_required
@require_GET
def index(request: HttpRequest) -> HttpResponse:
    """Every notebook but the archived ones (an archived one that has lines again shows); ?archived=1 lists those."""
    every = card_selectors.notebook_summaries(request.user.get_username())
    off = [nb for nb in every if nb.archived and not nb.live]
    shelf = request.GET.get("archived") == "1"
    shown = off if shelf else [nb for nb in every if nb not in off]
    context = {"notebooks": shown, "archived_count": len(off), "shelf": shelf, "can_edit": user_is_editor(request.user)}
    return render_page(request, "notebooks/index.html", context)


@editor_required("POST")
def archive(request: HttpRequest, title: str) -> HttpResponse:
    """Put an emptied notebook off the index (archive=1) or back on it (archive=0): a mark with his name, reversible."""
    notebook = notebook_or_404(title)
    off = request.POST.get("archive") != "0"
    try:
        card_services.set_archived(
            notebook=notebook.title, archived_=off, by=request.user.get_username(), why=request.POST.get("why", "")
        )
    except NotebookError as exc:
        return back_to(request, reverse("card:index") + ("?archived=1" if not off else ""), exc.message, messages.ERROR)
    said = f"Archived {notebook.title!r}: it is off the index. Archived notebooks list it."
    return back_to(request, reverse("card:index"), said if off else f"{notebook.title!r} is back on the index.")


@editor_required("POST")
def reviewed(request: HttpRequest, title: str) -> HttpResponse:
    """Mark the notebook reviewed up to the change the page showed."""
    notebook = notebook_or_404(title)
    form = ReviewedForm(request.POST)
    try:
        if not form.is_valid():  # a seq that is no number: refused, not read as "up to the head"
            sent = checks.shown(request.POST.get("seq", ""), 40)
            raise Invalid(f"Mark reviewed names no change of this notebook ({sent}); reload the card, mark it again.")
        seq = form.cleaned_data.get("seq")
        mark = card_services.mark_reviewed(notebook=notebook.title, by=request.user.get_username(), seq=seq)
    except NotebookError as exc:
        if not request.htmx:
            return back_to(request, card_url(notebook, view_state(request.POST)), exc.message, messages.ERROR)
        return region(request, notebook, note=exc.message, status=refusal_status(exc))
    note = f"Marked reviewed: everything up to change {mark.seq}. Lines written after it will show as new."
    if not request.htmx:
        return back_to(request, card_url(notebook, view_state(request.POST)), note)
    return region(request, notebook, note=note)


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
    gone = context["missing_line"] or checks.number_in(retired)
    if gone and selectors.live_line(notebook, gone) is None:
        try:
            notice = retired_context(notebook, gone)
        except Http404:
            notice = {}
        if notice.get("strike"):  # a line that was retired or merged: its notice, with its history
            context.update(panel="retired", n=gone, missing_line=None, **notice)
    target = request.htmx.target if request.htmx else None
    part = {"lines-region": "#region", "more": "#page", "chart": "#chart"}.get(target or "", "")
    return render_page(request, f"{CARD}{part}", context)


@login_required
@require_GET
def line(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = notebook_or_404(title)
    if not request.htmx:  # a link to any line: the page of the card holding it
        return HttpResponseRedirect(card_url(notebook, anchor=f"line-{n}", line=n))
    if selectors.live_line(notebook, n) is None:
        return line_or_panel(request, notebook, "retired", n, **retired_context(notebook, n))
    return line_or_panel(request, notebook, "line", n)


@login_required
@require_GET
def history(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = notebook_or_404(title)
    return line_or_panel(request, notebook, "history", n, entries=history_or_404(notebook, n))


@login_required
@require_GET
def audit(request: HttpRequest) -> HttpResponse:
    form = AuditForm(request.GET or None, titles=card_selectors.titles(), actors=card_selectors.actors())
    filters: dict[str, Any] = {}
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        filters = {"notebook": data["notebook"], "by": data["by"], "op": data["op"], "page": data["page"] or 1}
        filters |= {k: data[k].timestamp() for k in ("since", "until") if data[k]}
    page = card_selectors.audit(**filters)
    return render_page(request, "notebooks/audit.html", {"form": form, "page": page})
