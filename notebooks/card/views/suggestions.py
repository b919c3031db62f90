"""Dad's decision on a suggestion from outside, in the Similar view: the same decisions as an engine group's, and
his SuggestionDecision with his reason (similar/suggestions.decide)."""

from django.http import HttpRequest, HttpResponse
from django_htmx.http import reswap, retarget

from notebooks.card import similar as card_similar
from notebooks.card.forms import SuggestionForm
from notebooks.card.views.respond import (
    INVALID,
    actor_of,
    editor_required,
    notebook_or_404,
    refusal_status,
    render_page,
    similar_decided,
    similar_refused,
)
from notebooks.log.rules.errors import NotebookError, NotFound
from notebooks.log.views import selectors
from notebooks.models import Notebook, Suggestion
from notebooks.similar import suggestions

SUGGESTIONS = "notebooks/suggestions.html"


@editor_required("POST")
def decide(request: HttpRequest, title: str, suggestion: int) -> HttpResponse:
    notebook = notebook_or_404(title)
    form = SuggestionForm(request.POST)
    status = INVALID
    if form.is_valid():
        data = form.cleaned_data
        try:
            done = suggestions.decide(
                notebook=notebook.title, suggestion=suggestion, action=data["action"], by=actor_of(request),
                why=data["reason"].strip(), numbers=data["n"] or None, keep=data.get("keep"), words=data["words"],
            )  # fmt: skip
        except NotebookError as exc:  # a line gone since the view was drawn: said in its place, not a 404
            status = INVALID if isinstance(exc, NotFound) else refusal_status(exc)
            form.add_error(None, f"Nothing was changed. {exc.message}")
        else:
            if data["action"] not in ("not-alike", "dismiss"):  # as an engine group's: only what changes lines
                kind = done.decision.suggestion.kind
                card_similar.remember_reason(request, kind, data["reason"].strip(), carry=data["carry"])
            # The engine's groups stay those drawn when Dad opened the view, as after a decision on one of them.
            return similar_decided(request, notebook, data.get("drawn"), done.note, similar_fresh=done.fresh)
    return _again(request, notebook, suggestion, form, status)


def _again(request: HttpRequest, notebook: Notebook, number: int, form: SuggestionForm, status: int) -> HttpResponse:
    """A refused decision: the suggestion again with the message and Dad's draft, or, when it no longer pends, the
    view as it is now."""
    found = Suggestion.objects.filter(notebook=notebook, pk=number).first()
    live = {x.n: x for x in selectors.view(notebook) if not x.redacted}
    view = card_similar.suggestion_view(found, live) if found is not None else None
    if view is None or len(view.group.choices) < len(found.lines) or not request.htmx:
        return similar_refused(request, notebook, form, status)
    drawn = request.POST.get("drawn", "")
    context = {"notebook": notebook, "item": view, "form": form, "can_edit": True, "draft": request.POST,
               "draft_out": request.POST.getlist("out"),
               "similar_drawn": drawn if drawn.isdigit() else None}  # fmt: skip
    answer = render_page(request, f"{SUGGESTIONS}#suggestion", context, status)
    return reswap(retarget(answer, f"#suggestion-{view.key}"), "outerHTML")
