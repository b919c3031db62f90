"""What the API takes in a request's body (each field named as its write's argument, writes.py) and query string:
strict, unknown fields refused; every list pages alike (paging.py)."""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from notebooks.agents import paging
from notebooks.agents import schemas as s
from notebooks.models import TITLE_PATTERN


def required_in_schema(*names: str) -> Any:
    """Marked required in the document though still taken missing: an old name or use is answered as before."""

    def edit(schema: dict[str, Any]) -> None:
        schema["required"] = [*schema.get("required", []), *names]
        for name in names:
            prop = schema["properties"][name]
            branches = [b for b in prop.pop("anyOf", []) if b.get("type") != "null"]
            prop.update(branches[0] if branches else {})
            prop.pop("default", None)

    return edit


DEPRECATED = "Deprecated (kept until the next release): "  # an old name still taken, as the tools say it too
EXPECTED = "The seq of the line's last row as you read it"  # the tools add that a stale change is refused
Expected = s.described(s.Seq | None, f"{EXPECTED}.", default=None)


def _deprecated(description: str) -> dict[str, Any]:
    return {"deprecated": True, "description": DEPRECATED + description}


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Write(Body):
    session: s.SessionId | None = Field(
        None,
        description="The session this write must go into (your open session on this notebook, as take answered "
        "it): refused if it is closed, lapsed, another's or on another notebook. Without it a write goes into your "
        "open session on the notebook, if any; every write's answer names the session it went into.",
    )


class AddIn(Write):
    text: s.Words
    source: s.SourceName = Field("seen", description="Where the line comes from: seen (the default) or guessed.")
    why: s.Why


class EditIn(Write):
    model_config = ConfigDict(json_schema_extra=required_in_schema("text"))
    text: s.Words | None = None
    to: s.Words | None = Field(None, json_schema_extra=_deprecated("the line's new words; send them as 'text'."))
    why: s.Why
    expected: Expected


class RetireIn(Write):
    why: s.Why
    into: s.LineNumber | None = Field(None, description="The line that now says it.")
    expected: s.Seq | None = None


class RedactIn(Write):
    why: s.Why
    seq: s.Seq | None = Field(None, description="The row of the line whose words go.")
    digest: s.Digest | None = None


class MergeIn(Write):
    numbers: s.Numbers
    text: s.Words
    why: s.Why
    source: s.SourceName | None = None


class RestoreIn(Write):
    why: s.Why


class PutBackIn(Write):
    seq: s.Seq = Field(description="The row (a version in the line's history) whose words the line says again.")
    why: s.Why
    expected: Expected


class SuggestIn(Body):
    lines: s.SuggestedLines
    kind: s.Kind
    words: s.KeepWords = None
    keep: s.KeepLine = None
    why: s.Why


class NotebookIn(Body):
    title: Annotated[str, Field(pattern=TITLE_PATTERN, description="The new notebook's title (a game's name).")]


# A take names its notebook in its body: any title is looked up (none found is a 404), only its length is checked.
TakeTitle = Annotated[str, Field(min_length=1, max_length=80, description="The notebook's title.")]


class TakeIn(Body):
    notebook: TakeTitle
    plan: s.Plan


class CheckpointIn(Body):
    note: s.Note


class LandIn(Body):
    # Required: a land with rows and no summary is refused; a no-op land without one is still taken (deprecated).
    model_config = ConfigDict(json_schema_extra=required_in_schema("summary"))
    summary: s.Summary | None = None


class AbandonIn(Body):
    why: s.Why


class WithdrawIn(Body):
    seq: s.Seq = Field(description="The proposal to take back: the seq its write answered (a gate's reason names it).")
    why: s.Why


SEARCH_LONGEST = 200  # characters of a search


class Query(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _blank_is_unsaid(cls, data: Any) -> Any:
        """?after= with no value reads as no 'after' at all, as it always has."""
        return {k: v for k, v in data.items() if v != ""} if isinstance(data, dict) else data


class UntilQuery(Query):
    until: s.Until = None


class RowsQuery(Query):
    after: paging.query_after("rows") = None
    limit: paging.query_limit("rows") = paging.PAGE


class LinesQuery(UntilQuery):
    after: paging.query_after("lines") = None
    limit: paging.query_limit("lines") = paging.PAGE
    q: Annotated[str | None, s.Findable] = Field(
        None,
        max_length=SEARCH_LONGEST,
        description="Only the lines the card's search finds: a line number (12, #12, line 12) asks for that line; "
        "words find the lines with a word beginning with each of them (folded: case, accents and apostrophes "
        "ignored, a common ending taken off), in any order.",
    )
    match: Literal["all", "any"] = Field("all", description="With 'q': lines holding all of its words, or any.")


class NotebooksQuery(Query):
    after: paging.query_after("notebooks") = None
    limit: paging.query_limit("notebooks") = paging.PAGE


class SessionsQuery(Query):
    state: Literal[s.STATES] | None = None  # type: ignore[valid-type]
    actor: s.ActorName = None
    notebook: s.NotebookTitle = None
    after: paging.query_after("sessions") = None
    limit: paging.query_limit("sessions") = paging.PAGE


class SessionQuery(Query):
    after: paging.query_after("session") = None
    limit: paging.query_limit("change and drift rows together") = paging.PAGE
