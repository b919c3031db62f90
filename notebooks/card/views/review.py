"""Dad's review: mark a notebook reviewed, restore a retired line, put an older version's words back."""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django_htmx.http import reswap, retarget

from notebooks.card import selectors as card_selectors
from notebooks.card import services as card_services
from notebooks.card.forms import PutBackForm, RestoreForm, ReviewedForm
from notebooks.card.views.respond import (
    CARD,
    INVALID,
    actor_of,
    card_context,
    card_url,
    editor_required,
    history_or_404,
    line_or_panel,
    notebook_or_404,
    refusal_status,
    region,
    render_page,
    view_state,
)
from notebooks.log import services
from notebooks.log.rules.errors import Invalid, NotebookError
from notebooks.log.views import selectors
from notebooks.models import Notebook

REVIEW = "notebooks/review.html"


def _form_in_place(
    request: HttpRequest, notebook: Notebook, partial: str, n: int, *, status: int = 200, **context: Any
) -> HttpResponse:
    """A review form in the line's place for htmx; otherwise the whole card with the form standing above the list."""
    context.update(n=n, line=selectors.live_line(notebook, n))
    if request.htmx:
        return render_page(request, f"{REVIEW}#{partial}", {"notebook": notebook, "can_edit": True, **context}, status)
    return render_page(request, CARD, card_context(request, notebook, panel=partial, **context), status)


@login_required
@editor_required("POST")
def reviewed(request: HttpRequest, title: str) -> HttpResponse:
    """Mark the notebook reviewed up to the change the page showed."""
    notebook = notebook_or_404(title)
    form = ReviewedForm(request.POST)
    try:
        if not form.is_valid():  # a seq that is no number: refused, not read as "up to the head"
            raise Invalid(f"Mark reviewed names no change of this notebook ({request.POST.get('seq', '')!r}); "
                          "reload the card and mark it again.")  # fmt: skip
        seq = form.cleaned_data.get("seq")
        mark = card_services.mark_reviewed(notebook=notebook.title, by=request.user.get_username(), seq=seq)
    except NotebookError as exc:
        if not request.htmx:
            messages.error(request, exc.message)
            return HttpResponseRedirect(card_url(notebook, view_state(request.POST)))
        return region(request, notebook, note=exc.message, status=refusal_status(exc))
    note = f"Marked reviewed: everything up to change {mark.seq}. Lines written after it will show as new."
    if not request.htmx:
        messages.success(request, note)
        return HttpResponseRedirect(card_url(notebook, view_state(request.POST)))
    return region(request, notebook, note=note)


@login_required
@editor_required("GET", "POST")
def restore(request: HttpRequest, title: str, n: int) -> HttpResponse:
    """Bring a retired line's last words back, as a new line (services.restore); a reason is required."""
    notebook = notebook_or_404(title)
    entries = history_or_404(notebook, n)
    strike = next((e for e in reversed(entries) if e.op == "strike"), None)
    words = card_selectors.last_words(notebook, n)
    shown: dict[str, Any] = {"strike": strike, "words": words}
    data = request.POST if request.method == "POST" else request.GET
    if "show" in data:  # the list it came from, to show again after
        shown["state"] = view_state(data)
    if request.method == "GET":
        return _form_in_place(request, notebook, "restore-form", n, restore_form=RestoreForm(n=n), **shown)
    form = RestoreForm(request.POST, n=n)
    if form.is_valid():
        try:
            written = services.restore(
                notebook=notebook.title, n=n, by=actor_of(request), why=form.cleaned_data["reason"]
            )
        except NotebookError as exc:
            form.add_error(None, exc.message)
            status = refusal_status(exc)
        else:
            note = f"Restored line #{n}: its words are back as line #{written.n}."
            if not request.htmx:
                messages.success(request, note)
                return HttpResponseRedirect(card_url(notebook, anchor=f"line-{written.n}"))
            # The form stood in the line's place; the answer is the whole list, with the new line in it.
            answer = region(request, notebook, note=note, fresh=(written.n,))
            return reswap(retarget(answer, "#lines-region"), "outerHTML")
    else:
        status = INVALID
    return _form_in_place(request, notebook, "restore-form", n, restore_form=form, status=status, **shown)


@login_required
@editor_required("GET", "POST")
def put_back(request: HttpRequest, title: str, n: int) -> HttpResponse:
    """Edit a line back to the words of an older version in its history (services.put_back); a reason is required."""
    notebook = notebook_or_404(title)
    entries = history_or_404(notebook, n)
    data = request.POST if request.method == "POST" else request.GET
    seq = data.get("seq", "")
    version = next((e for e in entries if str(e.seq) == seq and e.op in ("add", "edit", "adopt")), None)
    if version is None or version.redacted:
        missing = f"Line #{n} has no words at change {seq} to put back{' (redacted)' if version else ''}."
        if request.method == "GET":
            raise Http404(missing)
        # A form sent after its words were redacted (or naming no version): said at the line, nothing written.
        if not request.htmx:
            messages.error(request, missing)
            return HttpResponseRedirect(card_url(notebook, anchor=f"line-{n}"))
        return line_or_panel(request, notebook, "line", n, line_note=missing, status=INVALID)
    current = selectors.live_line(notebook, n)
    if request.method == "GET":
        if current is None:
            raise Http404(f"Line #{n} is retired: restore it instead.")
        form = PutBackForm(initial={"seq": version.seq, "expected": current.seq}, n=n)
        return _form_in_place(request, notebook, "putback-form", n, putback_form=form, version=version)
    form = PutBackForm(request.POST, n=n)
    if form.is_valid():
        try:
            services.put_back(
                notebook=notebook.title,
                n=n,
                seq=version.seq,
                by=actor_of(request),
                why=form.cleaned_data["reason"],
                expected=form.cleaned_data["expected"],
            )
        except NotebookError as exc:
            form.add_error(None, exc.message)
            status = refusal_status(exc)
            if "current_seq" in exc.details:  # it changed meanwhile: a second submit knowingly puts them back
                form = PutBackForm({**request.POST.dict(), "expected": exc.details["current_seq"]}, n=n)
                form.add_error(None, exc.message)
        else:
            note = f"Put back older words of line #{n}."
            if not request.htmx:
                messages.success(request, note)
                return HttpResponseRedirect(card_url(notebook, anchor=f"line-{n}"))
            after = selectors.history(notebook, n)
            return line_or_panel(request, notebook, "line", n, line_note=note, history_of=n, entries=after)
    else:
        status = INVALID
    return _form_in_place(request, notebook, "putback-form", n, putback_form=form, version=version, status=status)
