"""Actions on one line: edit it, retire it, move it to another notebook (log/moves.py), redact words from its
history, restore it once retired, put an older version's words back. Each answers in the line's place."""

from collections.abc import Callable
from functools import partial
from typing import Any

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django_htmx.http import reswap, retarget

from notebooks.card import fragments
from notebooks.card import selectors as card_selectors
from notebooks.card import similar as card_similar
from notebooks.card.forms import EditForm, MoveForm, PutBackForm, RedactForm, RestoreForm, RetireForm
from notebooks.card.views.respond import (
    CONFLICT,
    INVALID,
    actor_of,
    back_to,
    card_url,
    editor_required,
    history_or_404,
    line_or_panel,
    notebook_or_404,
    other_titles,
    refusal_status,
    region,
    retired_context,
    view_state,
    with_oob,
)
from notebooks.log import moves, redaction, services
from notebooks.log.rules import checks, decision, fold
from notebooks.log.rules.checks import MAX_ID
from notebooks.log.rules.errors import NotebookError, NotFound
from notebooks.log.rules.lines import Line
from notebooks.log.views import selectors
from notebooks.models import Notebook

FormMaker = Callable[..., forms.Form]  # the form's class with its n (and choices) bound: make(data) or make(initial=)


def _slot(panel: str) -> str:
    return panel.replace("-", "_")  # "edit-form" is drawn from the context's edit_form


def _shown_or_sent_back(
    request: HttpRequest, notebook: Notebook, n: int, panel: str, make: FormMaker, **initial: Any
) -> tuple[Line | None, forms.Form | None, HttpResponse | None]:
    """(the live line, the form, the answer to a GET or an invalid POST): a valid POST's is None, for the caller."""
    current = selectors.live_line(notebook, n)
    if request.method == "GET":
        if current is None:
            return None, None, _gone(request, notebook, n)
        form, status = make(initial={"words": current.text, "expected": current.seq, **initial}), 200  # its own
    else:
        form, status = make(request.POST), INVALID
        if form.is_valid():
            return current, form, None
    answer = line_or_panel(request, notebook, panel, n, line=current, status=status, **{_slot(panel): form})
    return current, form, answer


def _gone(request: HttpRequest, notebook: Notebook, n: int) -> HttpResponse:
    """Asked to change a line that is retired: say so where the line stood."""
    if not request.htmx:
        said = f"Line #{n} is already retired; its history keeps its words."
        return back_to(request, card_url(notebook, retired=n), said, messages.INFO)
    return line_or_panel(request, notebook, "retired", n, status=CONFLICT, **retired_context(notebook, n))


def _refused(
    request: HttpRequest, notebook: Notebook, n: int, exc: NotebookError, form: forms.Form, panel: str, make: FormMaker
) -> HttpResponse:
    """A change the log refused: the form again with the refusal, over the line as it is now. When the line changed
    meanwhile, or went, the draft and reason are kept and a second submit knowingly replaces what it now says."""
    status = refusal_status(exc)  # raises for forbidden and not found
    said = _in_card_words(exc, n, form.cleaned_data.get("expected"))
    stale = "current" in exc.details
    if stale:
        form = make({**request.POST.dict(), "expected": exc.details["current_seq"]})
    form.add_error(None, said)
    current = selectors.live_line(notebook, n)  # None once retired: the form stands as a panel, the draft kept
    return line_or_panel(request, notebook, panel, n, line=current, stale=stale, status=status, **{_slot(panel): form})


def _in_card_words(exc: NotebookError, n: int, expected: int | None) -> str:
    """The log's refusal; a line changed meanwhile is told by change number, as the card names rows (the API: seq)."""
    if "current" not in exc.details or expected is None:
        return exc.message
    return decision.STALE.format(n=n, row="change", saw=expected, now=exc.details["current_seq"])


def _change(request: HttpRequest, notebook: Notebook, n: int, data: dict[str, Any]) -> dict[str, Any]:
    """What every change of one line tells the log: which, by whom, why, and the version the form was drawn from."""
    return dict(notebook=notebook.title, n=n, by=actor_of(request), why=data["reason"], expected=data["expected"])


def _left(request: HttpRequest, notebook: Notebook, n: int, said: str) -> HttpResponse:
    """After a line left the list (retired or moved): the notice it leaves in its place, or the card showing it."""
    if not request.htmx:
        return HttpResponseRedirect(card_url(notebook, retired=n))
    answer = line_or_panel(request, notebook, "retired", n, **retired_context(notebook, n))
    return with_oob(request, answer, notebook, said, focus_line=n)


