"""Every write to a notebook's lines (redaction.py, moves.py and imports.py write the others), keyword-only, one
transaction each (composing with an outer one); a refusal is a NotebookError, with nothing written."""

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Self

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from notebooks.log.files import rowformat
from notebooks.log.identity import wordkeys
from notebooks.log.identity.roles import Actor, as_actor, check_name
from notebooks.log.rules import combining, decision, guards
from notebooks.log.rules.alike import alike_key
from notebooks.log.rules.checks import check_number, check_reason, check_source, check_words
from notebooks.log.rules.errors import Conflict, Invalid, LooksAlike
from notebooks.log.store import fast_add
from notebooks.log.store import rows as stored
from notebooks.log.store.append import RowWritten, append
from notebooks.log.store.locked_reads import add_state, locked_notebook, state_of
from notebooks.log.views import snapshots
from notebooks.models import Notebook, title_validator


@dataclass(frozen=True)
class Written:
    """What a write appended: the line it concerns and the rows' seqs."""

    n: int
    seqs: tuple[int, ...]

    @property
    def seq(self) -> int:
        return self.seqs[-1]

    @classmethod
    def of(cls, n: int, rows: Iterable[RowWritten], **more: Any) -> Self:
        return cls(n=n, seqs=tuple(row.seq for row in rows), **more)


def lock_for_write(title: str, actor: Actor) -> tuple[Notebook, dict[str, Any]]:
    """The session guard's claim (which refuses what an open session forbids), then the notebook, locked."""
    claim = {"session_id": guards.current().claim(title=title, actor=actor)}
    return locked_notebook(title), claim


def _locked_state(
    title: str, actor: Actor, numbers: list[int], top: bool = False
) -> tuple[Notebook, dict[str, Any], decision.State]:
    """lock_for_write, then the state of these lines as the writer's session sees them."""
    nb, claim = lock_for_write(title, actor)
    return nb, claim, state_of(nb, numbers, session=claim["session_id"], top=top)


def distinct_numbers(numbers: Any, empty: str, twice: str = "Name each line once.") -> list[int]:
    """The line numbers a write names, each checked; refused when none, or one twice."""
    if not isinstance(numbers, list | tuple) or not numbers:
        raise Invalid(empty)
    numbers = [check_number(x) for x in numbers]
    if len(set(numbers)) != len(numbers):
        raise Invalid(twice)
    return numbers


def check_title(title: str) -> None:
    """Refused unless the title has the pattern every notebook's title has (models.TITLE_PATTERN)."""
    try:
        title_validator(title)
    except ValidationError as exc:
        raise Invalid(f"{title!r} is not a valid title. {exc.messages[0]}") from None


def create_notebook(*, title: str, by: str) -> Notebook:
    if not isinstance(title, str):
        raise Invalid("A title is text.")
    if title != title.rstrip():
        # The pattern's `$` lets a trailing newline through; "zelda " would be a look-alike of "zelda".
        raise Invalid(f"{title!r} is not a valid title: it ends in white space.")
    check_title(title)
    check_name(by)
    try:
        with transaction.atomic():
            guards.current().refuse_new_notebook(title=title, by=by)
            if Notebook.objects.filter(title=title).exists():
                raise Conflict(f"A notebook titled {title!r} already exists.")
            # A new title must not read like an existing one (rules/alike.py); look-alikes from before keep working.
            key = alike_key(title)
            alike = next((t for t in Notebook.objects.values_list("title", flat=True) if alike_key(t) == key), None)
            if alike is not None:
                raise LooksAlike(
                    f"{title!r} looks like the existing notebook {alike!r} (titles are compared without case, "
                    f"separators or trailing punctuation): did you mean {alike!r}?",
                    existing=alike,
                )
            return Notebook.objects.create(title=title, created_by=by)
    except IntegrityError:
        # A concurrent create of the same title won the race.
        raise Conflict(f"A notebook titled {title!r} already exists.") from None


def add(*, notebook: str, text: str, source: str, by: "Actor | str", why: str) -> Written:
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
                return Written.of(done.n, [done])
            nb, top, n, claim = done or add_state(notebook, actor, (digest, fields["plain"]))
            (done,) = append(nb, [{**fields, "n": n, "session_id": claim}], top, redactions_checked=True)
            fast_add.remember(notebook, nb, done)
    return Written.of(done.n, [done])


def edit(*, notebook: str, n: int, to: str, by: "Actor | str", why: str, expected: int | None = None) -> Written:
    """New words for line n, under the same number. The human editor's edit makes it a dad_correction."""
    actor = as_actor(by)
    check_words(to)
    check_reason(why)
    with transaction.atomic():
        nb, claim = lock_for_write(notebook, actor)  # a missing notebook (404) or a claim refused first, then n
        state = state_of(nb, [check_number(n)], session=claim["session_id"])
        fields = {"op": "edit", "n": n, "words": to, "by": actor.name, "why": why, "expected": expected, **claim}
        return Written.of(n, append(nb, decision.decide_all(state, [fields], editor=actor.editor)))


def retire(
    *, notebook: str, n: int, by: "Actor | str", why: str, into: int | None = None, expected: int | None = None
) -> Written:
    """Take line n out of view with a strike row; `into` names the line that now says it."""
    actor = as_actor(by)
    check_reason(why)
    with transaction.atomic():
        nb, claim = lock_for_write(notebook, actor)
        if into is not None:
            check_number(into, "'into' line number")
        state = state_of(nb, [check_number(n), *([] if into is None else [into])], session=claim["session_id"])
        fields = {"op": "strike", "n": n, "how": "retired", "into": into, "by": actor.name, "why": why, **claim}
        fields["expected"] = expected
        return Written.of(n, append(nb, decision.decide_all(state, [fields], editor=actor.editor)))


