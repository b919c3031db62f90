"""Dad's decisions in the Similar view, each answered in its place: on one of the engine's groups (merge, keep one,
not alike, and its undo), and on a suggestion from outside, with his SuggestionDecision (similar/suggestions.decide).
"""

from collections.abc import Callable
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django_htmx.http import reswap, retarget

from notebooks.card import similar as card_similar
from notebooks.card.forms import SimilarForm, SuggestionForm, UndoMergeForm
from notebooks.card.views.respond import (
    INVALID,
    actor_of,
    back_to,
    card_context,
    card_url,
    editor_required,
    line_or_panel,
    notebook_or_404,
    refusal_status,
    region,
    render_page,
    with_oob,
)
from notebooks.log import services
from notebooks.log.rules import checks
from notebooks.log.rules.checks import MAX_ID
from notebooks.log.rules.errors import NotebookError, NotFound
from notebooks.log.store import rows as stored
from notebooks.log.views import selectors
from notebooks.models import Notebook, Suggestion
from notebooks.similar import services as similar_services
from notebooks.similar import suggestions
from notebooks.similar.services import listed

SIMILAR = "notebooks/similar.html"
SUGGESTIONS = "notebooks/suggestions.html"
SIMILAR_VIEW = {"show": "similar"}  # the card's query that opens the Similar view
# What a decision wrote: the note to Dad, the line that now says the group (if any), the kind whose reason it
# carries to the next groups (None when it changed no line), and the merge its note offers to undo.
Done = tuple[str, int | None, str | None, int | None]


def similar_view(drawn: int | str | None) -> dict[str, str]:
    """The Similar view's query with its groups as drawn at row `drawn` ("" when the page named none)."""
    return {**SIMILAR_VIEW, "drawn": "" if drawn is None else str(drawn)}


def similar_groups(
    request: HttpRequest, notebook: Notebook, drawn: int | str | None, status: int = 200, **context: Any
) -> HttpResponse:
    """The Similar view's groups as drawn at row `drawn`, with `context` (a note, the lines just made...)."""
    shown = QueryDict(mutable=True)
    shown.update(similar_view(drawn))
    return render_page(request, f"{SIMILAR}#groups", card_context(request, notebook, shown, **context), status)


def _decided(
    request: HttpRequest,
    notebook: Notebook,
    form: SimilarForm | SuggestionForm,
    write: Callable[[dict], Done],
    again: Callable[[int], HttpResponse],
) -> HttpResponse:
    """A valid decision written: the groups as drawn, with its note, and a URL naming them so a reload shows the same
    (the card, without htmx). Refused: `again` with the status, the refusal in the form."""
    if not form.is_valid():
        return again(INVALID)
    data = form.cleaned_data
    try:
        note, fresh, kind, merged = write(data)
    except NotebookError as exc:  # a line gone since the view was drawn: said in its place, not a 404
        form.add_error(None, f"Nothing was changed. {exc.message}")
        return again(INVALID if isinstance(exc, NotFound) else refusal_status(exc))
    if kind is not None:
        card_similar.remember_reason(request, kind, data["reason"].strip(), carry=data["carry"])
    # The engine's groups stay those drawn when Dad opened the view, after a decision on a suggestion as on a group.
    view = similar_view(data.get("drawn"))
    if not request.htmx:
        return back_to(request, card_url(notebook, view), note)
    shown = similar_groups(
        request, notebook, data["drawn"], similar_note=note, similar_fresh=fresh, similar_merged=merged
    )
    answer = with_oob(request, shown, notebook, note)
    answer["HX-Replace-Url"] = card_url(notebook, view)
    return answer


def _refused(request: HttpRequest, notebook: Notebook, form: SimilarForm | SuggestionForm, status: int) -> HttpResponse:
    """A refused decision whose group is gone: the view as it is now, or the card saying why."""
    if not request.htmx:
        for error in form.top_errors() + [e for f in form for e in f.errors]:
            messages.error(request, error)
        return HttpResponseRedirect(card_url(notebook, SIMILAR_VIEW))
    said = " ".join(form.top_errors()) or "Nothing was changed: those lines changed since the view was drawn."
    return similar_groups(request, notebook, request.POST.get("drawn", ""), status, similar_note=said)


def _in_place(request: HttpRequest, template: str, key: str, status: int, **context: Any) -> HttpResponse:
    """A refused decision again in its place, with the message and Dad's draft as he typed it: the others may hold
    drafts."""
    context |= {"can_edit": True, "draft": request.POST, "draft_out": request.POST.getlist("out")}
    context["reason_limit"] = settings.NOTEBOOK_MAX_REASON  # the field counts as it does on the page
    return reswap(retarget(render_page(request, template, context, status), f"#{key}"), "outerHTML")


