"""Reads of suggestions from outside: those pending (undecided, every line live), oldest first."""

from notebooks.log.rules.errors import Conflict, NotFound
from notebooks.log.views import selectors as log_selectors
from notebooks.models import Notebook, Suggestion
from notebooks.similar.services import listed


def live_numbers(notebook: Notebook) -> set[int]:
    return {x.n for x in log_selectors.view(notebook)}


def pending_for(notebook: Notebook, live: set[int] | None = None) -> list[Suggestion]:
    """The notebook's undecided suggestions whose lines are all still live, oldest first."""
    live = live_numbers(notebook) if live is None else live
    undecided = Suggestion.objects.filter(notebook=notebook, decision__isnull=True).order_by("id")
    return [s for s in undecided if all(n in live for n in s.lines)]


def pending_of(notebook: Notebook, suggestion: int) -> Suggestion:
    """One pending suggestion of the notebook: 404 when there is none, 409 when decided or a line of it is gone."""
    found = Suggestion.objects.filter(notebook=notebook, pk=suggestion).select_related("decision").first()
    if found is None:
        raise NotFound(f"Notebook {notebook.title!r} has no suggestion {suggestion!r}.")
    decided = getattr(found, "decision", None)
    if decided is not None:
        raise Conflict(f"Suggestion {found.pk} was already decided ({decided.outcome} by {decided.by}).")
    live = live_numbers(notebook)
    gone = [n for n in found.lines if n not in live]
    if gone:
        raise Conflict(f"Suggestion {found.pk} is no longer pending: {listed(gone)} is no longer live.")
    return found
