"""What the card's views share: access checks, the card's context, and the fragment-or-page answers."""

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from functools import wraps
from itertools import groupby
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_http_methods

from notebooks.card import chart, fragments, search
from notebooks.card import selectors as card_selectors
from notebooks.card import similar as card_similar
from notebooks.card.forms import AddForm, CardViewForm, ReviewedForm, SelectionForm
from notebooks.log.identity.roles import Actor, user_is_editor
from notebooks.log.rules.errors import Conflict, Forbidden, NotebookError, NotFound
from notebooks.log.views import selectors
from notebooks.log.views.queries import row_before
from notebooks.models import Notebook
from notebooks.sessions import claims as session_claims
from notebooks.sessions import selectors as session_selectors
from notebooks.similar import selectors as similar_selectors

CARD = "notebooks/card.html"
REVIEW = "notebooks/review.html"
# review.html's forms: on a full page they stand above the list
REVIEW_PANELS = ("restore-form", "putback-form", "undo-merge-form")
VIEW_STATE = ("order", "source", "q", "match", "show", "chart")  # what a form posts back to show the same list
CARD_LINES = 1000  # lines a card lists at first, and how many more each "Show more" adds
PENDING_SHOWN = 50  # an open session's proposals the card lists (/sessions/ pages through all of them)
INVALID, CONFLICT = 422, 409
FULL_PAGE_SLOT = {
    "edit-form": "editing",
    "retire-form": "retiring",
    "move-form": "moving",
    "redact-form": "redacting",
    "history": "history_of",
}

View = Callable[..., HttpResponse]


def editor_required(*methods: str) -> Callable[[View], View]:
    """Writes need a sign-in and the human editor's role, by one of `methods`; reading needs only a sign-in."""

    def decorator(view: View) -> View:
        @login_required
        @require_http_methods(list(methods))
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not user_is_editor(request.user):
                raise PermissionDenied("Only the human editor may change a notebook.")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


def actor_of(request: HttpRequest) -> Actor:
    """The signed-in editor as the log's actor (editor_required has checked the role)."""
    return Actor(name=request.user.get_username(), editor=True)


def notebook_or_404(title: str) -> Notebook:
    try:
        return selectors.get_notebook(title)
    except NotFound as exc:
        raise Http404(exc.message) from None


def render_page(request: HttpRequest, template: str, context: dict[str, Any], status: int = 200) -> HttpResponse:
    """A page, or the fragment htmx asked for: the answer varies with htmx's headers, so no cache mixes them."""
    response = render(request, template, context, status=status)
    patch_vary_headers(response, ["HX-Request", "HX-Target"])
    return response


def view_state(data: QueryDict) -> dict[str, str]:
    """The card's filters a form sent back (hidden fields, or card.js from the page's URL)."""
    return {k: data.get(k, "") for k in VIEW_STATE}


def card_url(notebook: Notebook, state: dict[str, str] | None = None, anchor: str = "", **query: Any) -> str:
    defaults = (("order", "turn"), ("match", "all"))  # left out of the URL
    params = {k: v for k, v in {**(state or {}), **query}.items() if v and (k, v) not in defaults}
    url = reverse("card:notebook", args=[notebook.title])
    return url + (f"?{urlencode(params)}" if params else "") + (f"#{anchor}" if anchor else "")


def back_to(request: HttpRequest, url: str, note: str, level: int = messages.SUCCESS) -> HttpResponseRedirect:
    """A plain POST's answer: the page at `url`, which says the note."""
    messages.add_message(request, level, note)
    return HttpResponseRedirect(url)


def refusal_status(exc: NotebookError) -> int:
    """The status of a write the log refused: forbidden and not found raise; a conflict is 409, the rest 422."""
    if isinstance(exc, Forbidden):
        raise PermissionDenied(exc.message)
    if isinstance(exc, NotFound):
        raise Http404(exc.message)
    return CONFLICT if isinstance(exc, Conflict) else INVALID


