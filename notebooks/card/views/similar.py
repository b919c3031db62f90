"""Dad's decision on one group of the Similar view (merge, keep one, not alike, and its undo), in the group's place."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django_htmx.http import reswap, retarget

from notebooks.card import similar as card_similar
from notebooks.card.forms import SimilarForm, UndoMergeForm
from notebooks.card.views.respond import (
    INVALID,
    SIMILAR,
    SIMILAR_VIEW,
    actor_of,
    back_to,
    card_url,
    editor_required,
    line_or_panel,
    notebook_or_404,
    refusal_status,
    region,
    render_page,
    similar_decided,
    similar_groups,
    similar_refused,
    similar_view,
    with_oob,
)
from notebooks.log import services
from notebooks.log.rules.errors import NotebookError, NotFound
from notebooks.log.store import rows as stored
from notebooks.log.views import selectors
from notebooks.models import Notebook
from notebooks.similar import services as similar_services


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
            data = form.cleaned_data
            if data["action"] != "not-alike":
                kind = request.POST.get("kind", "")
                card_similar.remember_reason(request, kind, data["reason"].strip(), carry=data["carry"])
            merged = fresh if data["action"] == "merge" else None  # its note offers the merge's undo
            return similar_decided(
                request, notebook, data.get("drawn"), note, similar_fresh=fresh, similar_merged=merged
            )
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
    words = (data.get("words") or "").strip() or card_similar.words_to_keep(notebook, keep)
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
    if group is None or not request.htmx:
        return similar_refused(request, notebook, form, status)
    context = {"notebook": notebook, "group": group, "form": form, "can_edit": True, "draft": request.POST,
               "draft_out": request.POST.getlist("out"), "draft_add": request.POST.getlist("add"),
               "similar_drawn": form.cleaned_data.get("drawn") if hasattr(form, "cleaned_data") else None}  # fmt: skip
    answer = render_page(request, f"{SIMILAR}#group", context, status)  # in its place: the others may hold drafts
    return reswap(retarget(answer, f"#group-{_key(request)}"), "outerHTML")


@editor_required("POST")
def undo_not_alike(request: HttpRequest, title: str, mark: int) -> HttpResponse:
    notebook = notebook_or_404(title)
    try:
        similar_services.undo_not_alike(notebook=notebook.title, mark_id=mark, by=request.user.get_username())
    except NotebookError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "The group is offered again.")
    return HttpResponseRedirect(card_url(notebook, SIMILAR_VIEW))


@editor_required("GET", "POST")
def undo_merge(request: HttpRequest, title: str, n: int) -> HttpResponse:
    """Undo the merge that made line n in one step, for one reason: its lines restored, line n retired. Asked from
    the Similar view's note on the merge (answered there) or from a merged line's notice on the card."""
    notebook = notebook_or_404(title)
    merged = stored.merged_into(notebook.pk, n)
    shown = {"merged_lines": merged, "undo_of": n}
    if request.method == "GET":
        return line_or_panel(request, notebook, "undo-merge-form", n, undo_form=UndoMergeForm(n=n), **shown)
    form = UndoMergeForm(request.POST, n=n)
    from_similar = request.POST.get("show") == "similar"
    status = INVALID
    if form.is_valid():
        try:
            why = form.cleaned_data["reason"]
            undone = services.undo_merge(notebook=notebook.title, n=n, by=actor_of(request), why=why)
        except NotebookError as exc:
            form.add_error(None, f"Nothing was changed. {exc.message}")
            status = INVALID if isinstance(exc, NotFound) else refusal_status(exc)
        else:
            back = ", ".join(f"#{x} as #{y}" for x, y in undone.restored.items())
            note = f"Undid the merge into #{n}: restored {back}; #{n} is retired."
            fresh = tuple(undone.restored.values())
            if from_similar:
                drawn = form.cleaned_data.get("drawn")
                if not request.htmx:
                    return back_to(request, card_url(notebook, similar_view(drawn)), note)
                return with_oob(request, similar_groups(request, notebook, drawn, similar_note=note), notebook, note)
            if not request.htmx:
                return back_to(request, card_url(notebook, anchor=f"line-{fresh[0]}"), note)
            return reswap(retarget(region(request, notebook, note=note, fresh=fresh), "#lines-region"), "outerHTML")
    if from_similar:  # refused from the Similar view's note: said there, the groups as they were drawn
        said = " ".join(form.top_errors() + [e for e in form.errors.get("reason", [])])
        drawn = request.POST.get("drawn", "")
        if not request.htmx:
            return back_to(request, card_url(notebook, similar_view(drawn)), said, messages.ERROR)
        return similar_groups(request, notebook, drawn, status, similar_note=said, similar_merged=n)
    return line_or_panel(request, notebook, "undo-merge-form", n, undo_form=form, status=status, **shown)
