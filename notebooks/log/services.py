"""Every write to a notebook's lines. Each public function is one transaction (it composes with an outer one);
redaction.py and moves.py write theirs; nothing else writes rows but imports.py.

All functions are keyword-only. A refusal raises a NotebookError subclass with nothing written.
"""

import logging
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from notebooks.log.files import rowformat
from notebooks.log.identity import wordkeys
from notebooks.log.identity.roles import Actor, as_actor, check_name
from notebooks.log.rules import decision, guards
from notebooks.log.rules.checks import check_number, check_reason, check_source, check_words, title_key
from notebooks.log.rules.errors import Conflict, Invalid, LooksAlike
from notebooks.log.store import fast_add
from notebooks.log.store import rows as stored
from notebooks.log.store.append import RowWritten, append
from notebooks.log.store.locked_reads import (
    AnyNotebook,
    add_state,
    locked_notebook,
    state_of,
)
from notebooks.log.views import snapshots
from notebooks.models import Notebook, title_validator

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Written:
    """What a write appended: the line it concerns and the rows' seqs."""

    n: int
    seqs: tuple[int, ...]

    @property
    def seq(self) -> int:
        return self.seqs[-1]


def _session_fields(title: str, actor: Actor) -> dict[str, Any]:
    """The session the write's rows belong to (guards.py); refuses a write an open session forbids."""
    return {"session_id": guards.current().claim(title=title, actor=actor)}


def _decided(actor: Actor, rows: list[dict[str, Any]], state: decision.State) -> list[dict[str, Any]]:
    """The rows as the one decision gives them (decision.py), or its refusal: nothing is written."""
    return decision.decide_all(state, rows, editor=actor.editor)


def create_notebook(*, title: str, by: str) -> Notebook:
    if not isinstance(title, str):
        raise Invalid("A title is text.")
    if title != title.rstrip():
        # The pattern's `$` lets a trailing newline through; "zelda " would be a look-alike of "zelda".
        raise Invalid(f"{title!r} is not a valid title: it ends in white space.")
    try:
        title_validator(title)
    except ValidationError as exc:
        raise Invalid(f"{title!r} is not a valid title. {exc.messages[0]}") from None
    check_name(by)
    try:
        with transaction.atomic():
            guards.current().refuse_new_notebook(title=title, by=by)
            if Notebook.objects.filter(title=title).exists():
                raise Conflict(f"A notebook titled {title!r} already exists.")
            _refuse_lookalike(title)
            return Notebook.objects.create(title=title, created_by=by)
    except IntegrityError:
        # A concurrent create of the same title won the race.
        raise Conflict(f"A notebook titled {title!r} already exists.") from None


def _refuse_lookalike(title: str) -> None:
    """A new title must not read like an existing one (checks.title_key): two notebooks one agent or Dad would take
    for the same. Existing look-alikes from before keep working; only a new one is refused."""
    key = title_key(title)
    alike = next((t for t in Notebook.objects.values_list("title", flat=True) if title_key(t) == key), None)
    if alike is not None:
        raise LooksAlike(
            f"{title!r} looks like the existing notebook {alike!r} (titles are compared without case, separators or "
            f"trailing punctuation): did you mean {alike!r}?",
            existing=alike,
        )


def add(*, notebook: str, text: str, source: str, by: "Actor | str", why: str) -> Written:
    """A new line, with the next number. Returns its number and seq."""
    actor = as_actor(by)
    check_words(text)
    check_reason(why)
    check_source(source)
    decision.precheck({"op": "add", "source": source, "by": actor.name}, editor=actor.editor)  # before any read
    salt, digest = wordkeys.keyed(notebook, text)
    fields = {"op": "add", "words": text, "digest": digest, "salt": salt, "source": source, "by": actor.name}
    fields["why"] = why
    fields["plain"] = rowformat.digest_of(text)  # a redaction from before keyed digests names the words by it
    # PostgreSQL: one statement when this process wrote the notebook's head (fast_add.py), its own transaction when
    # none is open; else read, then write.
    done = fast_add.try_add(notebook, actor, fields)
    if not isinstance(done, RowWritten):
        with transaction.atomic():
            # Inside a transaction a wrong guess keeps the notebook's lock and hands its state to the general path.
            done = done or fast_add.try_add(notebook, actor, fields)
            if isinstance(done, RowWritten):
                return Written(n=done.n, seqs=(done.seq,))
            nb, top, n, claim = done or add_state(notebook, actor, (digest, fields["plain"]))
            (done,) = append(nb, [{**fields, "n": n, "session_id": claim}], top, redactions_checked=True)
            fast_add.remember(notebook, nb, done)
    return Written(n=done.n, seqs=(done.seq,))


