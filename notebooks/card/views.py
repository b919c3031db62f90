"""Dad's Notebook card: short views that check access, validate, call a service or a selector, and render.

An htmx request gets back the fragment it swaps; a plain form POST redirects, so every action works without
JavaScript. A form refused in place answers 422 (bad input) or 409 (the line changed meanwhile), with the form and
its message; base.html tells htmx to swap those two statuses like a 200.
"""

from collections import Counter
from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import reswap, retarget

from notebooks.card import chart, fragments
from notebooks.card.forms import AddForm, AuditForm, CardViewForm, EditForm, RedactForm, RetireForm, SelectionForm
from notebooks.log import selectors, services
from notebooks.log.errors import Conflict, Forbidden, NotebookError, NotFound
from notebooks.log.roles import Actor, user_is_editor
from notebooks.models import Notebook

CARD = "notebooks/card.html"
CARD_LINES = 1000  # lines a card lists at first, and how many more each "Show more" adds
INVALID, CONFLICT = 422, 409
FULL_PAGE_SLOT = {
    "edit-form": "editing",
    "retire-form": "retiring",
    "redact-form": "redacting",
    "history": "history_of",
}

View = Callable[..., HttpResponse]


def _editor_required(view: View) -> View:
    """Writes need the human editor's role; reading needs only a sign-in."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not user_is_editor(request.user):
            raise PermissionDenied("Only the human editor may change a notebook.")
        return view(request, *args, **kwargs)

    return wrapped


def _actor(request: HttpRequest) -> Actor:
    return Actor(name=request.user.get_username(), editor=True)


def _notebook(title: str) -> Notebook:
    try:
        return selectors.get_notebook(title)
    except NotFound as exc:
        raise Http404(exc.message) from None


def _render(request: HttpRequest, template: str, context: dict[str, Any], status: int = 200) -> HttpResponse:
    response = render(request, template, context, status=status)
    patch_vary_headers(response, ["HX-Request", "HX-Target"])
    return response


def _card_url(notebook: Notebook, state: dict[str, str] | None = None, anchor: str = "", **query: Any) -> str:
    params = {k: v for k, v in {**(state or {}), **query}.items() if v and not (k == "order" and v == "turn")}
    url = reverse("card:notebook", args=[notebook.title])
    return url + (f"?{urlencode(params)}" if params else "") + (f"#{anchor}" if anchor else "")


def _refusal_status(exc: NotebookError) -> int:
    if isinstance(exc, Forbidden):
        raise PermissionDenied(exc.message)
    if isinstance(exc, NotFound):
        raise Http404(exc.message)
    return CONFLICT if isinstance(exc, Conflict) else INVALID


# ----- what the card shows ---------------------------------------------------------------------


def _groups(lines: list[selectors.Line], order: str) -> list[tuple[str, list[selectors.Line]]]:
    """Lines already in the card's order, grouped by source in turn order."""
    if order == "number":
        return [("", lines)] if lines else []
    groups: list[tuple[str, list[selectors.Line]]] = []
    for line in lines:
        if not groups or groups[-1][0] != line.source:
            groups.append((line.source, []))
        groups[-1][1].append(line)
    return groups


def _card_context(request: HttpRequest, notebook: Notebook, data: QueryDict | None = None, **extra: Any) -> dict:
    data = (request.GET if data is None else data).copy()
    data.setdefault("order", "turn")
    view = CardViewForm(data)
    view.is_valid()
    state = {
        "order": view.cleaned_data.get("order") or "turn",
        "source": view.cleaned_data.get("source") or "",
        "q": view.cleaned_data.get("q") or "",
    }
    as_of = view.cleaned_data.get("as_of")
    kept = fragments.for_notebook(notebook)  # before the lines: a redaction between the two drops them next time
    cut = selectors.cut_for(notebook, as_of.timestamp()) if as_of else selectors.ALL
    lines = selectors.view_at_seq(notebook, cut)
    shown = selectors.filter_lines(lines, source=state["source"], q=state["q"])
    if state["order"] != "number":
        shown = selectors.in_turn_order(shown)
    # A big notebook's card lists the first CARD_LINES (Dad's lines come first in turn order), and offers more.
    limit = view.cleaned_data.get("limit") or CARD_LINES
    listed = shown[:limit]
    more_query = {"as_of": data.get("as_of", ""), "limit": limit + CARD_LINES}
    frozen = as_of is not None
    top = selectors.head(notebook)
    pinned = selectors.head_at(notebook, until=as_of.timestamp()) if frozen else top
    counted = Counter(line.source for line in lines)
    context = {
        "notebook": notebook,
        "view_form": view,
        "state": state,
        "as_of": as_of,
        "frozen": frozen,
        "head_seq": cut if frozen else top.seq,
        "head_at": top.at if top.seq else None,
        "head_hash": pinned.hash if pinned.seq else "",
        "groups": _groups(listed, state["order"]),
        "shown": len(shown),
        "more_url": _card_url(notebook, state, **more_query) if len(listed) < len(shown) else "",
        "more_note": f"Listing the first {len(listed):,} of {len(shown):,} lines.",
        "more_link": f"Show {min(CARD_LINES, len(shown) - len(listed)):,} more",
        "total": len(lines),
        "counts": [(source, counted[source]) for source in selectors.TURN_ORDER if counted[source]],
        "chart": chart.build(selectors.added_per_day(notebook, cut)),
        "can_edit": user_is_editor(request.user) and not frozen,
        "add_form": AddForm(),
        "selection_form": SelectionForm(),
        "selected": (),
        "fragments": kept,
    }
    context.update(extra)
    return context