def retire_many(*, notebook: str, numbers: list[int], by: "Actor | str", why: str) -> Written:
    """Retire several lines for one reason, all or nothing: if one may not be retired, nothing is written."""
    actor = as_actor(by)
    check_reason(why)
    numbers = distinct_numbers(numbers, "Select at least one line to retire.")
    with transaction.atomic():
        nb, claim, state = _locked_state(notebook, actor, numbers)
        fields = [{"op": "strike", "n": x, "how": "retired", "by": actor.name, "why": why, **claim} for x in numbers]
        return Written.of(numbers[0], append(nb, decision.decide_all(state, fields, editor=actor.editor)))


def retire_into(
    *, notebook: str, numbers: list[int], into: int, by: "Actor | str", why: str, expected: dict[int, int] | None = None
) -> Written:
    """Keep line `into` and retire `numbers` into it, all or nothing; `expected`: line -> seq of its last row read."""
    actor = as_actor(by)
    check_reason(why)
    numbers = distinct_numbers(numbers, "Name at least one line to retire into the kept one.")
    check_number(into, "'into' line number")
    if into in numbers:
        raise Invalid(f"Line #{into} is the one kept; it cannot be retired into itself.")
    if expected is not None and not isinstance(expected, dict):
        raise Invalid("'expected' maps each line to the seq of its last row as you read it.")
    with transaction.atomic():
        nb, claim, state = _locked_state(notebook, actor, [into, *numbers])
        rows = combining.retire_into_rows(
            state, numbers=numbers, into=into, by=actor.name, editor=actor.editor, why=why, expected=expected, **claim
        )
        return Written.of(into, append(nb, rows))


def merge(
    *, notebook: str, numbers: list[int], text: str, by: "Actor | str", why: str, source: str | None = None
) -> Written:
    """One new line saying what several said, each struck into it, all or nothing; no `source`: fold.merge_source's."""
    actor = as_actor(by)
    check_words(text)
    check_reason(why)
    two = "A merge needs at least two different lines."
    if not isinstance(numbers, list | tuple) or len(set(numbers)) < 2:
        raise Invalid(two)
    numbers = distinct_numbers(numbers, two, "A merge names each line once.")
    with transaction.atomic():
        nb, claim, state = _locked_state(notebook, actor, numbers, top=True)
        rows = combining.merge_rows(
            state, numbers=numbers, words=text, source=source, by=actor.name, editor=actor.editor, why=why, **claim
        )
        return Written.of(rows[0]["n"], append(nb, rows))


def restore(*, notebook: str, n: int, by: "Actor | str", why: str) -> Written:
    """Undo a retirement: a new line with retired line n's last words and source, naming n in `restores` (fold.py)."""
    actor = as_actor(by)
    check_reason(why)
    check_number(n)
    with transaction.atomic():
        nb, claim, state = _locked_state(notebook, actor, [n], top=True)
        if (restored := stored.restoring_line(nb.pk, n, claim["session_id"])) is not None:
            state.restored[n] = restored  # or, for the session's holder, one of her proposals does
        if (moved := stored.last_strike_moved(nb.pk, n)) and moved[0] is not None:
            state.moved[n] = (moved[0], moved[1])  # its last strike moved it to that notebook's line
        fields = {"op": "add", "restores": n, "by": actor.name, "why": why, **claim}
        (fields,) = decision.decide_all(state, [fields], editor=actor.editor)
        return Written.of(fields["n"], append(nb, [fields]))


@dataclass(frozen=True)
class Unmerged(Written):
    """The merged line, now retired, and each line merged into it with the line restoring it."""

    restored: dict[int, int] = field(default_factory=dict)


def undo_merge(*, notebook: str, n: int, by: "Actor | str", why: str) -> Unmerged:
    """Undo the merge that made line n, all or nothing: every line merged into it restored, then line n retired."""
    actor = as_actor(by)
    check_reason(why)
    check_number(n)
    with transaction.atomic():
        nb, claim = lock_for_write(notebook, actor)
        merged = stored.merged_into(nb.pk, n)
        if not merged:
            raise Invalid(f"Line #{n} was not made by a merge; there is no merge to undo.")
        state = state_of(nb, [n, *merged], session=claim["session_id"], top=True)
        kept = state.line(n)
        if kept is None or not kept.live:
            raise Conflict(f"Line #{n} is no longer live, so its merge cannot be undone; restore its lines one by one.")
        for x in merged:
            if (restored := stored.restoring_line(nb.pk, x, claim["session_id"])) is not None:
                state.restored[x] = restored  # restored already: refused below, nothing written
        fields = [{"op": "add", "restores": x, "by": actor.name, "why": why, **claim} for x in merged]
        fields.append({"op": "strike", "n": n, "how": "retired", "by": actor.name, "why": why, **claim})
        rows = decision.decide_all(state, fields, editor=actor.editor)
        written = append(nb, rows)
    return Unmerged.of(n, written, restored={x: row["n"] for x, row in zip(merged, rows, strict=False)})


def put_back(*, notebook: str, n: int, seq: int, by: "Actor | str", why: str, expected: int | None = None) -> Written:
    """Edit line n back to the words its row `seq` gave it: a new edit row."""
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
    """How many view snapshots were made again from the log (snapshots.py)."""
    with transaction.atomic():
        nb = locked_notebook(notebook)
        return snapshots.rebuild(nb.pk)
