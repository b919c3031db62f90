"""Move a line to another notebook (log/moves.py): the form in the line's place, and what it leaves behind."""

from functools import partial

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.views.decorators.http import require_http_methods

from notebooks.card.forms import MoveForm
from notebooks.card.views.lineforms import refused, shown_or_sent_back
from notebooks.card.views.respond import (
    actor_of,
    card_url,
    editor_required,
    line_or_panel,
    notebook_or_404,
    other_titles,
    retired_context,
    with_oob,
)
from notebooks.log import moves
from notebooks.log.rules.errors import NotebookError


@login_required
@require_http_methods(["GET", "POST"])
@editor_required
def move(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = notebook_or_404(title)
    make = partial(MoveForm, n=n, titles=other_titles(notebook))
    _current, form, answer = shown_or_sent_back(
        request, notebook, n, "move-form", make, lambda line: {"expected": line.seq}
    )
    if answer is not None:
        return answer
    data = form.cleaned_data
    try:
        moved = moves.move(
            notebook=notebook.title, n=n, to=data["to"], by=actor_of(request), why=data["reason"],
            expected=data["expected"],
        )  # fmt: skip
    except NotebookError as exc:
        return refused(request, notebook, n, exc, form, "move-form", make)
    said = f"Moved line #{n} to {moved.to} as line #{moved.m}."
    if not request.htmx:
        messages.success(request, said)
        return HttpResponseRedirect(card_url(notebook, retired=n))
    answer = line_or_panel(request, notebook, "retired", n, **retired_context(notebook, n))
    return with_oob(request, answer, notebook, said, focus_line=n)
