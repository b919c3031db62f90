"""Actions on the list: add a line; merge, retire or move the ticked lines. Each answers with the list region."""

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django_htmx.http import reswap, retarget

from notebooks.card import selectors as card_selectors
from notebooks.card import similar as card_similar
from notebooks.card.forms import AddForm, SelectionForm
from notebooks.card.views.respond import (
    CARD,
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
    retired_context,
    selection_form,
    view_state,
    with_oob,
)
from notebooks.log import moves, services
from notebooks.log.rules.errors import NotebookError, NotFound
from notebooks.log.views import selectors as log_selectors
from notebooks.models import Notebook


@editor_required("POST")
def add(request: HttpRequest, title: str) -> HttpResponse:
    notebook = notebook_or_404(title)
    form = AddForm(request.POST)
    status = INVALID
    if form.is_valid():
        try:
            written = services.add(
                notebook=notebook.title,
                text=form.cleaned_data["words"],
                source="dad",
                by=actor_of(request),
                why=form.cleaned_data["reason"],
            )
        except NotebookError as exc:
            status = refusal_status(exc)
            form.add_error(None, exc.message)
        else:
            note = f"Added line #{written.n}."
            if not request.htmx:
                return back_to(request, card_url(notebook, _state(request), anchor=f"line-{written.n}"), note)
            answer = region(request, notebook, fresh=(written.n,), line_notes={written.n: note})
            return with_oob(request, answer, notebook, note, focus_line=written.n, announce_only=True)
    return region(request, notebook, add_form=form, status=status)


@editor_required("POST")
def selected(request: HttpRequest, title: str) -> HttpResponse:
    """Merge, retire or move the ticked lines, for one reason, all or nothing; or preview a merge's source."""
    notebook = notebook_or_404(title)
    form = selection_form(notebook, request.POST)
    if request.POST.get("preview"):
        return _preview(request, notebook, form)
    if request.POST.get("choices"):
        return _keep_choices(request, notebook, form)
    status = INVALID
    if form.is_valid():
        data = form.cleaned_data
        numbers, by, why = data["n"], actor_of(request), data["reason"]
        listed = ", ".join(f"#{x}" for x in numbers)
        # Ticks kept across searches may name lines this list does not show: then the whole list answers.
        in_view = request.htmx and set(numbers) <= _listed(request, notebook)
        try:
            if data["action"] == "merge":
                words = data["words"].strip() or card_similar.words_to_keep(notebook, data["keep"])
                written = services.merge(notebook=notebook.title, numbers=numbers, text=words, by=by, why=why)
                note = f"Merged {listed} into new line #{written.n}."
            elif data["action"] == "move":
                went = moves.move_many(notebook=notebook.title, numbers=numbers, to=data["to"], by=by, why=why)
                note = f"Moved {listed} to {data['to']} as {', '.join(f'#{x.m}' for x in went)}."
            elif data["into"] is not None:
                into = data["into"]
                services.retire_into(notebook=notebook.title, numbers=numbers, into=into, by=by, why=why)
                note = f"Retired {listed}, now said by #{into}."
            else:
                services.retire_many(notebook=notebook.title, numbers=numbers, by=by, why=why)
                note = f"Retired {listed}."
        except NotebookError as exc:  # a ticked number that is no line (a crafted or very stale form): said, not a 404
            status = INVALID if isinstance(exc, NotFound) else refusal_status(exc)
            form.add_error(_refused_field(notebook, data), f"Nothing was changed. {exc.message}")
        else:
            if not request.htmx:
                return back_to(request, card_url(notebook, _state(request)), note)
            merged = written.n if data["action"] == "merge" else None
            if not in_view:
                answer = region(request, notebook, fresh=(merged,) if merged else (), sel_done=note)
                answer = reswap(retarget(answer, "#lines-region"), "outerHTML")
                return with_oob(request, answer, notebook, note, focus_line=merged, announce_only=True)
            return _in_their_places(request, notebook, numbers, merged, note)
    return _ticked_again(request, notebook, form, selection_form=form, status=status)


