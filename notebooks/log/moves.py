"""Moving a line to another notebook: a strike here and an add there (fold.move_rows), in one transaction under
both notebooks' locks, taken in a fixed order (by id) so two moves never wait on each other."""

from dataclasses import dataclass

from django.db import transaction

from notebooks.log.identity.roles import Actor, as_actor
from notebooks.log.rules import decision, fold, guards
from notebooks.log.rules.checks import check_number, check_reason
from notebooks.log.rules.errors import Invalid
from notebooks.log.services import distinct_numbers
from notebooks.log.store import rows as stored
from notebooks.log.store.append import append
from notebooks.log.store.locked_reads import state_of
from notebooks.log.store.locks import lock_notebook
from notebooks.log.views.selectors import get_notebook
from notebooks.models import Notebook


@dataclass(frozen=True)
class MovedLine:
    """What a move wrote: line `n` of `notebook` became line `m` of `to`; the strike's seq there, the add's here."""

    notebook: str
    n: int
    to: str
    m: int
    strike_seq: int
    add_seq: int


def move(*, notebook: str, n: int, to: str, by: "Actor | str", why: str, expected: int | None = None) -> MovedLine:
    """Live line n of `notebook` as a new line of `to` with the same words, source and author; the editor's."""
    check_number(n)
    (moved,) = move_many(notebook=notebook, numbers=[n], to=to, by=by, why=why, expected={n: expected})
    return moved


def move_many(
    *,
    notebook: str,
    numbers: list[int],
    to: str,
    by: "Actor | str",
    why: str,
    expected: dict[int, int | None] | None = None,
) -> list[MovedLine]:
    """Several lines moved as move() moves one, all or nothing, as the next numbers there in the order given."""
    actor = as_actor(by)
    decision.precheck({"op": "strike", "how": "moved", "by": actor.name}, editor=actor.editor)  # before any read
    check_reason(why)
    numbers = distinct_numbers(numbers, "Name at least one line to move.")
    if not isinstance(to, str) or not to:
        raise Invalid("Name the notebook to move the lines to.")
    if to == notebook:
        raise Invalid(f"Those lines are already in notebook {notebook!r}; name another notebook to move them to.")
    with transaction.atomic():
        guard = guards.current()
        here, there = get_notebook(notebook), get_notebook(to)  # NotFound, with a hint, for either
        claims = {title: guard.claim(title=title, actor=actor) for title in (notebook, to)}
        for nb in sorted((here, there), key=lambda nb: nb.pk):  # a fixed order: no deadlock between two moves
            lock_notebook(nb)
        state = state_of(here, numbers)
        strikes = [
            {"op": "strike", "n": x, "how": "moved", "by": actor.name, "why": why, "moved_notebook": there.title,
             "expected": (expected or {}).get(x)}
            for x in numbers
        ]  # fmt: skip
        decision.decide_all(state, strikes, editor=actor.editor)
        received = state_of(there, [], top=True)
        first = decision.number_after(there.title, received.top_n)
        pairs = [
            fold.move_rows(
                n=line.n, m=first + i, words=line.words, source=line.source, author=_author(here, line.n),
                by=actor.name, why=why, here=here.title, there=there.title,
            )
            for i, line in enumerate(state.lines[x] for x in numbers)
        ]  # fmt: skip
        decision.decide_all(received, [add for _strike, add in pairs], editor=actor.editor)
        added = append(there, [{**add, "session_id": claims[to]} for _strike, add in pairs])  # refuses redacted words
        struck = append(here, [{**strike, "session_id": claims[notebook]} for strike, _add in pairs])
    return [
        MovedLine(notebook=here.title, n=x, to=there.title, m=first + i, strike_seq=s.seq, add_seq=a.seq)
        for i, (x, s, a) in enumerate(zip(numbers, struck, added, strict=True))
    ]


def _author(notebook: Notebook, n: int) -> fold.Authored:
    """Who gave line n its words now, and when: its last add or edit (fold.author_of)."""
    by, at, was_by, was_at, moved = stored.last_worded(notebook.pk, n)
    return fold.author_of(by=by, at=at, was_by=was_by, was_at=was_at, moved=bool(moved))