def _groups(lines: list[selectors.Line], order: str, after: str = "") -> list[tuple[str, list[selectors.Line]]]:
    """Lines by source in turn order; a page continuing the group of `after` (a source) starts headless ("")."""
    if order == "number":
        return [("", lines)] if lines else []
    groups = [(source, list(run)) for source, run in groupby(lines, key=lambda line: line.source)]
    if groups and after and groups[0][0] == after:
        groups[0] = ("", groups[0][1])
    return groups


def _pending(notebook: Notebook) -> dict | None:
    """The open session's proposals on the notebook, marked pending on Dad's card (they count when it lands)."""
    held = session_claims.open_session_on(notebook)
    if held is None:
        return None
    rows, total = session_selectors.change_of(held, limit=PENDING_SHOWN)
    return {"session": held, "rows": rows, "total": total} if total else None


def card_context(request: HttpRequest, notebook: Notebook, data: QueryDict | None = None, **extra: Any) -> dict:
    data = (request.GET if data is None else data).copy()
    data.setdefault("order", "turn")
    view = CardViewForm(data)
    view.is_valid()
    asked = view.cleaned_data
    state = {k: asked.get(k) or "" for k in VIEW_STATE}
    state["order"] = state["order"] or "turn"
    query = search.parse(state["q"], state["match"])
    kept = fragments.for_notebook(notebook)  # before the lines: a redaction between the two drops them next time
    as_of, cut = _frozen_at(notebook, asked.get("as_of"), asked.get("upto"))
    lines = selectors.view_at_seq(notebook, cut)
    # A number in the search box opens that line in its place among every line; words filter.
    wanted = query.number or asked.get("line")
    shown = search.search(lines, query, state["source"])
    reviewing = review_context(request, notebook, lines, cut, state["show"])
    if state["show"] == "new":
        shown = [line for line in shown if line.n in reviewing["new_lines"]]
    elif state["show"] in ("retired", "similar"):
        shown = []
    if state["order"] != "number":
        shown = selectors.in_turn_order(shown)
    # A big notebook's card lists CARD_LINES at a time (Dad's lines come first in turn order): the page holding the
    # line asked for, or the one from `start`; the next page is appended after it (or opened, without JavaScript).
    start = asked.get("start") or 0
    place = next((i for i, x in enumerate(shown) if x.n == wanted), None) if wanted else None
    if place is not None:
        start = place - place % CARD_LINES
    start = min(start, max(0, len(shown) - 1))
    listed = shown[start : start + CARD_LINES]
    frozen = as_of is not None
    paging = {"as_of": "" if "as_of" in view.errors else data.get("as_of", "")}  # a refused time is not carried on
    rest = len(shown) - start - len(listed)
    context = {
        "notebook": notebook,
        "view_form": view,
        "state": state,
        "terms": query.terms,
        "as_of": as_of,
        "as_of_chosen": paging["as_of"] if frozen and as_of == asked.get("as_of") else "",  # not a row's time
        "frozen": frozen,
        **_head(notebook, as_of, cut),
        "groups": _groups(listed, state["order"], shown[start - 1].source if start else ""),
        "shown": len(shown),
        "start": start,
        "more_url": card_url(notebook, state, **paging, start=start + CARD_LINES) if rest > 0 else "",
        "more_note": f"{start + len(listed):,} of {len(shown):,} lines listed so far.",
        "more_link": f"Show {min(CARD_LINES, rest):,} more",
        "before_url": card_url(notebook, state, **paging, start=max(0, start - CARD_LINES)) if start else "",
        "before_link": f"Show the {min(CARD_LINES, start):,} lines before",
        "focus_line": wanted if place is not None else None,
        "missing_line": wanted if wanted and place is None else None,
        "top_number": max((x.n for x in lines), default=0),
        **_tally(lines),
        **chart_context(notebook, state, cut, {**paging, "upto": data.get("upto", "")}),
        "can_edit": user_is_editor(request.user) and not frozen,
        "add_form": AddForm(),
        "selection_form": selection_form(notebook),
        "selected": (),
        "fragments": kept,
        "pending": None if frozen else _pending(notebook),
        **reviewing,
        **_similar_context(request, notebook, lines, state["show"] == "similar", frozen, asked.get("drawn")),
    }
    fresh = set(extra.get("fresh") or ())
    context["fresh_lines"] = [x for x in lines if x.n in fresh and x not in listed]  # listed whatever the filter
    if fresh:
        context["focus_line"] = max(fresh)
    context.update(extra)
    return context