def edit(*, notebook: str, n: int, to: str, by: "Actor | str", why: str, expected: int | None = None) -> Written:
    """New words for line n, under the same number. The human editor's edit makes it a dad_correction."""
    actor = as_actor(by)
    check_words(to)
    check_reason(why)
    with transaction.atomic():
        claim = _session_fields(notebook, actor)
        nb = locked_notebook(notebook)
        state = state_of(nb, [check_number(n)], session=claim["session_id"])
        fields = {"op": "edit", "n": n, "words": to, "by": actor.name, "why": why, "expected": expected, **claim}
        (row,) = append(nb, _decided(actor, [fields], state))
    return Written(n=n, seqs=(row.seq,))


def retire(
    *, notebook: str, n: int, by: "Actor | str", why: str, into: int | None = None, expected: int | None = None
) -> Written:
    """Take line n out of view with a strike row; `into` names the line that now says it."""
    actor = as_actor(by)
    check_reason(why)
    with transaction.atomic():
        claim = _session_fields(notebook, actor)
        nb = locked_notebook(notebook)
        if into is not None:
            check_number(into, "'into' line number")
        state = state_of(nb, [check_number(n), *([] if into is None else [into])], session=claim["session_id"])
        fields = {"op": "strike", "n": n, "how": "retired", "into": into, "by": actor.name, "why": why, **claim}
        (row,) = append(nb, _decided(actor, [{**fields, "expected": expected}], state))
    return Written(n=n, seqs=(row.seq,))


def retire_many(*, notebook: str, numbers: list[int], by: "Actor | str", why: str) -> Written:
    """Retire several lines for one reason, all or nothing: if one may not be retired, nothing is written."""
    actor = as_actor(by)
    check_reason(why)
    if not isinstance(numbers, list | tuple) or not numbers:
        raise Invalid("Select at least one line to retire.")
    numbers = [check_number(x) for x in numbers]
    if len(set(numbers)) != len(numbers):
        raise Invalid("Name each line once.")
    with transaction.atomic():
        claim = _session_fields(notebook, actor)
        nb = locked_notebook(notebook)
        state = state_of(nb, numbers, session=claim["session_id"])
        fields = [{"op": "strike", "n": x, "how": "retired", "by": actor.name, "why": why, **claim} for x in numbers]
        written = append(nb, _decided(actor, fields, state))
    return Written(n=numbers[0], seqs=tuple(r.seq for r in written))


def retire_into(
    *,
    notebook: str,
    numbers: list[int],
    into: int,
    by: "Actor | str",
    why: str,
    expected: dict[int, int] | None = None,
) -> Written:
    """Keep line `into` and retire each of `numbers` into it (strike rows, how="retired", into=it), for one reason,
    all or nothing: a contradicting pair, one kept. `expected` maps a line to the seq of its last row as the writer
    read it (a stale one refuses them all). Returns the kept line and the strikes' seqs."""
    actor = as_actor(by)
    check_reason(why)
    if not isinstance(numbers, list | tuple) or not numbers:
        raise Invalid("Name at least one line to retire into the kept one.")
    numbers = [check_number(x) for x in numbers]
    if len(set(numbers)) != len(numbers):
        raise Invalid("Name each line once.")
    check_number(into, "'into' line number")
    if into in numbers:
        raise Invalid(f"Line #{into} is the one kept; it cannot be retired into itself.")
    if expected is not None and not isinstance(expected, dict):
        raise Invalid("'expected' maps each line to the seq of its last row as you read it.")
    with transaction.atomic():
        claim = _session_fields(notebook, actor)
        nb = locked_notebook(notebook)
        state = state_of(nb, [into, *numbers], session=claim["session_id"])
        rows = decision.retire_into_rows(
            state, numbers=numbers, into=into, by=actor.name, editor=actor.editor, why=why, expected=expected, **claim
        )
        written = append(nb, rows)
    return Written(n=into, seqs=tuple(r.seq for r in written))


