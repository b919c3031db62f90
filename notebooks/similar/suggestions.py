"""Suggestions from outside: a helper brain says lines are a repeat, a conflict or a stray. It changes no line; it
waits in Dad's Similar view until he decides it as he decides an engine's group, or one of its lines goes."""

import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction

from notebooks.log import services
from notebooks.log.identity.roles import Actor, as_actor
from notebooks.log.rules.checks import check_number, check_reason, check_words
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid, NotebookError, NotFound
from notebooks.log.store.locks import lock_notebook
from notebooks.log.views import selectors as log_selectors
from notebooks.models import NotAlike, Notebook, Suggestion, SuggestionDecision, Token
from notebooks.models.similar import KINDS
from notebooks.similar import services as marks
from notebooks.similar.selectors import live_marks
from notebooks.similar.services import listed
from notebooks.similar.suggestion_selectors import live_numbers, pending_for, pending_of

MAX_LINES = 1000  # lines one suggestion may name: as many as a merge may
RETRY_AFTER = 3600  # seconds a refused suggester waits: Dad decides suggestions at his pace, not the model's
ACTIONS = {"merge": "merged", "keep": "kept", "retire": "retired", "not-alike": "not_alike", "dismiss": "dismissed"}


class TooManySuggestions(NotebookError):
    code = "too_many_suggestions"
    status = 429


@dataclass(frozen=True)
class Suggested:
    """A suggestion's answer: the one stored or already pending, or "not_alike" with the mark that covers its lines."""

    suggestion: Suggestion | None
    already: str | None = None  # None: stored now; "pending": the same lines and kind wait; "not_alike": Dad said so
    mark: NotAlike | None = None


@dataclass(frozen=True)
class Decided:
    decision: SuggestionDecision
    note: str  # what Dad is told
    fresh: int | None  # the line that now says the group, if one does


def _reader(by: "Actor | str") -> Actor:
    """The suggester: an actor a door authenticated, or a name that may read notebooks (a user or a token's actor)."""
    actor = as_actor(by)
    if isinstance(by, Actor) or actor.editor:
        return actor
    from django.contrib.auth import get_user_model

    known = get_user_model().objects.filter(username=actor.name, is_active=True).exists()
    if not known and not Token.objects.filter(actor=actor.name, revoked_at__isnull=True).exists():
        raise Forbidden(f"{actor.name!r} may not read notebooks: give it a token first (notebook token NAME).")
    return actor


def _checked(kind: Any, lines: Any, words: Any, keep: Any) -> tuple[list[int], str, int | None]:
    if kind not in KINDS:
        raise Invalid(f"'kind': use one of {', '.join(KINDS)}.", fields=["kind"])
    if not isinstance(lines, list | tuple) or not lines:
        raise Invalid("'lines': name at least one line.", fields=["lines"])
    if len(lines) > MAX_LINES:
        raise Invalid(f"'lines': a suggestion names at most {MAX_LINES} lines.", fields=["lines"])
    numbers = sorted({check_number(n) for n in lines})
    if kind != "stray" and len(numbers) < 2:
        raise Invalid(f"'lines': a {kind} is about two different lines or more.", fields=["lines"])
    if words is not None and kind != "repeat":
        raise Invalid("'words': only a repeat suggests the words to keep.", fields=["words"])
    if keep is not None:
        if kind == "stray":
            raise Invalid("'keep': a stray keeps no line.", fields=["keep"])
        if check_number(keep, "'keep' line number") not in numbers:
            raise Invalid(f"'keep': line #{keep} is not one of the suggested lines.", fields=["keep"])
    return numbers, check_words(words) if words is not None else "", keep


