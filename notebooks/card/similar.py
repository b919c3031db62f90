"""The Similar view's groups of live lines, each with what Dad can decide for it (merge, keep one, not alike).
Suggestions only: nothing here writes, and nothing is refused for being similar."""

from dataclasses import dataclass

from django.http import HttpRequest

from notebooks.log.rules import fold
from notebooks.log.views.lines import Line
from notebooks.models import Notebook
from notebooks.similar import selectors as similar

KIND_LABEL = {"repeat": "Say one thing?", "conflict": "Contradict each other?"}
GROUPS_SHOWN = 100  # groups drawn at once, best first: 949 groups of 10,000 lines made a page of 17 MB and 8 s
REASONS = "similar.reasons"  # the session key of Dad's last reason per kind of group


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
    reason: str = ""  # the reason Dad gave his last decision of this kind, offered again (he may change it)

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
    """The line a merge starts from: her own experience first (seen, then Dad's, then guesses), then the most words
    (a longer lesson usually says the others and more), then the oldest number."""
    rank = {fold.SEEN: 0, fold.DAD_CORRECTION: 1, fold.DAD: 2, fold.GUESSED: 3}
    return min(lines, key=lambda x: (rank.get(x.source, 9), -len(x.text or ""), x.n))


def group_view(
    lines: list[Line], kind: str, score: float, close: tuple[tuple[Line, float], ...] = (), reason: str = ""
) -> GroupView:
    said = [(x.n, x.source, x.text) for x in lines]
    choices = tuple(Choice(x, fold.merge_source(editor=True, lines=said, text=x.text).source) for x in lines)
    return GroupView(kind, score, choices, keep=clearest(lines).n, close=close, reason=reason)


def groups(notebook: Notebook, live: list[Line], reasons: dict[str, str]) -> list[GroupView]:
    """The engine's best GROUPS_SHOWN groups for the live lines now, best first, each with its merge choices
    (redacted lines left out: their words cannot be kept)."""
    by_number = {x.n: x for x in live if not x.redacted}
    views = []
    for group in similar.groups_for(notebook):
        if len(views) >= GROUPS_SHOWN:
            break
        lines = [by_number[n] for n in group.lines if n in by_number]
        if len(lines) >= 2:
            near = similar.also_close_for(notebook, group.lines)
            close = tuple((by_number[n], score) for n, score in near if n in by_number)
            views.append(group_view(lines, group.kind, group.score, close, reasons.get(group.kind, "")))
    return views


def group_of(live: list[Line], numbers: list[int], kind: str) -> GroupView | None:
    """A group drawn again after a refused decision: its lines still live, in the order they were given."""
    by_number = {x.n: x for x in live if not x.redacted}
    lines = [by_number[n] for n in numbers if n in by_number]
    return group_view(lines, kind if kind in KIND_LABEL else "repeat", 0.0) if len(lines) >= 2 else None


def last_reasons(request: HttpRequest) -> dict[str, str]:
    """The reasons Dad gave his last decisions in the Similar view, by kind: most groups go for the same reason."""
    found = request.session.get(REASONS) if hasattr(request, "session") else None
    return {k: v for k, v in found.items() if k in KIND_LABEL and isinstance(v, str)} if isinstance(found, dict) else {}


def remember_reason(request: HttpRequest, kind: str, reason: str) -> None:
    if kind in KIND_LABEL and reason:
        request.session[REASONS] = {**last_reasons(request), kind: reason}
