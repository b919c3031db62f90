"""The Similar view's groups of live lines, each with what Dad can decide for it (merge, keep one, not alike).
Suggestions only: nothing here writes, and nothing is refused for being similar."""

from collections.abc import Iterator
from dataclasses import dataclass, replace

from django.http import HttpRequest

from notebooks.log.rules import fold
from notebooks.log.rules.errors import NotFound
from notebooks.log.rules.lines import Line
from notebooks.log.views import selectors as log_selectors
from notebooks.models import Notebook, Suggestion
from notebooks.similar import selectors as similar
from notebooks.similar.engine import Group
from notebooks.similar.suggestion_selectors import pending_for

KIND_LABEL = {"repeat": "Say one thing?", "conflict": "Contradict each other?"}
SUGGESTION_LABEL = {**KIND_LABEL, "stray": "Not about the game?"}  # the engine's kinds, and a stray
SUGGESTIONS_SHOWN = 100  # pending suggestions drawn at once, oldest first: the rest come up as these are decided
# Their lines' words drawn at once (the first suggestion always): 100 suggestions of 100 lines of 4,000 characters
# made a page of 48 MB and 9 s.
SUGGESTION_CHARACTERS = 500_000
CARRIED_KINDS = (*KIND_LABEL, "stray", "retire")  # a suggested stray's too, and the card's Retire of one line
GROUPS_SHOWN = 100  # groups drawn at once, best first: 949 groups of 10,000 lines made a page of 17 MB and 8 s
REASONS = "similar.reasons"  # the session key of the reason Dad carries to the next groups, per kind


@dataclass(frozen=True)
class Choice:
    """One line of a group as the words a merge could keep, and the source the merged line would then have."""

    line: Line
    source: str  # what a merge keeping these words makes the new line: her seen stays hers


@dataclass(frozen=True)
class GroupView:
    kind: str
    score: float
    choices: tuple[Choice, ...]
    keep: int  # the line whose words the merge form starts with: the group's clearest line
    close: tuple[tuple[Line, float], ...] = ()  # lines outside the group close to one of its lines, to add by a tick
    reason: str = ""  # the reason Dad asked to give the next groups of this kind too (he may change it)

    @property
    def also(self) -> list[tuple[Choice, float]]:
        """The lines also close, each as the words a merge could keep once it is added (and the source it gives)."""
        said = [(c.line.n, c.line.source, c.line.text) for c in self.choices]
        return [
            (Choice(x, fold.merge_source(editor=True, lines=[*said, (x.n, x.source, x.text)], text=x.text).source), s)
            for x, s in self.close
        ]

    @property
    def numbers(self) -> list[int]:
        return [c.line.n for c in self.choices]

    @property
    def key(self) -> str:
        return "-".join(str(n) for n in self.numbers)

    @property
    def label(self) -> str:
        return KIND_LABEL.get(self.kind, self.kind)

    @property
    def new_words_source(self) -> str:
        """The source a merge with new words of Dad's gives: his correction (his own line when all were his)."""
        lines = [(c.line.n, c.line.source, None) for c in self.choices]
        return fold.merge_source(editor=True, lines=lines, text="").source


def clearest(lines: list[Line]) -> Line:
    """The line a merge starts from: seen first, then Dad's, then guesses; then the most words; then the oldest."""
    rank = {fold.SEEN: 0, fold.DAD_CORRECTION: 1, fold.DAD: 2, fold.GUESSED: 3}
    return min(lines, key=lambda x: (rank.get(x.source, 9), -len(x.text or ""), x.n))


def group_view(
    lines: list[Line], kind: str, score: float, close: tuple[tuple[Line, float], ...] = (), reason: str = ""
) -> GroupView:
    said = [(x.n, x.source, x.text) for x in lines]
    choices = tuple(Choice(x, fold.merge_source(editor=True, lines=said, text=x.text).source) for x in lines)
    return GroupView(kind, score, choices, keep=clearest(lines).n, close=close, reason=reason)


def groups(
    notebook: Notebook, live: list[Line], reasons: dict[str, str], *, drawn: int | None = None
) -> list[GroupView]:
    """The engine's best groups of live unredacted lines, as drawn at row `drawn` (docs/card.md, "The list holds")."""
    by_number = {x.n: x for x in live if not x.redacted}
    views = []
    for group, lines in _drawable(notebook, live, drawn):
        if len(views) >= GROUPS_SHOWN:
            break
        near = similar.also_close_for(notebook, group.lines, drawn=drawn)
        close = tuple((by_number[n], score) for n, score in near if n in by_number)
        views.append(group_view(lines, group.kind, group.score, close, reasons.get(group.kind, "")))
    return views


def total(notebook: Notebook, live: list[Line], *, drawn: int | None = None) -> int:
    """How many groups can be shown: those with two lines or more still live."""
    return sum(1 for _ in _drawable(notebook, live, drawn))


