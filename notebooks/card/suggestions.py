"""Suggestions from outside in Dad's Similar view: each pending one drawn as a group like the engine's, headed by
who suggested it and why, with the form he decides it by. Nothing here writes; the decision is
similar/suggestions.decide's."""

from dataclasses import dataclass
from typing import Any

from django import forms

from notebooks.card import similar as card_similar
from notebooks.card.forms import REASON_REQUIRED, NumbersField, _Form
from notebooks.log.views.lines import Line
from notebooks.models import Notebook, Suggestion
from notebooks.similar.suggestion_selectors import pending_for
from notebooks.similar.suggestions import ACTIONS

KIND_LABEL = {**card_similar.KIND_LABEL, "stray": "Not about the game?"}  # the engine's kinds, and a stray
SHOWN = 100  # pending suggestions drawn at once, oldest first: the rest come up as these are decided


@dataclass(frozen=True)
class SuggestionView:
    suggestion: Suggestion
    group: card_similar.GroupView  # its lines as the engine's groups show them, the suggested line chosen to keep
    reason: str = ""  # the reason Dad asked to give the next groups of its kind too (an engine group's as well)

    @property
    def label(self) -> str:
        return KIND_LABEL.get(self.suggestion.kind, self.suggestion.kind)

    @property
    def key(self) -> str:
        return str(self.suggestion.pk)


def drawn(
    found: Suggestion, by_number: dict[int, Line], reasons: dict[str, str] | None = None
) -> SuggestionView | None:
    lines = [by_number[n] for n in found.lines if n in by_number]
    if not lines:
        return None
    group = card_similar.group_view(lines, "conflict" if found.kind == "conflict" else "repeat", 0.0)
    keep = found.keep if found.keep in by_number else group.keep
    reason = (reasons or {}).get(found.kind, "")
    return SuggestionView(found, card_similar.GroupView(group.kind, 0.0, group.choices, keep=keep), reason)


def pending(notebook: Notebook, live: list[Line], reasons: dict[str, str] | None = None) -> list[SuggestionView]:
    """The pending suggestions, oldest first, at most SHOWN (redacted lines left out: their words cannot be kept),
    each with the reason Dad carries for its kind (`reasons`, card/similar.last_reasons)."""
    by_number = {x.n: x for x in live if not x.redacted}
    views = (drawn(s, by_number, reasons) for s in pending_for(notebook, {x.n for x in live}))
    return [v for v in views if v is not None][:SHOWN]


class SuggestionForm(_Form):
    """Dad's decision on one suggestion: the engine group's choices, and Retire or Dismiss for a stray. Every
    decision is his, with his reason."""

    n = NumbersField(required=False)  # the suggestion's lines as drawn
    out = NumbersField(required=False)  # those Dad left out of this decision
    keep = forms.IntegerField(min_value=1, required=False)
    words = forms.CharField(required=False)
    reason = forms.CharField(required=False)
    carry = forms.BooleanField(required=False)  # give this reason to the next groups of this kind too
    drawn = forms.IntegerField(min_value=0, required=False)  # the row the page's engine groups were drawn at
    action = forms.ChoiceField(choices=[(a, a) for a in ACTIONS])
    ids = False

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        out = set(data.get("out") or [])
        data["n"] = [x for x in data.get("n") or [] if x not in out]
        if not (data.get("reason") or "").strip():
            self.add_error("reason", REASON_REQUIRED)
        return data
