"""Actions on one line: edit it, retire it, redact words from its history. Each answers in the line's place."""

from functools import partial

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.views.decorators.http import require_http_methods
from django_htmx.http import reswap, retarget

from notebooks.card import fragments
from notebooks.card.forms import EditForm, RedactForm, RetireForm
from notebooks.card.views.lineforms import refused, shown_or_sent_back
from notebooks.card.views.respond import (
    INVALID,
    actor_of,
    card_url,
    editor_required,
    history_or_404,
    line_or_panel,
    notebook_or_404,
    refusal_status,
    region,
    retired_context,
    with_oob,
)
from notebooks.log import redaction, services
from notebooks.log.rules import fold
from notebooks.log.rules.errors import NotebookError, NotFound
from notebooks.log.views import selectors
from notebooks.log.views.lines import Line
from notebooks.models import Notebook


@login_required
@require_http_methods(["GET", "POST"])
@editor_required
def edit(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = notebook_or_404(title)
    make = partial(EditForm, n=n)
    _current, form, answer = shown_or_sent_back(
        request, notebook, n, "edit-form", make, lambda line: {"words": line.text, "expected": line.seq}
    )
    if answer is not None:
        return answer
    data = form.cleaned_data
    try:
        services.edit(
            notebook=notebook.title,
            n=n,
            to=data["words"],
            by=actor_of(request),
            why=data["reason"],
            expected=data["expected"],
        )
    except NotebookError as exc:
        return refused(request, notebook, n, exc, form, "edit-form", make)
    if not request.htmx:
        messages.success(request, f"Saved line #{n}: it is now Dad's correction.")
        return HttpResponseRedirect(card_url(notebook, anchor=f"line-{n}"))
    answer = line_or_panel(request, notebook, "line", n, line_note=f"Saved line #{n}.")
    return with_oob(request, answer, notebook, f"Saved line #{n}.", focus_line=n)


@login_required
@require_http_methods(["GET", "POST"])
@editor_required
def retire(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = notebook_or_404(title)
    make = partial(RetireForm, n=n)
    current, form, answer = shown_or_sent_back(
        request, notebook, n, "retire-form", make, lambda line: {"expected": line.seq}
    )
    if answer is not None:
        return answer
    data = form.cleaned_data
    try:
        services.retire(
            notebook=notebook.title,
            n=n,
            by=actor_of(request),
            why=data["reason"],
            into=data["into"],
            expected=data["expected"],
        )
    except NotFound as exc:
        if data["into"] is None or current is None:
            raise Http404(exc.message) from None
        # The line is there, the one named to say it is not: an error on that field, with the form kept.
        form.add_error("into", f"There is no line #{data['into']} in this notebook.")
        return line_or_panel(request, notebook, "retire-form", n, line=current, retire_form=form, status=INVALID)
    except NotebookError as exc:
        return refused(request, notebook, n, exc, form, "retire-form", make)
    if not request.htmx:
        return HttpResponseRedirect(card_url(notebook, retired=n))
    answer = line_or_panel(request, notebook, "retired", n, **retired_context(notebook, n))
    return with_oob(request, answer, notebook, f"Retired line #{n}.", focus_line=n)


def _redactable(notebook: Notebook, n: int, seq: int | None) -> selectors.Entry | None:
    """The entry of line n whose words a redaction would remove (fold.redacted_seq), None once they are gone."""
    worded = {e.seq: e for e in history_or_404(notebook, n) if e.op in ("add", "edit", "adopt")}
    taken = worded.get(fold.redacted_seq([(e.seq, e.op) for e in worded.values()], seq))
    return None if taken is None or taken.redacted else taken


@login_required
@require_http_methods(["GET", "POST"])
@editor_required
def redact(request: HttpRequest, title: str, n: int) -> HttpResponse:
    """Remove a row's words from the database for good (redaction.redact), from the line's history."""
    notebook = notebook_or_404(title)
    current = selectors.live_line(notebook, n)
    if request.method == "GET":
        seq = request.GET.get("seq", "")
        target = _redactable(notebook, n, int(seq) if seq.isdigit() else None)
        if target is None:
            raise Http404(f"Line #{n} has no words {f'at seq {seq} ' if seq else ''}left to redact.")
        form = RedactForm(initial={"seq": target.seq}, n=n)
        return line_or_panel(request, notebook, "redact-form", n, line=current, redact_form=form, target=target)
    form = RedactForm(request.POST, n=n)
    if not form.is_valid():
        return _redact_again(request, notebook, n, current, form, form.cleaned_data.get("seq"), INVALID)
    seq = form.cleaned_data["seq"]
    target = _redactable(notebook, n, seq)
    # Other live lines saying the same words lose them too: then the whole list is sent back, not one line.
    alike = target is not None and any(x.text == target.text and x.n != n for x in selectors.view(notebook))
    try:
        redaction.redact(notebook=notebook.title, n=n, by=actor_of(request), why=form.cleaned_data["reason"], seq=seq)
    except NotebookError as exc:
        form.add_error(None, exc.message)
        return _redact_again(request, notebook, n, current, form, seq, refusal_status(exc))
    fragments.forget(notebook)  # kept lines may hold the words just removed
    return _redacted(request, notebook, n, current, alike)


def _redact_again(
    request: HttpRequest, notebook: Notebook, n: int, current: Line | None, form: RedactForm, seq: int | None,
    status: int,
) -> HttpResponse:  # fmt: skip
    """The redaction form again, with what was wrong; its target is None once the words are gone (it says why)."""
    target = _redactable(notebook, n, seq)
    return line_or_panel(
        request, notebook, "redact-form", n, line=current, redact_form=form, target=target, status=status
    )


def _redacted(request: HttpRequest, notebook: Notebook, n: int, current: Line | None, alike: bool) -> HttpResponse:
    """After a redaction: the card for a plain POST; for htmx, the line (or its notice) with its history open, or
    the whole list when other lines lost the same words."""
    note = f"Redacted those words of line #{n}: every row that carried them now shows the reason."
    if not request.htmx:
        messages.success(request, note)
        return HttpResponseRedirect(card_url(notebook, anchor=f"line-{n}"))
    if alike:
        return reswap(retarget(region(request, notebook, note=note), "#lines-region"), "outerHTML")
    after = selectors.history(notebook, n)
    if current is None:
        retired = retired_context(notebook, n)
        return line_or_panel(request, notebook, "retired", n, history_of=n, entries=after, **retired)
    return line_or_panel(request, notebook, "line", n, line_note=note, history_of=n, entries=after)