def merge(
    *, notebook: str, numbers: list[int], text: str, by: "Actor | str", why: str, source: str | None = None
) -> Written:
    """One new line saying what several said; each old line is struck, merged into it. All or nothing.

    Without `source`, the new line's is fold.merge_source's: the editor's merge that keeps one line's words unchanged
    keeps that line's source; his own new words are his correction."""
    actor = as_actor(by)
    check_words(text)
    check_reason(why)
    if not isinstance(numbers, list | tuple) or len(set(numbers)) < 2:
        raise Invalid("A merge needs at least two different lines.")
    numbers = [check_number(x) for x in numbers]
    if len(set(numbers)) != len(numbers):
        raise Invalid("A merge names each line once.")
    with transaction.atomic():
        claim = _session_fields(notebook, actor)
        nb = locked_notebook(notebook)
        state = state_of(nb, numbers, session=claim["session_id"], top=True)
        rows = decision.merge_rows(
            state, numbers=numbers, words=text, source=source, by=actor.name, editor=actor.editor, why=why, **claim
        )
        written = append(nb, rows)
    return Written(n=rows[0]["n"], seqs=tuple(r.seq for r in written))


def restore(*, notebook: str, n: int, by: "Actor | str", why: str) -> Written:
    """Undo a retirement: a new line (the next number) with retired line n's last words and source, its row naming
    n in `restores` (fold.py). Line n stays retired; both histories show it. Returns the new line."""
    actor = as_actor(by)
    check_reason(why)
    check_number(n)
    with transaction.atomic():
        claim = _session_fields(notebook, actor)
        nb = locked_notebook(notebook)
        state = state_of(nb, [n], session=claim["session_id"], top=True)
        if (restored := restored_as(nb, n, claim["session_id"])) is not None:
            state.restored[n] = restored
        if (moved := moved_to(nb, n)) is not None:
            state.moved[n] = moved
        (fields,) = _decided(actor, [{"op": "add", "restores": n, "by": actor.name, "why": why, **claim}], state)
        (row,) = append(nb, [fields])
    return Written(n=fields["n"], seqs=(row.seq,))


def restored_as(notebook: AnyNotebook, n: int, session: int | None = None) -> int | None:
    """The line that restored line n, if one did (or, for `session`'s holder, one of her proposals does)."""
    return stored.restoring_line(notebook.pk, n, session)


def moved_to(notebook: AnyNotebook, n: int) -> tuple[str, int] | None:
    """Where line n's last strike moved it (the other notebook's title and line), if it was a move."""
    found = stored.last_strike_moved(notebook.pk, n)
    return (found[0], found[1]) if found and found[0] is not None else None


def put_back(*, notebook: str, n: int, seq: int, by: "Actor | str", why: str, expected: int | None = None) -> Written:
    """Edit line n back to the words its row `seq` gave it (an older version in its history): a new edit row."""
    check_number(n)
    check_number(seq, "seq")
    with transaction.atomic():
        found = stored.version_words(notebook, n, seq)
        if found is None:
            raise Invalid(f"Seq {seq} is not a version of line #{n}'s words.")
        if found[0] is None:
            raise Invalid(f"Those words of line #{n} were redacted; they cannot be put back.")
        return edit(notebook=notebook, n=n, to=found[0], by=by, why=why, expected=expected)


def rebuild_snapshots(*, notebook: str) -> int:
    """Make the notebook's view snapshots again from its log (snapshots.py); returns how many."""
    with transaction.atomic():
        nb = locked_notebook(notebook)
        return snapshots.rebuild(nb.pk)
