"""The "Not alike" marks: Dad's word that lines the engine grouped are not alike, so that group is not offered again.
Only ever inserted: undoing a mark is a new row naming it."""

import time
from collections.abc import Iterable

from django.db import transaction

from notebooks.log.identity.roles import Actor, as_actor
from notebooks.log.rules.checks import check_number, check_text, max_reason
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid, NotFound
from notebooks.log.views import selectors as log_selectors
from notebooks.models import NotAlike


def listed(numbers: Iterable[int]) -> str:
    return ", ".join(f"#{n}" for n in numbers)


def as_editor(by: "Actor | str", verb: str) -> Actor:
    """The actor `by`, refused unless the human editor, who alone may `verb`."""
    actor = as_actor(by)
    if not actor.editor:
        raise Forbidden(f"Only the human editor may {verb}; {actor.name!r} is not the editor.")
    return actor


def mark_not_alike(*, notebook: str, numbers: Iterable[int], by: "Actor | str", why: str = "") -> NotAlike:
    """Dad marks a set of live lines as not alike: a group made only of them is no longer offered."""
    actor = as_editor(by, "mark lines as not alike")
    marked = sorted({check_number(n) for n in numbers})
    if len(marked) < 2:
        raise Invalid("Mark at least two different lines as not alike.")
    why = check_text(why, "reason", limit=max_reason(), required=False) if why else ""
    with transaction.atomic():
        nb = log_selectors.get_notebook(notebook)
        missing = [n for n in marked if log_selectors.live_line(nb, n) is None]
        if missing:
            raise NotFound(f"Notebook {nb.title!r} has no live line {listed(missing)}.")
        return NotAlike.objects.create(notebook=nb, lines=marked, by=actor.name, why=why, at=time.time())


def undo_not_alike(*, notebook: str, mark_id: int, by: "Actor | str", why: str = "") -> NotAlike:
    """Dad takes a mark back (a new row naming it): its group is offered again."""
    actor = as_editor(by, "undo a not-alike mark")
    why = check_text(why, "reason", limit=max_reason(), required=False) if why else ""
    with transaction.atomic():
        nb = log_selectors.get_notebook(notebook)
        mark = NotAlike.objects.filter(notebook=nb, pk=mark_id, undoes__isnull=True).first()
        if mark is None:
            raise NotFound(f"Notebook {nb.title!r} has no not-alike mark {mark_id!r}.")
        if NotAlike.objects.filter(undoes=mark).exists():
            raise Conflict(f"The not-alike mark {mark_id} is already undone.")
        return NotAlike.objects.create(
            notebook=nb, lines=mark.lines, by=actor.name, why=why, at=time.time(), undoes=mark
        )
