"""Forms of Dad's card. They check shape only; the services judge the rest (and say why)."""

from typing import Any

from django import forms
from django.conf import settings
from django.utils.text import capfirst

from notebooks.log.rules.checks import shown
from notebooks.log.rules.fold import MAX_NUMBER
from notebooks.models import Op, Source
from notebooks.similar.suggestions import ACTIONS
from notebooks.templatetags.notebook_card import LABELS

REASON_REQUIRED = "A reason is required: say why, in a few words."
WORDS_REQUIRED = "The words are empty: a line needs words."
# Each source named as the card's tags name it ("Dad's correction"), not by the model's label ("Dad Correction").
SOURCE_CHOICES = [("", "All sources"), *((source, capfirst(LABELS[source])) for source in Source.values)]
LOCAL_TIME = {"type": "datetime-local"}
ORDER_CHOICES = [("turn", "Turn order"), ("number", "Number order")]
MATCH_CHOICES = [("all", "All words"), ("any", "Any word")]
SHOW_CHOICES = [
    ("", "Live lines"),
    ("new", "New since my review"),
    ("retired", "Retired"),
    ("similar", "Similar lines"),
    ("changes", "Changed since then (as of)"),
]
CHART_CHOICES = [("", "By day"), ("run", "By run")]


class LimitedText(forms.CharField):
    """Text with a limit the server checks, never the browser: a maxlength would cut a paste without a word."""

    def __init__(self, *, what: str, limit: int, **kwargs: Any) -> None:
        self.what, self.limit = what, limit
        super().__init__(**kwargs)

    def widget_attrs(self, widget: forms.Widget) -> dict[str, Any]:
        return {**super().widget_attrs(widget), "data-limit": str(self.limit)}

    def validate(self, value: Any) -> None:
        super().validate(value)
        if value and len(value) > self.limit:
            raise forms.ValidationError(
                f"Too long: {len(value):,} characters, and {self.what} may have at most {self.limit:,}. Nothing was "
                "saved and nothing was cut: your text is kept here; shorten it and save again.",
                code="max_length",
            )


class TimeField(forms.DateTimeField):
    """A time Dad typed or followed a link with: one that cannot be read is told back in his words, not Django's."""

    def to_python(self, value: Any) -> Any:
        try:
            when = super().to_python(value)
        except forms.ValidationError:
            raise forms.ValidationError(f"'{shown(str(value), 40)}' is not a time", code="invalid") from None
        if when is not None and not 1 < when.year < 9999:  # a day's zones apart from year 1 or 9999 overflow a date
            raise forms.ValidationError(f"'{shown(str(value), 40)}' is not a time between the years 2 and 9998")
        return when

    def bound_data(self, data: Any, initial: Any) -> Any:
        # What the field shows back when refused: a NUL or a 5,000-character paste escaped and cut, as messages are.
        return shown(data, 40) if isinstance(data, str) else super().bound_data(data, initial)


class _Form(forms.Form):
    # The server gives every refusal in place, with or without JavaScript, so browsers must not pre-empt it.
    use_required_attribute = False
    ids: str | bool = "id_%s"  # the fields' ids (auto_id): each form of a page has its own

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, auto_id=self.ids, **kwargs)
        for field in self.fields.values():  # Django's own says the value back whole: a 20,000-character one too
            if "%(value)s" in str(field.error_messages.get("invalid_choice", "")):
                field.error_messages["invalid_choice"] = "Select a valid choice. The value sent is none of the list."

    def top_errors(self) -> list[str]:
        """What to say above the fields: errors of the whole form and of its hidden fields."""
        return [*self.non_field_errors(), *(e for field in self.hidden_fields() for e in field.errors)]

    def full_clean(self) -> None:
        super().full_clean()
        # Focus goes to the first field to fix (htmx focuses [autofocus] in what it swaps in).
        first = next((name for name in self.fields if name in self._errors), None)
        if first is not None:
            for field in self.fields.values():
                field.widget.attrs.pop("autofocus", None)
            self.fields[first].widget.attrs["autofocus"] = True