def _head(notebook: Notebook, as_of: datetime | None, cut: int) -> dict[str, Any]:
    """The last change shown (the one a frozen card stands at), the time of the last row, and the hash pinned."""
    top = selectors.head(notebook)
    pinned = selectors.head_at(notebook, until=as_of.timestamp()) if as_of else top
    return {
        "head_seq": cut if as_of else top.seq,
        "head_at": top.at if top.seq else None,
        "head_hash": pinned.hash if pinned.seq else "",
    }


def _tally(lines: list[selectors.Line]) -> dict[str, Any]:
    counted = Counter(line.source for line in lines)
    return {"total": len(lines), "counts": [(s, counted[s]) for s in selectors.TURN_ORDER if counted[s]]}


def _similar_context(
    request: HttpRequest, notebook: Notebook, lines: list, asked: bool, frozen: bool, drawn: int | None = None
) -> dict[str, Any]:
    """The Similar view's groups and marks, as drawn at row `drawn` (else the head); none for a frozen view."""
    if not asked:
        return {"similar_groups": None}
    if frozen:
        return {"similar_groups": []}
    head = selectors.head(notebook).seq
    drawn = head if drawn is None or drawn > head else drawn
    suggested, waiting = card_similar.suggestions(notebook, lines, card_similar.last_reasons(request))
    return {
        "similar_groups": card_similar.groups(notebook, lines, card_similar.last_reasons(request), drawn=drawn),
        "similar_suggestions": suggested,
        "similar_waiting": waiting,
        "similar_total": card_similar.total(notebook, lines, drawn=drawn),
        "similar_compared": similar_selectors.compared_for(notebook, drawn=drawn),
        "similar_drawn": drawn,
        "similar_since": head - drawn,
        "not_alike_marks": card_similar.marks(notebook, lines),
        "words_limit": settings.NOTEBOOK_MAX_WORDS,
        "reason_limit": settings.NOTEBOOK_MAX_REASON,
    }


def _frozen_at(notebook: Notebook, as_of: datetime | None, upto: int | None) -> tuple[datetime | None, int]:
    """The time and row the card stands at: row `upto` (linked from the audit or a history), or `as_of`, or now."""
    row = row_before(notebook, upto) if upto else None
    if row is not None and row.seq:
        return datetime.fromtimestamp(row.at, tz=UTC), row.seq
    return as_of, selectors.cut_for(notebook, as_of.timestamp()) if as_of else selectors.ALL


def review_context(request: HttpRequest, notebook: Notebook, lines: list, cut: int, show: str) -> dict[str, Any]:
    """Dad's review: his mark and the lines new since it, the retired lines and what changed since a frozen view."""
    mark = card_selectors.last_mark(notebook, request.user.get_username())
    frozen = cut < selectors.ALL
    new_lines = {} if frozen else card_selectors.new_since(lines, mark)
    return {
        "mark": mark,
        "new_lines": new_lines,
        "new_authors": sorted({line.by for line in lines if line.n in new_lines}),
        "retired_list": card_selectors.retired_lines(notebook, cut) if show == "retired" else None,
        "changes": card_selectors.changes_since(notebook, cut) if frozen and show == "changes" else None,
        "reviewed_form": ReviewedForm(),
    }