def _preview(request: HttpRequest, notebook: Notebook, form: SelectionForm) -> HttpResponse:
    """Which source a merge of the ticked lines into these words (or the kept line's) gives: alone for htmx."""
    form.is_valid()  # only the ticks and the words matter here: a reason not yet written is no refusal
    numbers, words = form.cleaned_data.get("n") or [], (form.cleaned_data.get("words") or "").strip()
    keep = form.cleaned_data.get("keep")
    if not words and keep in numbers:
        try:
            words = card_similar.words_to_keep(notebook, keep)
        except NotFound:
            words = ""  # the preview then asks for words; the merge itself says why
    preview = card_selectors.merge_preview(notebook, numbers, words)
    if request.htmx:
        answer = render(request, f"{CARD}#merge-source", {"merge_preview": preview})
        return reswap(retarget(answer, "#merge-source"), "outerHTML")
    typed = {"words": form.cleaned_data.get("words") or "", "reason": request.POST.get("reason", "")}
    shown = selection_form(notebook, initial=typed)
    return _ticked_again(request, notebook, form, selection_form=shown, merge_preview=preview)


def _ticked_again(request: HttpRequest, notebook: Notebook, form: SelectionForm, **context: Any) -> HttpResponse:
    """The list region with the same lines ticked and the merge's choices for them."""
    chosen = {str(x) for x in request.POST.getlist("n")}
    return region(request, notebook, selected=chosen, **_merge_choices(notebook, form), **context)


def _keep_choices(request: HttpRequest, notebook: Notebook, form: SelectionForm) -> HttpResponse:
    """The ticked lines' words to keep, each with the source keeping them gives: card.js asks as Merge opens."""
    form.is_valid()
    answer = render(request, f"{CARD}#merge-keep", _merge_choices(notebook, form))
    return reswap(retarget(answer, "#sel-keep"), "outerHTML")


def _merge_choices(notebook: Notebook, form: SelectionForm) -> dict:
    """The Similar view's choices for the ticked lines (its clearest line chosen unless he chose one still ticked)."""
    data = getattr(form, "cleaned_data", {})
    numbers, keep = data.get("n") or [], data.get("keep")
    return {
        "merge_choices": card_similar.ticked_group(notebook, numbers),
        "keep_draft": {"keep": str(keep)} if keep in numbers else {},
    }


def _refused_field(notebook: Notebook, data: dict) -> str | None:
    """The field a refusal is about: the "now said by" line when it is not live (the service judges it first)."""
    into = data.get("into")
    about_into = data["action"] == "retire" and into is not None and log_selectors.live_line(notebook, into) is None
    return "into" if about_into else None


def _listed(request: HttpRequest, notebook: Notebook) -> set[int]:
    """The numbers of the lines the card's list shows with the filters the form sent back."""
    context = card_context(request, notebook, request.POST)
    return {line.n for _, lines in context["groups"] for line in lines}


def _state(request: HttpRequest) -> dict[str, str]:
    return {k: v for k, v in view_state(request.POST).items() if k != "show"}


def _in_their_places(
    request: HttpRequest, notebook: Notebook, numbers: list[int], merged: int | None, note: str
) -> HttpResponse:
    """The merged line (or a notice) in the first ticked line's place, a notice in the others'; the rest out of band."""
    first, *others = numbers
    if merged is not None:
        answer = line_or_panel(request, notebook, "line", merged, fresh=(merged,), line_note=note)
    else:
        answer = line_or_panel(request, notebook, "retired", first, **retired_context(notebook, first))
    for x in others:
        notice = render(
            request, f"{CARD}#retired",
            {"notebook": notebook, "n": x, "oob": True, "can_edit": True, **retired_context(notebook, x)},
        )  # fmt: skip
        answer.content += notice.content
    answer = reswap(retarget(answer, f"#line-{first}"), "outerHTML")
    return with_oob(request, answer, notebook, note, focus_line=merged or first, reset_selection=True, sel_done=note)