def _retired_context(notebook: Notebook, n: int) -> dict[str, Any]:
    """The notice a retired line leaves behind: how it went, and where its words now live."""
    entries = selectors.history(notebook, n)
    strike = next((e for e in reversed(entries) if e.op == "strike"), None)
    return {"line": None, "strike": strike}


def _line_or_panel(
    request: HttpRequest, notebook: Notebook, partial: str, n: int, *, status: int = 200, **context: Any
) -> HttpResponse:
    """One line's fragment for htmx; otherwise the whole card with that line (or a panel) showing it."""
    context.setdefault("line", selectors.live_line(notebook, n))
    context["n"] = n
    if request.htmx:
        can_edit = user_is_editor(request.user)
        return _render(request, f"{CARD}#{partial}", {"notebook": notebook, "can_edit": can_edit, **context}, status)
    if partial in FULL_PAGE_SLOT:
        context[FULL_PAGE_SLOT[partial]] = n
    if context["line"] is None:
        context["panel"] = partial  # the line is not in the list, so its fragment stands above it
    return _render(request, CARD, _card_context(request, notebook, **context), status)


def _region(request: HttpRequest, notebook: Notebook, *, status: int = 200, **context: Any) -> HttpResponse:
    """The card's list region (lines, selection, add form, chart), for htmx; else the whole card."""
    full = _card_context(request, notebook, request.POST if request.method == "POST" else None, **context)
    template = f"{CARD}#region" if request.htmx else CARD
    return _render(request, template, full, status)


def _gone(request: HttpRequest, notebook: Notebook, n: int) -> HttpResponse:
    """Asked to change a line that is retired: say so where the line stood."""
    if not request.htmx:
        messages.info(request, f"Line #{n} is already retired; its history keeps its words.")
        return HttpResponseRedirect(_card_url(notebook, retired=n))
    return _line_or_panel(request, notebook, "retired", n, status=CONFLICT, **_retired_context(notebook, n))


# ----- pages ----------------------------------------------------------------------------------


@login_required
@require_GET
def index(request: HttpRequest) -> HttpResponse:
    return _render(request, "notebooks/index.html", {"notebooks": selectors.notebook_summaries()})


@login_required
@require_GET
def card(request: HttpRequest, title: str) -> HttpResponse:
    notebook = _notebook(title)
    extra: dict[str, Any] = {}
    retired = request.GET.get("retired", "")
    if retired.isdigit() and selectors.live_line(notebook, int(retired)) is None:
        try:
            extra = {"panel": "retired", "n": int(retired), **_retired_context(notebook, int(retired))}
        except NotFound:
            pass
    context = _card_context(request, notebook, **extra)
    partial = request.htmx and request.htmx.target == "lines-region"
    return _render(request, f"{CARD}#region" if partial else CARD, context)


