"""The steps every form in one line's place shares (edit, retire, move): shown, sent back invalid, refused."""

from collections.abc import Callable
from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse

from notebooks.card.views.respond import INVALID, gone, line_or_panel, refusal_status
from notebooks.log.rules.errors import NotebookError
from notebooks.log.views import selectors
from notebooks.log.views.lines import Line
from notebooks.models import Notebook

FormMaker = Callable[..., forms.Form]  # the form's class with its n (and choices) bound: make(data) or make(initial=)


def _slot(panel: str) -> str:
    return panel.replace("-", "_")  # "edit-form" is drawn from the context's edit_form


def shown_or_sent_back(
    request: HttpRequest, notebook: Notebook, n: int, panel: str, make: FormMaker, initial: Callable[[Line], dict]
) -> tuple[Line | None, forms.Form | None, HttpResponse | None]:
    """(the live line, the form, an answer): a GET or an invalid POST has its answer; a valid POST has none, and
    the caller acts on the form."""
    current = selectors.live_line(notebook, n)
    if request.method == "GET":
        if current is None:
            return None, None, gone(request, notebook, n)
        form = make(initial=initial(current))
        return current, form, line_or_panel(request, notebook, panel, n, line=current, **{_slot(panel): form})
    form = make(request.POST)
    if not form.is_valid():
        answer = line_or_panel(request, notebook, panel, n, line=current, status=INVALID, **{_slot(panel): form})
        return current, form, answer
    return current, form, None


def refused(
    request: HttpRequest, notebook: Notebook, n: int, exc: NotebookError, form: forms.Form, panel: str, make: FormMaker
) -> HttpResponse:
    """A change the log refused: the form again with the refusal, over the line as it is now. When the line changed
    meanwhile, or went, the draft and reason are kept and a second submit knowingly replaces what it now says."""
    status = refusal_status(exc)  # raises for forbidden and not found
    stale = "current" in exc.details
    if stale:
        form = make({**request.POST.dict(), "expected": exc.details["current_seq"]})
    form.add_error(None, exc.message)
    context: dict[str, Any] = {_slot(panel): form}
    current = selectors.live_line(notebook, n)  # None once retired: the form stands as a panel, the draft kept
    return line_or_panel(request, notebook, panel, n, line=current, stale=stale, status=status, **context)
