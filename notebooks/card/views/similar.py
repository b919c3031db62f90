"""Dad's decision on one group of the Similar view (merge, keep one, not alike, and its undo), in the group's place."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django_htmx.http import reswap, retarget

from notebooks.card import similar as card_similar
from notebooks.card.forms import SimilarForm
from notebooks.card.views.respond import (
    INVALID,
    actor_of,
    back_to,
    card_context,
    card_url,
    editor_required,
    notebook_or_404,
    refusal_status,
    render_page,
    with_oob,
)
from notebooks.log import services
from notebooks.log.rules.errors import NotebookError, NotFound
from notebooks.log.views import selectors
from notebooks.models import Notebook
from notebooks.similar import services as similar_services

SIMILAR = "notebooks/similar.html"
VIEW = {"show": "similar"}


@login_required
@editor_required("POST")
def decide(request: HttpRequest, title: str) -> HttpResponse:
    notebook = notebook_or_404(title)
    form = SimilarForm(request.POST)
    status = INVALID
    if form.is_valid():
        try:
            note, fresh = _apply(request, notebook, form.cleaned_data)
        except NotebookError as exc:  # a line gone since the view was drawn: said in the group, not a 404
            status = INVALID if isinstance(exc, NotFound) else refusal_status(exc)
            form.add_error(None, f"Nothing was changed. {exc.message}")
        else:
            if form.cleaned_data["action"] != "not-alike":
                card_similar.remember_reason(request, request.POST.get("kind", ""), form.cleaned_data["reason"].strip())
            if not request.htmx:
                return back_to(request, card_url(notebook, VIEW), note)
            # The whole view again, the note above it: a decision may change other groups (a line gone, a new one).
            context = card_context(request, notebook, QueryDict("show=similar"), similar_note=note, similar_fresh=fresh)
            return with_oob(request, render_page(request, f"{SIMILAR}#groups", context), notebook, note)
    return _group_again(request, notebook, form, status)


def _apply(request: HttpRequest, notebook: Notebook, data: dict) -> tuple[str, int | None]:
    """Write Dad's decision; returns what to tell him and the line that now says the group, if any."""
    numbers, keep, why = data["n"], data.get("keep"), (data.get("reason") or "").strip()
    listed = ", ".join(f"#{x}" for x in numbers)
    by = actor_of(request)
    if data["action"] == "not-alike":
        # The reason field speaks for a merge or a keep (it may hold his last one): a mark needs none.
        similar_services.mark_not_alike(notebook=notebook.title, numbers=numbers, by=by.name)
        return f"Marked {listed} not alike: this group is not offered again.", None
    if data["action"] == "keep":
        others = [x for x in numbers if x != keep]
        services.retire_into(notebook=notebook.title, numbers=others, into=keep, by=by, why=why)
        return f"Kept #{keep}; retired {', '.join(f'#{x}' for x in others)} into it.", keep
    words = (data.get("words") or "").strip()
    if not words:
        kept = selectors.live_line(notebook, keep)
        if kept is None:
            raise NotFound(f"Line #{keep} is no longer live.")
        words = kept.text
    written = services.merge(notebook=notebook.title, numbers=numbers, text=words, by=by, why=why)
    made = selectors.live_line(notebook, written.n)
    whose = "" if made is None else f" ({made.source.replace('_', ' ')})"
    return f"Merged {listed} into new line #{written.n}{whose}.", written.n


def _key(request: HttpRequest) -> str:
    """The group's id on the page: every line it was drawn with, those left out included."""
    return "-".join(x for x in request.POST.getlist("n") if x.isdigit())


def _group_again(request: HttpRequest, notebook: Notebook, form: SimilarForm, status: int) -> HttpResponse:
    """A refused decision: the group again, with the message and Dad's draft as he typed it."""
    numbers = [int(x) for x in request.POST.getlist("n") if x.isdigit()]
    group = card_similar.group_of(selectors.view(notebook), numbers, request.POST.get("kind", "repeat"))
    if group is None and request.htmx:  # its lines are gone since the view was drawn: the view as it is now
        said = " ".join(form.top_errors()) or "Nothing was changed: those lines changed since the view was drawn."
        context = card_context(request, notebook, QueryDict("show=similar"), similar_note=said)
        return render_page(request, f"{SIMILAR}#groups", context, status)
    context = {"notebook": notebook, "group": group, "form": form, "can_edit": True, "draft": request.POST,
               "draft_out": request.POST.getlist("out"), "draft_add": request.POST.getlist("add")}  # fmt: skip
    if request.htmx:  # only the group refused, in its place: the others may hold drafts
        answer = render_page(request, f"{SIMILAR}#group", context, status)
        return reswap(retarget(answer, f"#group-{_key(request)}"), "outerHTML")
    for error in form.top_errors() + [e for f in form for e in f.errors]:
        messages.error(request, error)
    return HttpResponseRedirect(card_url(notebook, VIEW))


@login_required
@editor_required("POST")
def undo_not_alike(request: HttpRequest, title: str, mark: int) -> HttpResponse:
    notebook = notebook_or_404(title)
    try:
        similar_services.undo_not_alike(notebook=notebook.title, mark_id=mark, by=request.user.get_username())
    except NotebookError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "The group is offered again.")
    return HttpResponseRedirect(card_url(notebook, VIEW))