def _words(rows: int = 3, **kwargs: Any) -> forms.CharField:
    return LimitedText(
        what="a line",
        limit=settings.NOTEBOOK_MAX_WORDS,
        label="Words",
        error_messages={"required": WORDS_REQUIRED},
        widget=forms.Textarea(attrs={"rows": rows}),
        **kwargs,
    )


def _choices(blank: str, values: list[str]) -> list[tuple[str, str]]:
    return [("", blank), *((v, v) for v in values)]


def _reason() -> forms.CharField:
    return LimitedText(
        what="a reason",
        limit=settings.NOTEBOOK_MAX_REASON,
        label="Reason",
        error_messages={"required": REASON_REQUIRED},
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )


def _into(**kwargs: Any) -> forms.IntegerField:
    """ "Now said by line #": a number no line can have is told on this field, as a line missing here is."""
    missing = "There is no line #%(value)s in this notebook."
    field = forms.IntegerField(
        label="Now said by line #",
        min_value=1,
        max_value=MAX_NUMBER,  # past it the log's refusal would name its API field ('into') above the form
        required=False,
        error_messages={"min_value": missing, "max_value": missing},
        **kwargs,
    )
    for bound in ("min", "max"):  # a browser would refuse first, in its own words: the server says it on the field
        field.widget.attrs.pop(bound, None)
    return field


class DecideForm(_Form):
    """Dad's decision on a session on /sessions/: land it as his approval, or discard it. Either needs his reason."""

    reason = _reason()


class _LineForm(_Form):
    """A form inside one line, for a reason: its ids carry the line's number, so several can be open at once."""

    prefix_id = ""
    reason = _reason()

    def __init__(self, *args: Any, n: int, **kwargs: Any) -> None:
        self.ids = f"{self.prefix_id}-{n}-%s"
        super().__init__(*args, **kwargs)
        first = next(iter(self.fields))  # what Dad fills first: the reason, unless a field stands before it
        self.fields[first].widget.attrs["autofocus"] = True


class EditForm(_LineForm):
    prefix_id = "edit"
    field_order = ["words"]  # before the reason
    words = _words()
    expected = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class RetireForm(_LineForm):
    prefix_id = "retire"
    into = _into()
    carry = forms.BooleanField(label="Say this for the next lines I retire too", required=False)
    expected = forms.IntegerField(min_value=1, widget=forms.HiddenInput)

    def __init__(self, *args: Any, n: int, **kwargs: Any) -> None:
        super().__init__(*args, n=n, **kwargs)
        if not self.is_bound and self.initial.get("reason"):  # a reason carried: what is left to say is the line
            del self.fields["reason"].widget.attrs["autofocus"]
            self.fields["into"].widget.attrs["autofocus"] = True


class MoveForm(_LineForm):
    """Move a line to another notebook: which one (of `titles`, the others) and why."""

    prefix_id = "move"
    field_order = ["to"]  # before the reason
    to = forms.ChoiceField(
        label="To notebook",
        error_messages={
            "required": "Choose the notebook to move the line to.",
            "invalid_choice": "There is no other notebook of that title; choose one from the list.",
        },
    )
    expected = forms.IntegerField(min_value=1, widget=forms.HiddenInput)

    def __init__(self, *args: Any, n: int, titles: list[str], **kwargs: Any) -> None:
        super().__init__(*args, n=n, **kwargs)
        self.titles = titles
        self.fields["to"].choices = _choices("Choose a notebook…", titles)


class RedactForm(_LineForm):
    prefix_id = "redact"
    seq = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class AddForm(_Form):
    ids = "add-%s"
    words = _words()
    reason = _reason()


