"""Move a line to another notebook (log/moves.py): the form in the line's place, and what it leaves behind."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.views.decorators.http import require_http_methods

from notebooks.card import selectors as card_selectors
from notebooks.card.forms import MoveForm
from notebooks.card.views.respond import (
    INVALID,
    actor_of,
    card_url,
    editor_required,
    gone,
    line_or_panel,
    notebook_or_404,
    refusal_status,
    retired_context,
    with_oob,
)
from notebooks.log import moves, selectors
from notebooks.log.errors import NotebookError
from notebooks.models import Notebook


def _form(notebook: Notebook, n: int, *args: object, **kwargs: object) -> MoveForm:
    titles = [t for t in card_selectors.titles() if t != notebook.title]  # the other notebooks
    return MoveForm(*args, n=n, titles=titles, **kwargs)


@login_required
@require_http_methods(["GET", "POST"])
@editor_required
def move(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = notebook_or_404(title)
    current = selectors.live_line(notebook, n)
    if request.method == "GET":
        if current is None:
            return gone(request, notebook, n)
        form = _form(notebook, n, initial={"expected": current.seq})
        return line_or_panel(request, notebook, "move-form", n, line=current, move_form=form)
    form = _form(notebook, n, request.POST)
    if not form.is_valid():
        return line_or_panel(request, notebook, "move-form", n, line=current, move_form=form, status=INVALID)
    data = form.cleaned_data
    try:
        moved = moves.move(
            notebook=notebook.title, n=n, to=data["to"], by=actor_of(request), why=data["reason"],
            expected=data["expected"],
        )  # fmt: skip
    except NotebookError as exc:
        return _refused(request, notebook, n, exc, form)
    said = f"Moved line #{n} to {moved.to} as line #{moved.m}."
    if not request.htmx:
        messages.success(request, said)
        return HttpResponseRedirect(card_url(notebook, retired=n))
    answer = line_or_panel(request, notebook, "retired", n, **retired_context(notebook, n))
    return with_oob(request, answer, notebook, said, focus_line=n)


def _refused(request: HttpRequest, notebook: Notebook, n: int, exc: NotebookError, form: MoveForm) -> HttpResponse:
    """A move the log refused: the form again with the refusal, over the line as it is now. When the line changed
    meanwhile, the choice and reason are kept and a second submit knowingly moves it as it now stands."""
    status = refusal_status(exc)  # raises for forbidden and not found
    stale = "current" in exc.details
    if stale:
        form = _form(notebook, n, {**request.POST.dict(), "expected": exc.details["current_seq"]})
        form.is_valid()
    form.add_error(None, exc.message)
    current = selectors.live_line(notebook, n)
    if current is None:
        return gone(request, notebook, n)
    return line_or_panel(request, notebook, "move-form", n, line=current, stale=stale, status=status, move_form=form)