def suggest(
    *,
    notebook: str,
    lines: list[int],
    kind: str,
    words: str | None = None,
    keep: int | None = None,
    why: str,
    by: "Actor | str",
) -> Suggested:
    """Store a suggestion for Dad: 404 for a line not live, 429 past the bound of pending ones; the same one pending,
    or lines Dad marked not alike, answer what is there."""
    actor = _reader(by)
    numbers, words, keep = _checked(kind, lines, words, keep)
    why = check_reason(why)
    with transaction.atomic():
        nb = lock_notebook(log_selectors.get_notebook(notebook))  # one suggester at a time counts what is pending
        live = live_numbers(nb)
        missing = [n for n in numbers if n not in live]
        if missing:
            raise NotFound(f"Notebook {nb.title!r} has no live line {listed(missing)}.", lines=missing)
        pending = pending_for(nb, live)
        same = next((p for p in pending if p.lines == numbers and p.kind == kind), None)
        if same is not None:
            return Suggested(same, already="pending")
        if kind != "stray":
            mark = next((m for m in live_marks(nb) if set(numbers) <= set(m.lines)), None)
            if mark is not None:
                last = Suggestion.objects.filter(notebook=nb, lines=numbers, kind=kind).order_by("-id").first()
                return Suggested(last, already="not_alike", mark=mark)
        bound = settings.NOTEBOOK_PENDING_SUGGESTIONS
        if len(pending) >= bound:
            raise TooManySuggestions(
                f"Notebook {nb.title!r} has {len(pending)} suggestions waiting for Dad; the bound is {bound}. Try "
                "again once he has decided some.",
                limit=bound,
            ).retrying_after(RETRY_AFTER)
        made = Suggestion.objects.create(
            notebook=nb, lines=numbers, kind=kind, words=words, keep=keep, why=why, by=actor.name, at=time.time()
        )
    return Suggested(made)


def decide(
    *,
    notebook: str,
    suggestion: int,
    action: str,
    by: "Actor | str",
    why: str,
    numbers: list[int] | None = None,
    keep: int | None = None,
    words: str | None = None,
) -> Decided:
    """Dad's decision on a pending suggestion through the services that decide a group, all or nothing. `numbers` are
    the suggestion's lines he did not leave out."""
    actor = marks.as_editor(by, "decide a suggestion")
    if action not in ACTIONS:
        raise Invalid(f"Unknown decision {action!r}: use one of {', '.join(ACTIONS)}.")
    why = check_reason(why)
    with transaction.atomic():
        nb = lock_notebook(log_selectors.get_notebook(notebook))
        found = pending_of(nb, suggestion)
        chosen = list(found.lines) if numbers is None else [n for n in found.lines if n in set(numbers)]
        if numbers is not None and set(numbers) - set(found.lines):
            raise Invalid(f"Suggestion {found.pk} names only {listed(found.lines)}.")
        note, fresh = _apply(nb, action, chosen, keep, (words or "").strip(), actor, why)
        decision = SuggestionDecision.objects.create(
            suggestion=found, outcome=ACTIONS[action], by=actor.name, why=why, at=time.time()
        )
    return Decided(decision, note, fresh)


def _apply(
    nb: Notebook, action: str, numbers: list[int], keep: int | None, words: str, actor: Actor, why: str
) -> tuple[str, int | None]:
    title, shown = nb.title, listed(numbers)
    if action == "dismiss":
        return f"Dismissed the suggestion about {shown}; no line changed.", None
    if action == "retire":
        if not numbers:
            raise Invalid("Leave at least one line in to retire.")
        services.retire_many(notebook=title, numbers=numbers, by=actor, why=why)
        return f"Retired {shown}.", None
    if len(numbers) < 2:
        raise Invalid("Leave at least two lines in: a decision is about two lines or more.")
    if action == "not-alike":
        marks.mark_not_alike(notebook=title, numbers=numbers, by=actor, why=why)
        return f"Marked {shown} not alike: this group is not offered again.", None
    if keep not in numbers and (action == "keep" or not words):
        raise Invalid("Choose the line to keep (one not left out)." if action == "keep" else "Choose whose words to "
                      "keep, or write new words.")  # fmt: skip
    if action == "keep":
        others = [x for x in numbers if x != keep]
        services.retire_into(notebook=title, numbers=others, into=keep, by=actor, why=why)
        return f"Kept #{keep}; retired {listed(others)} into it.", keep
    if not words:
        kept = log_selectors.live_line(nb, keep)  # type: ignore[arg-type]
        if kept is None:
            raise Conflict(f"Line #{keep} is no longer live.")
        words = kept.text
    written = services.merge(notebook=title, numbers=numbers, text=words, by=actor, why=why)
    return f"Merged {shown} into new line #{written.n}.", written.n


def as_dict(found: Suggestion) -> dict[str, Any]:
    """A suggestion as the API, MCP and the CLI answer it."""
    return {
        "id": found.pk, "lines": list(found.lines), "kind": found.kind, "words": found.words or None,
        "keep": found.keep, "why": found.why, "by": found.by, "at": found.at,
    }  # fmt: skip