class NumbersField(forms.Field):
    """The numbers of the lines ticked on the card (checkboxes named `n`)."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: Any) -> list[int]:
        if not value:
            return []
        try:
            numbers = [int(v) for v in value]
        except (TypeError, ValueError):
            raise forms.ValidationError("A selected line is not a line number.") from None
        if any(n < 1 for n in numbers):
            raise forms.ValidationError("A selected line is not a line number.")
        return list(dict.fromkeys(numbers))


class SelectionForm(_Form):
    n = NumbersField(error_messages={"required": "Select the lines first: tick the box beside each."})
    ids = "sel-%s"
    words = _words(rows=2, required=False, help_text="For Merge: the one line that says them all.")
    keep = forms.IntegerField(min_value=1, required=False)  # for Merge: the ticked line whose words it keeps
    to = forms.ChoiceField(
        label="To notebook",
        required=False,
        help_text="For Move selected: the notebook they belong in.",
        error_messages={"invalid_choice": "There is no notebook of that title; choose one from the list."},
    )
    reason = _reason()
    into = _into(help_text="For Retire selected, if you like: the line that says what they said.")
    action = forms.ChoiceField(choices=[("merge", "Merge"), ("retire", "Retire selected"), ("move", "Move selected")])

    def __init__(self, *args: Any, titles: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["to"].choices = _choices("Choose a notebook…", titles)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("action") == "move" and not data.get("to"):
            self.add_error("to", "Choose the notebook to move the lines to.")
        into = data.get("into")
        if data.get("action") == "retire" and into is not None and into in (data.get("n") or []):
            self.add_error(
                "into", f"Line #{into} is among the ticked lines: untick it to keep it, or name a line not ticked."
            )
        if data.get("action") == "merge":
            if not data.get("words", "").strip() and data.get("keep") not in (data.get("n") or []):
                said = "Write the one line that says them all. Or keep one ticked line's words: choose it below."
                self.add_error("words", said)
            if len(data.get("n") or []) == 1:
                self.add_error("n", "A merge needs at least two lines.")
        return data


class CardViewForm(_Form):
    """How the card is shown: order, source filter, search, and a past time to freeze it at."""

    order = forms.ChoiceField(choices=ORDER_CHOICES, required=False, widget=forms.RadioSelect)
    source = forms.ChoiceField(label="Source", choices=SOURCE_CHOICES, required=False)
    # The Similar view's groups as they were drawn at this row (when Dad opened it): decisions keep them in place.
    drawn = forms.IntegerField(min_value=0, max_value=2**62, required=False, widget=forms.HiddenInput)
    q = forms.CharField(
        label="Search",
        max_length=200,
        required=False,
        widget=forms.TextInput(attrs={"type": "search", "placeholder": "words or #12"}),
    )
    match = forms.ChoiceField(label="Match", choices=MATCH_CHOICES, required=False)
    as_of = TimeField(
        label="As of",
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local", "step": 1}, format="%Y-%m-%dT%H:%M:%S"),
    )
    start = forms.IntegerField(min_value=0, max_value=10_000_000, required=False, widget=forms.HiddenInput)
    line = forms.IntegerField(min_value=1, max_value=2_147_483_647, required=False, widget=forms.HiddenInput)
    show = forms.ChoiceField(label="Show", choices=SHOW_CHOICES, required=False)
    # The notebook as of one row (a link from the audit or a history): exact, where a time is to the second.
    upto = forms.IntegerField(min_value=1, max_value=2**62, required=False, widget=forms.HiddenInput)
    # The chart counts lines added per day, or per run (each landed session): its own links switch it.
    chart = forms.ChoiceField(choices=CHART_CHOICES, required=False, widget=forms.HiddenInput)
    ids = "view-%s"


class AuditForm(_Form):
    notebook = forms.ChoiceField(label="Notebook", required=False)
    by = forms.ChoiceField(label="Actor", required=False)
    op = forms.ChoiceField(
        label="What",
        choices=[
            ("", "Every kind of change"),
            (Op.ADD, "Added"),
            (Op.EDIT, "Edited"),
            (Op.STRIKE, "Retired or merged"),
            (Op.ADOPT, "Recovered words"),
            (Op.REDACT, "Redacted words"),
        ],
        required=False,
    )
    since = forms.DateTimeField(label="From", required=False, widget=forms.DateTimeInput(attrs=LOCAL_TIME))
    until = forms.DateTimeField(label="To", required=False, widget=forms.DateTimeInput(attrs=LOCAL_TIME))
    page = forms.IntegerField(min_value=1, required=False, widget=forms.HiddenInput)

    def __init__(self, *args: Any, titles: list[str], actors: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["notebook"].choices = _choices("Every notebook", titles)
        self.fields["by"].choices = _choices("Everyone", actors)


class RestoreForm(_LineForm):
    prefix_id = "restore"


class UndoMergeForm(_LineForm):
    """Undo the merge that made a line: its lines restored and it retired, for one reason (services.undo_merge)."""

    prefix_id = "undo-merge"
    drawn = forms.IntegerField(min_value=0, required=False, widget=forms.HiddenInput)  # the Similar view's groups


class PutBackForm(_LineForm):
    prefix_id = "putback"
    seq = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    expected = forms.IntegerField(min_value=1, required=False, widget=forms.HiddenInput)


class ReviewedForm(_Form):
    """Mark reviewed: up to the change the page showed (`seq`), so what arrived meanwhile stays new."""

    seq = forms.IntegerField(min_value=0, required=False, widget=forms.HiddenInput)


class SimilarForm(_Form):
    """Dad's decision on one group of the Similar view: merge it, keep one line, or say its lines are not alike."""

    n = NumbersField(error_messages={"required": "The group names no lines; reload the Similar view."})
    out = NumbersField(required=False)  # the group's lines Dad left out of this decision
    add = NumbersField(required=False)  # lines offered beside the group that Dad added to it
    offered = NumbersField(required=False)  # the lines offered beside it: one whose words he keeps is added
    keep = forms.IntegerField(min_value=1, required=False)
    words = forms.CharField(label="New words", required=False, widget=forms.Textarea(attrs={"rows": 2}))
    reason = forms.CharField(label="Reason", required=False, widget=forms.TextInput(attrs={"autocomplete": "off"}))
    carry = forms.BooleanField(required=False)  # give this reason to the next groups of this kind too
    drawn = forms.IntegerField(min_value=0, required=False)  # the row the page's groups were drawn at
    # merge, keep (the chosen line), keep:N (its own button, "Keep #N, retire the others into it"), not-alike
    action = forms.RegexField(regex=r"^(merge|keep|keep:[1-9][0-9]{0,17}|not-alike)$")
    ids = False

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if (data.get("action") or "").startswith("keep:"):
            data["action"], data["keep"] = "keep", int(data["action"].split(":")[1])
        given = list(dict.fromkeys([*(data.get("n") or []), *(data.get("add") or [])]))
        if data.get("keep") in (data.get("offered") or []) and data.get("keep") not in given:
            given.append(data["keep"])  # choosing an also-close line's words adds it to the decision
        data["n"] = [x for x in given if x not in set(data.get("out") or [])]
        numbers, keep, action = data["n"], data.get("keep"), data.get("action")
        if len(numbers) < 2:
            self.add_error(None, "Leave at least two lines in: a decision is about two lines or more.")
        if action in ("merge", "keep") and not (data.get("reason") or "").strip():
            self.add_error("reason", REASON_REQUIRED)
        if action == "keep" and keep in (data.get("out") or []):
            self.add_error("keep", f"#{keep} is left out: take it back in to keep it, or choose another line to keep.")
        elif action == "keep" and keep not in numbers:
            self.add_error("keep", "Choose the line to keep (one not left out).")
        if action == "merge" and not (data.get("words") or "").strip() and keep not in numbers:
            self.add_error("keep", "Choose whose words to keep, or write new words.")
        return data


class SuggestionForm(_Form):
    """Dad's decision on one suggestion, with his reason: an engine group's choices, and Retire or Dismiss a stray."""

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