@login_required
@require_GET
def line(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = _notebook(title)
    if not request.htmx:
        return HttpResponseRedirect(_card_url(notebook, anchor=f"line-{n}"))
    if selectors.live_line(notebook, n) is None:
        try:
            return _line_or_panel(request, notebook, "retired", n, **_retired_context(notebook, n))
        except NotFound as exc:
            raise Http404(exc.message) from None
    return _line_or_panel(request, notebook, "line", n)


@login_required
@require_GET
def history(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = _notebook(title)
    return _line_or_panel(request, notebook, "history", n, entries=_history(notebook, n))


def _history(notebook: Notebook, n: int) -> list[selectors.Entry]:
    try:
        return selectors.history(notebook, n)
    except NotFound as exc:
        raise Http404(exc.message) from None


@login_required
@require_http_methods(["GET", "POST"])
@_editor_required
def edit(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = _notebook(title)
    current = selectors.live_line(notebook, n)
    if request.method == "GET":
        if current is None:
            return _gone(request, notebook, n)
        form = EditForm(initial={"words": current.text, "expected": current.seq}, n=n)
        return _line_or_panel(request, notebook, "edit-form", n, line=current, edit_form=form)
    form = EditForm(request.POST, n=n)
    if not form.is_valid():
        return _line_or_panel(request, notebook, "edit-form", n, line=current, edit_form=form, status=INVALID)
    data = form.cleaned_data
    try:
        services.edit(
            notebook=notebook.title,
            n=n,
            to=data["words"],
            by=_actor(request),
            why=data["reason"],
            expected=data["expected"],
        )
    except NotebookError as exc:
        return _refused(request, notebook, n, exc, form, "edit")
    if not request.htmx:
        messages.success(request, f"Saved line #{n}: it is now Dad's correction.")
        return HttpResponseRedirect(_card_url(notebook, anchor=f"line-{n}"))
    return _line_or_panel(request, notebook, "line", n, line_note=f"Saved line #{n}.")


def _refused(
    request: HttpRequest, notebook: Notebook, n: int, exc: NotebookError, form: "EditForm | RetireForm", verb: str
) -> HttpResponse:
    """An edit or retirement the log refused: its form again, with the refusal, over the line as it is now. When
    the line changed meanwhile, the draft and reason are kept and a second submit knowingly replaces it."""
    stale = "current" in exc.details
    if stale:
        form = type(form)({**request.POST.dict(), "expected": exc.details["current_seq"]}, n=n)
    form.add_error(None, exc.message)
    current = selectors.live_line(notebook, n)
    return _line_or_panel(
        request, notebook, f"{verb}-form", n, line=current, stale=stale, status=_refusal_status(exc),
        **{f"{verb}_form": form},
    )  # fmt: skip


@login_required
@require_http_methods(["GET", "POST"])
@_editor_required
def retire(request: HttpRequest, title: str, n: int) -> HttpResponse:
    notebook = _notebook(title)
    current = selectors.live_line(notebook, n)
    if request.method == "GET":
        if current is None:
            return _gone(request, notebook, n)
        form = RetireForm(initial={"expected": current.seq}, n=n)
        return _line_or_panel(request, notebook, "retire-form", n, line=current, retire_form=form)
    form = RetireForm(request.POST, n=n)
    if not form.is_valid():
        return _line_or_panel(request, notebook, "retire-form", n, line=current, retire_form=form, status=INVALID)
    data = form.cleaned_data
    try:
        services.retire(
            notebook=notebook.title,
            n=n,
            by=_actor(request),
            why=data["reason"],
            into=data["into"],
            expected=data["expected"],
        )
    except NotebookError as exc:
        return _refused(request, notebook, n, exc, form, "retire")
    if not request.htmx:
        return HttpResponseRedirect(_card_url(notebook, retired=n))
    return _line_or_panel(request, notebook, "retired", n, **_retired_context(notebook, n))


def _redactable(notebook: Notebook, n: int, seq: int | None) -> selectors.Entry | None:
    """The entry of line n whose words a redaction would remove: row `seq`, or else the line's current words."""
    worded = [e for e in _history(notebook, n) if e.op in ("add", "edit", "adopt") and not e.redacted]
    if seq is not None:
        worded = [e for e in worded if e.seq == seq]
    elif worded and worded[-1].adopted:
        worded = []  # no words of its own: an adopted row is named by its seq, from the history
    return worded[-1] if worded else None


@login_required
@require_http_methods(["GET", "POST"])
@_editor_required
def redact(request: HttpRequest, title: str, n: int) -> HttpResponse:
    """Remove a row's words from the database for good (services.redact), from the line's history."""
    notebook = _notebook(title)
    current = selectors.live_line(notebook, n)
    if request.method == "GET":
        seq = request.GET.get("seq", "")
        target = _redactable(notebook, n, int(seq) if seq.isdigit() else None)
        if target is None:
            raise Http404(f"Line #{n} has no words {f'at seq {seq} ' if seq else ''}left to redact.")
        form = RedactForm(initial={"seq": target.seq}, n=n)
        return _line_or_panel(request, notebook, "redact-form", n, line=current, redact_form=form, target=target)
    form = RedactForm(request.POST, n=n)
    if form.is_valid():
        seq = form.cleaned_data["seq"]
        target = _redactable(notebook, n, seq)
        # Other live lines saying the same words lose them too: then the whole list is sent back, not one line.
        alike = target is not None and any(x.text == target.text and x.n != n for x in selectors.view(notebook))
        try:
            services.redact(notebook=notebook.title, n=n, by=_actor(request), why=form.cleaned_data["reason"], seq=seq)
        except NotebookError as exc:
            form.add_error(None, exc.message)
            status = _refusal_status(exc)
        else:
            fragments.forget(notebook)  # kept lines may hold the words just removed
            note = f"Redacted those words of line #{n}: every row that carried them now shows the reason."
            if not request.htmx:
                messages.success(request, note)
                return HttpResponseRedirect(_card_url(notebook, anchor=f"line-{n}"))
            if alike:
                return reswap(retarget(_region(request, notebook, note=note), "#lines-region"), "outerHTML")
            after = selectors.history(notebook, n)
            if current is None:
                retired = _retired_context(notebook, n)
                return _line_or_panel(request, notebook, "retired", n, history_of=n, entries=after, **retired)
            return _line_or_panel(request, notebook, "line", n, line_note=note, history_of=n, entries=after)
    else:
        seq, status = form.cleaned_data.get("seq"), INVALID
    target = _redactable(notebook, n, seq)  # None once the words are gone: the form says why
    return _line_or_panel(
        request, notebook, "redact-form", n, line=current, redact_form=form, target=target, status=status
    )


@login_required
@require_POST
@_editor_required
def add(request: HttpRequest, title: str) -> HttpResponse:
    notebook = _notebook(title)
    form = AddForm(request.POST)
    if form.is_valid():
        try:
            written = services.add(
                notebook=notebook.title,
                text=form.cleaned_data["words"],
                source="dad",
                by=_actor(request),
                why=form.cleaned_data["reason"],
            )
        except NotebookError as exc:
            status = _refusal_status(exc)
            form.add_error(None, exc.message)
        else:
            note = f"Added line #{written.n}."
            if not request.htmx:
                messages.success(request, note)
                return HttpResponseRedirect(_card_url(notebook, _state(request), anchor=f"line-{written.n}"))
            return _region(request, notebook, note=note, fresh=(written.n,))
    else:
        status = INVALID
    return _region(request, notebook, add_form=form, status=status, add_open=True)


@login_required
@require_POST
@_editor_required
def selected(request: HttpRequest, title: str) -> HttpResponse:
    """Merge the selected lines into one, or retire them all for one reason: all or nothing."""
    notebook = _notebook(title)
    form = SelectionForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        numbers = data["n"]
        listed = ", ".join(f"#{x}" for x in numbers)
        try:
            if data["action"] == "merge":
                written = services.merge(
                    notebook=notebook.title, numbers=numbers, text=data["words"], by=_actor(request), why=data["reason"]
                )
                note, fresh = f"Merged {listed} into new line #{written.n}.", (written.n,)
            else:
                services.retire_many(notebook=notebook.title, numbers=numbers, by=_actor(request), why=data["reason"])
                note, fresh = f"Retired {listed}.", ()
        except NotebookError as exc:
            status = _refusal_status(exc)
            form.add_error(None, f"Nothing was changed. {exc.message}")
        else:
            if not request.htmx:
                messages.success(request, note)
                return HttpResponseRedirect(_card_url(notebook, _state(request)))
            return _region(request, notebook, note=note, fresh=fresh, retired_now=() if fresh else numbers)
    else:
        status = INVALID
    chosen = {str(x) for x in request.POST.getlist("n")}
    return _region(request, notebook, selection_form=form, selected=chosen, status=status)


def _state(request: HttpRequest) -> dict[str, str]:
    return {k: request.POST.get(k, "") for k in ("order", "source", "q")}


@login_required
@require_GET
def audit(request: HttpRequest) -> HttpResponse:
    form = AuditForm(request.GET or None, titles=selectors.titles(), actors=selectors.actors())
    filters: dict[str, Any] = {}
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        filters = {
            "notebook": data["notebook"],
            "by": data["by"],
            "op": data["op"],
            "since": data["since"].timestamp() if data["since"] else None,
            "until": data["until"].timestamp() if data["until"] else None,
            "page": data["page"] or 1,
        }
    page = selectors.audit(**filters)
    return _render(request, "notebooks/audit.html", {"form": form, "page": page})