@editor_required("POST")
def decide(request: HttpRequest, title: str) -> HttpResponse:
    notebook = notebook_or_404(title)
    form = SimilarForm(request.POST)
    return _decided(
        request, notebook, form, partial(_apply, request, notebook), partial(_group_again, request, notebook, form)
    )


def _apply(request: HttpRequest, notebook: Notebook, data: dict) -> Done:
    """Write Dad's decision on an engine's group."""
    numbers, keep, why = data["n"], data.get("keep"), (data.get("reason") or "").strip()
    by = actor_of(request)
    kind = request.POST.get("kind", "")
    if data["action"] == "not-alike":
        # The reason field speaks for a merge or a keep (it may hold his last one): a mark needs none.
        similar_services.mark_not_alike(notebook=notebook.title, numbers=numbers, by=by.name)
        return f"Marked {listed(numbers)} not alike: this group is not offered again.", None, None, None
    if data["action"] == "keep":
        others = [x for x in numbers if x != keep]
        services.retire_into(notebook=notebook.title, numbers=others, into=keep, by=by, why=why)
        return f"Kept #{keep}; retired {listed(others)} into it.", keep, kind, None
    words = (data.get("words") or "").strip() or card_similar.words_to_keep(notebook, keep)
    written = services.merge(notebook=notebook.title, numbers=numbers, text=words, by=by, why=why)
    made = selectors.live_line(notebook, written.n)
    whose = "" if made is None else f" ({made.source.replace('_', ' ')})"
    return f"Merged {listed(numbers)} into new line #{written.n}{whose}.", written.n, kind, written.n


def _key(request: HttpRequest) -> str:
    """The group's id on the page: every line it was drawn with, those left out included."""
    return "-".join(str(n) for x in request.POST.getlist("n") if (n := checks.number_in(x)))


def _group_again(request: HttpRequest, notebook: Notebook, form: SimilarForm, status: int) -> HttpResponse:
    numbers = [n for x in request.POST.getlist("n") if (n := checks.number_in(x))]
    group = card_similar.group_of(selectors.view(notebook), numbers, request.POST.get("kind", "repeat"))
    if group is None or not request.htmx:
        return _refused(request, notebook, form, status)
    drawn = form.cleaned_data.get("drawn") if hasattr(form, "cleaned_data") else None
    return _in_place(
        request, f"{SIMILAR}#group", f"group-{_key(request)}", status, notebook=notebook, group=group, form=form,
        draft_add=request.POST.getlist("add"), similar_drawn=drawn,
    )  # fmt: skip


@editor_required("POST")
def suggestion(request: HttpRequest, title: str, suggestion: int) -> HttpResponse:
    """Dad's decision on a suggestion: the same decisions as an engine group's, and Retire or Dismiss a stray."""
    notebook = notebook_or_404(title)
    form = SuggestionForm(request.POST)

    def write(data: dict) -> Done:
        done = suggestions.decide(
            notebook=notebook.title, suggestion=suggestion, action=data["action"], by=actor_of(request),
            why=data["reason"].strip(), numbers=data["n"] or None, keep=data.get("keep"), words=data["words"],
        )  # fmt: skip
        # As an engine group's, only a decision that changes lines carries its reason.
        kind = None if data["action"] in ("not-alike", "dismiss") else done.decision.suggestion.kind
        return done.note, done.fresh, kind, None

    return _decided(request, notebook, form, write, partial(_suggestion_again, request, notebook, suggestion, form))


def _suggestion_again(
    request: HttpRequest, notebook: Notebook, number: int, form: SuggestionForm, status: int
) -> HttpResponse:
    """The suggestion again, or, when it no longer pends, the view as it is now."""
    found = Suggestion.objects.filter(notebook=notebook, pk=number).first()
    live = {x.n: x for x in selectors.view(notebook) if not x.redacted}
    view = card_similar.suggestion_view(found, live) if found is not None else None
    if view is None or len(view.group.choices) < len(found.lines) or not request.htmx:
        return _refused(request, notebook, form, status)
    drawn = request.POST.get("drawn", "")
    return _in_place(
        request, f"{SUGGESTIONS}#suggestion", f"suggestion-{view.key}", status, notebook=notebook, item=view,
        form=form, similar_drawn=checks.number_in(drawn, MAX_ID),
    )  # fmt: skip


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