def chart_context(notebook: Notebook, state: dict[str, str], cut: int, paging: dict[str, Any]) -> dict[str, Any]:
    """The chart by day or by run up to seq `cut`, with the links that switch it (keeping the card's filters)."""
    by = "run" if state.get("chart") == "run" else "day"
    if by == "run":
        drawn = chart.build_runs(session_selectors.landed_runs(notebook.pk, cut=cut, limit=chart.RUNS))
    else:
        drawn = chart.build(card_selectors.added_per_day(notebook, cut))
    links = {by: card_url(notebook, {**state, "chart": value}, **paging) for by, value in (("day", ""), ("run", "run"))}
    return {"chart": drawn, "chart_by": by, "chart_links": links}


def with_oob(
    request: HttpRequest, response: HttpResponse, notebook: Notebook, announce: str, *, focus_line: int | None = None,
    **flags: Any,
) -> HttpResponse:  # fmt: skip
    """The answer, then what htmx swaps out of band: counts, chart, review bar (unless `announce_only`), a word."""
    state = view_state(request.POST)
    context = {
        "notebook": notebook,
        "can_edit": user_is_editor(request.user),
        "announce": announce,
        "focus_line": focus_line,
        "state": state,
        "selection_form": selection_form(notebook),
        "selected": (),
    }
    if not flags.get("announce_only"):
        lines = selectors.view_at_seq(notebook, selectors.ALL)
        context.update(
            shown=len(search.search(lines, search.parse(state["q"], state["match"]), state["source"])),
            **_tally(lines),
            **_head(notebook, None, selectors.ALL),
            **chart_context(notebook, state, selectors.ALL, {}),
            frozen=False,
            **review_context(request, notebook, lines, selectors.ALL, ""),
        )
    context.update(flags)
    extra = render(request, f"{CARD}#oob", context)
    response.content = response.content + extra.content
    return response


def retired_context(notebook: Notebook, n: int) -> dict[str, Any]:
    """The notice a retired line leaves (404 for a line that never was): how it went, where its words now live."""
    strike = next((e for e in reversed(history_or_404(notebook, n)) if e.op == "strike"), None)
    return {"line": None, "strike": strike}


def other_titles(notebook: Notebook) -> list[str]:
    return [t for t in card_selectors.titles() if t != notebook.title]


def selection_form(notebook: Notebook, *args: Any, **kwargs: Any) -> SelectionForm:
    return SelectionForm(*args, titles=other_titles(notebook), **kwargs)


def line_or_panel(
    request: HttpRequest, notebook: Notebook, partial: str, n: int, *, status: int = 200, **context: Any
) -> HttpResponse:
    """One line's fragment for htmx; otherwise the whole card with that line (or a panel) showing it."""
    context.setdefault("line", selectors.live_line(notebook, n))
    context["n"] = n
    if request.htmx:
        can_edit = user_is_editor(request.user)
        if context["line"] is not None and "new_label" not in context:  # a line drawn alone keeps its review mark
            mark = card_selectors.last_mark(notebook, request.user.get_username())
            context["new_label"] = card_selectors.new_since([context["line"]], mark).get(n, "")
        template = REVIEW if partial in REVIEW_PANELS else CARD
        return render_page(
            request, f"{template}#{partial}", {"notebook": notebook, "can_edit": can_edit, **context}, status
        )
    if partial in FULL_PAGE_SLOT:
        context[FULL_PAGE_SLOT[partial]] = n
    if context["line"] is None or partial in REVIEW_PANELS:
        context["panel"] = partial  # the fragment stands above the list
    return render_page(request, CARD, card_context(request, notebook, **context), status)


def region(request: HttpRequest, notebook: Notebook, *, status: int = 200, **context: Any) -> HttpResponse:
    """The card's list region (lines, selection, add form, chart), for htmx; else the whole card."""
    full = card_context(request, notebook, request.POST if request.method == "POST" else None, **context)
    template = f"{CARD}#region" if request.htmx else CARD
    return render_page(request, template, full, status)


def history_or_404(notebook: Notebook, n: int) -> list[selectors.Entry]:
    try:
        return selectors.history(notebook, n)
    except NotFound as exc:
        raise Http404(exc.message) from None