@editor_required("GET", "POST")
def edit(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = notebook_or_404(title)
    make = partial(EditForm, n=n)
    _current, form, answer = _shown_or_sent_back(request, notebook, n, "edit-form", make)
    if answer is not None:
        return answer
    try:
        services.edit(**_change(request, notebook, n, form.cleaned_data), to=form.cleaned_data["words"])
    except NotebookError as exc:
        return _refused(request, notebook, n, exc, form, "edit-form", make)
    if not request.htmx:
        return back_to(request, card_url(notebook, anchor=f"line-{n}"), f"Saved line #{n}: it is now Dad's correction.")
    answer = line_or_panel(request, notebook, "line", n, line_note=f"Saved line #{n}.")
    return with_oob(request, answer, notebook, f"Saved line #{n}.", focus_line=n)


@editor_required("GET", "POST")
def retire(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = notebook_or_404(title)
    make = partial(RetireForm, n=n)
    carried = card_similar.last_reasons(request).get("retire", "")  # only when Dad asked to give it the next lines
    initial = {"reason": carried, "carry": True} if carried else {}
    current, form, answer = _shown_or_sent_back(request, notebook, n, "retire-form", make, **initial)
    if answer is not None:
        return answer
    data = form.cleaned_data
    try:
        services.retire(**_change(request, notebook, n, data), into=data["into"])
    except NotFound as exc:
        if data["into"] is None or current is None:
            raise Http404(exc.message) from None
        # The line is there, the one named to say it is not: an error on that field, with the form kept.
        form.add_error("into", f"There is no line #{data['into']} in this notebook.")
        return line_or_panel(request, notebook, "retire-form", n, line=current, retire_form=form, status=INVALID)
    except NotebookError as exc:
        return _refused(request, notebook, n, exc, form, "retire-form", make)
    card_similar.remember_reason(request, "retire", data["reason"].strip(), carry=data["carry"])
    return _left(request, notebook, n, f"Retired line #{n}.")


@editor_required("GET", "POST")
def move(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = notebook_or_404(title)
    make = partial(MoveForm, n=n, titles=other_titles(notebook))
    _current, form, answer = _shown_or_sent_back(request, notebook, n, "move-form", make)
    if answer is not None:
        return answer
    try:
        moved = moves.move(**_change(request, notebook, n, form.cleaned_data), to=form.cleaned_data["to"])
    except NotebookError as exc:
        return _refused(request, notebook, n, exc, form, "move-form", make)
    said = f"Moved line #{n} to {moved.to} as line #{moved.m}."
    if not request.htmx:
        messages.success(request, said)
    return _left(request, notebook, n, said)


def _redactable(notebook: Notebook, n: int, seq: int | None) -> selectors.Entry | None:
    """The entry of line n whose words a redaction would remove (fold.redacted_seq), None once they are gone."""
    worded = {e.seq: e for e in history_or_404(notebook, n) if e.op in ("add", "edit", "adopt")}
    taken = worded.get(fold.redacted_seq([(e.seq, e.op) for e in worded.values()], seq))
    return None if taken is None or taken.redacted else taken


@editor_required("GET", "POST")
def redact(request: HttpRequest, title: str, n: int) -> HttpResponse:
    """Remove a row's words from the database for good (redaction.redact), from the line's history."""
    notebook = notebook_or_404(title)
    current = selectors.live_line(notebook, n)
    if request.method == "GET":
        seq = request.GET.get("seq", "")
        target = _redactable(notebook, n, checks.number_in(seq, MAX_ID))
        if target is None:
            raise Http404(f"Line #{n} has no words {f'at seq {seq} ' if seq else ''}left to redact.")
        form = RedactForm(initial={"seq": target.seq}, n=n)
        return line_or_panel(request, notebook, "redact-form", n, line=current, redact_form=form, target=target)
    form = RedactForm(request.POST, n=n)
    status = INVALID
    if form.is_valid():
        seq = form.cleaned_data["seq"]
        target = _redactable(notebook, n, seq)
        # Other live lines saying the same words lose them too: then the whole list is sent back, not one line.
        alike = target is not None and any(x.text == target.text and x.n != n for x in selectors.view(notebook))
        try:
            redaction.redact(
                notebook=notebook.title, n=n, by=actor_of(request), why=form.cleaned_data["reason"], seq=seq
            )
        except NotebookError as exc:
            form.add_error(None, exc.message)
            status = refusal_status(exc)
        else:
            fragments.forget(notebook)  # kept lines may hold the words just removed
            return _redacted(request, notebook, n, current, alike)
    # The form again, with what was wrong; its target is None once the words are gone (it says why).
    target = _redactable(notebook, n, form.cleaned_data.get("seq"))
    return line_or_panel(
        request, notebook, "redact-form", n, line=current, redact_form=form, target=target, status=status
    )


def _redacted(request: HttpRequest, notebook: Notebook, n: int, current: Line | None, alike: bool) -> HttpResponse:
    """The line (or its notice) with its history open; the whole list when other lines lost the same words."""
    note = f"Redacted those words of line #{n}: every row that carried them now shows the reason."
    if not request.htmx:
        return back_to(request, card_url(notebook, anchor=f"line-{n}"), note)
    if alike:
        return reswap(retarget(region(request, notebook, note=note), "#lines-region"), "outerHTML")
    after = selectors.history(notebook, n)
    if current is None:
        retired = retired_context(notebook, n)
        return line_or_panel(request, notebook, "retired", n, history_of=n, entries=after, **retired)
    return line_or_panel(request, notebook, "line", n, line_note=note, history_of=n, entries=after)


@editor_required("GET", "POST")
def restore(request: HttpRequest, title: str, n: int) -> HttpResponse:
    """Bring a retired line's last words back, as a new line (services.restore); a reason is required."""
    notebook = notebook_or_404(title)
    strike = retired_context(notebook, n)["strike"]
    shown: dict[str, Any] = {"strike": strike, "words": card_selectors.last_words(notebook, n)}
    data = request.POST if request.method == "POST" else request.GET
    if "show" in data:  # the list it came from, to show again after
        shown["state"] = view_state(data)
    if request.method == "GET":
        return line_or_panel(request, notebook, "restore-form", n, restore_form=RestoreForm(n=n), **shown)
    form = RestoreForm(request.POST, n=n)
    status = INVALID
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
                return back_to(request, card_url(notebook, anchor=f"line-{written.n}"), note)
            # The form stood in the line's place; the answer is the whole list, with the new line in it.
            answer = region(request, notebook, note=note, fresh=(written.n,))
            answer = reswap(retarget(answer, "#lines-region"), "outerHTML")
            # Said through the page's live region too: a status inserted with the new list is often not read.
            return with_oob(request, answer, notebook, note, announce_only=True)
    return line_or_panel(request, notebook, "restore-form", n, restore_form=form, status=status, **shown)


@editor_required("GET", "POST")
def put_back(request: HttpRequest, title: str, n: int) -> HttpResponse:
    """Edit a line back to the words of an older version in its history (services.put_back); a reason is required."""
    notebook = notebook_or_404(title)
    entries = history_or_404(notebook, n)
    seq = (request.POST if request.method == "POST" else request.GET).get("seq", "")
    version = next((e for e in entries if str(e.seq) == seq and e.op in ("add", "edit", "adopt")), None)
    if version is None or version.redacted:
        missing = (
            f"Line #{n} has no words at change {checks.shown(seq, 40)} to put back{' (redacted)' if version else ''}."
        )
        if request.method == "GET":
            raise Http404(missing)
        # A form sent after its words were redacted (or naming no version): said at the line, nothing written.
        if not request.htmx:
            return back_to(request, card_url(notebook, anchor=f"line-{n}"), missing, messages.ERROR)
        if selectors.live_line(notebook, n) is None:  # retired since: its notice, as any change to it answers
            return _gone(request, notebook, n)
        return line_or_panel(request, notebook, "line", n, line_note=missing, status=INVALID)
    current = selectors.live_line(notebook, n)
    if request.method == "GET":
        if current is None:
            raise Http404(f"Line #{n} is retired: restore it instead.")
        form = PutBackForm(initial={"seq": version.seq, "expected": current.seq}, n=n)
        return line_or_panel(request, notebook, "putback-form", n, line=current, putback_form=form, version=version)
    form = PutBackForm(request.POST, n=n)
    status = INVALID
    if form.is_valid():
        try:
            services.put_back(**_change(request, notebook, n, form.cleaned_data), seq=version.seq)
        except NotebookError as exc:
            status = refusal_status(exc)
            said = _in_card_words(exc, n, form.cleaned_data.get("expected"))
            if "current_seq" in exc.details:  # it changed meanwhile: a second submit knowingly puts them back
                form = PutBackForm({**request.POST.dict(), "expected": exc.details["current_seq"]}, n=n)
            form.add_error(None, said)
        else:
            note = f"Put back older words of line #{n}."
            if not request.htmx:
                return back_to(request, card_url(notebook, anchor=f"line-{n}"), note)
            after = selectors.history(notebook, n)
            answer = line_or_panel(request, notebook, "line", n, line_note=note, history_of=n, entries=after)
            return with_oob(request, answer, notebook, note, announce_only=True)
    return line_or_panel(
        request, notebook, "putback-form", n, line=current, putback_form=form, version=version, status=status
    )