def _drawable(notebook: Notebook, live: list[Line], drawn: int | None) -> "Iterator[tuple[Group, list[Line]]]":
    by_number = {x.n: x for x in live if not x.redacted}
    marks = [frozenset(mark.lines) for mark in similar.live_marks(notebook)]
    for group in similar.groups_for(notebook, drawn=drawn):
        lines = [by_number[n] for n in group.lines if n in by_number]
        # "Not alike" of the lines it shows hides it, though a line of it drawn earlier has gone since.
        if len(lines) >= 2 and not any({x.n for x in lines} <= mark for mark in marks):
            yield group, lines


@dataclass(frozen=True)
class MarkView:
    """A "Not alike" mark as the view lists it: its lines still live, with their words, and those gone since."""

    id: int
    by: str
    at: float
    lines: tuple[Line, ...]
    gone: tuple[int, ...]


def marks(notebook: Notebook, live: list[Line]) -> list[MarkView]:
    """The live marks that can still hide a group (two of their lines live or more), each line with its words."""
    by_number = {x.n: x for x in live}
    shown = []
    for mark in similar.live_marks(notebook):
        kept = tuple(by_number[n] for n in mark.lines if n in by_number)
        if len(kept) >= 2:
            gone = tuple(n for n in mark.lines if n not in by_number)
            shown.append(MarkView(mark.pk, mark.by, mark.at, kept, gone))
    return shown


@dataclass(frozen=True)
class SuggestionView:
    """A suggestion from outside, drawn as an engine group headed by who suggested it and why (similar/suggestions)."""

    suggestion: Suggestion
    group: GroupView  # its lines as the engine's groups show them, the suggested line chosen to keep
    reason: str = ""  # the reason Dad asked to give the next groups of its kind too (an engine group's as well)

    @property
    def label(self) -> str:
        return SUGGESTION_LABEL.get(self.suggestion.kind, self.suggestion.kind)

    @property
    def key(self) -> str:
        return str(self.suggestion.pk)


def suggestion_view(
    found: Suggestion, by_number: dict[int, Line], reasons: dict[str, str] | None = None
) -> SuggestionView | None:
    lines = [by_number[n] for n in found.lines if n in by_number]
    if not lines:
        return None
    group = group_view(lines, "conflict" if found.kind == "conflict" else "repeat", 0.0)
    keep = found.keep if found.keep in by_number else group.keep
    return SuggestionView(found, replace(group, keep=keep), (reasons or {}).get(found.kind, ""))


def suggestions(
    notebook: Notebook, live: list[Line], reasons: dict[str, str] | None = None
) -> tuple[list[SuggestionView], int]:
    """The pending suggestions drawn, oldest first, at most SUGGESTIONS_SHOWN and SUGGESTION_CHARACTERS of words
    (redacted lines left out); and how many are waiting in all."""
    by_number = {x.n: x for x in live if not x.redacted}
    views = [v for s in pending_for(notebook, {x.n for x in live}) if (v := suggestion_view(s, by_number, reasons))]
    shown: list[SuggestionView] = []
    drawn = 0
    for view in views[:SUGGESTIONS_SHOWN]:
        drawn += sum(len(c.line.text) for c in view.group.choices) + len(view.suggestion.words or "")
        if shown and drawn > SUGGESTION_CHARACTERS:
            break
        shown.append(view)
    return shown, len(views)


def group_of(live: list[Line], numbers: list[int], kind: str) -> GroupView | None:
    """A group drawn again after a refused decision: its lines still live, in the order they were given."""
    by_number = {x.n: x for x in live if not x.redacted}
    lines = [by_number[n] for n in numbers if n in by_number]
    return group_view(lines, kind if kind in KIND_LABEL else "repeat", 0.0) if len(lines) >= 2 else None


def ticked_group(notebook: Notebook, numbers: list[int]) -> GroupView | None:
    """The card's ticked lines as a group to merge, drawn as the Similar view draws one: each line's words to keep."""
    live = [x for x in (log_selectors.live_line(notebook, n) for n in dict.fromkeys(numbers)) if x is not None]
    return group_of(live, numbers, "repeat")


def words_to_keep(notebook: Notebook, keep: int | None) -> str:
    """The words of line `keep`, for a merge that keeps them as they are; refused when it is not live now."""
    kept = None if keep is None else log_selectors.live_line(notebook, keep)
    if kept is None:
        raise NotFound(f"Line #{keep} is no longer live, so its words cannot be kept.")
    return kept.text


def last_reasons(request: HttpRequest) -> dict[str, str]:
    """The reasons Dad asked to give the next groups too, by kind: never offered for another unless he asked."""
    found = request.session.get(REASONS) if hasattr(request, "session") else None
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if k in CARRIED_KINDS and isinstance(v, str)}


def remember_reason(request: HttpRequest, kind: str, reason: str, *, carry: bool) -> None:
    """Keep `reason` for the next groups of `kind` when Dad asked to; a decision without the tick stops it."""
    if kind not in CARRIED_KINDS:
        return
    carried = last_reasons(request)
    if carry and reason:
        carried[kind] = reason
    else:
        carried.pop(kind, None)
    request.session[REASONS] = carried
