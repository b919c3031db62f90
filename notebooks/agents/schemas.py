"""The agent's contract, declared once: the fields the API and MCP take and what they answer; the OpenAPI document is
generated from these models (and bodies.py's), so it cannot disagree with the code."""

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from notebooks.log.files.rowformat import GAME_ONLY
from notebooks.log.rules.checks import MAX_ID, MAX_NUMBER, is_storable, max_reason, max_words
from notebooks.log.rules.fold import AGENT_SOURCES
from notebooks.models import TITLE_PATTERN, Source
from notebooks.sessions.states import STATES

MAX_MERGE = 1000
TITLE = re.compile(TITLE_PATTERN)


def _storable(value: str) -> str:
    if not is_storable(value):
        raise ValueError("not valid Unicode text (a lone surrogate)")
    return value


def _findable(value: str | None) -> str | None:
    """A title or name to look for: none holds a NUL (PostgreSQL refuses to compare one) or a lone surrogate."""
    if value is not None and "\x00" in value:
        raise ValueError("contains a NUL character; no title, name or line's words hold one")
    return value if value is None else _storable(value)


Findable = AfterValidator(_findable)


def _digits(value: Any) -> Any:
    """A number in a URL is digits 0-9 only: pydantic's lax mode would read ' 9', '9.0', '+9' or '1e3' as one."""
    if isinstance(value, str) and not (value.isascii() and value.isdigit()):
        raise ValueError("must be a whole number written in the digits 0-9 only")
    return value


UrlDigits = BeforeValidator(_digits)


def _words(description: str, limit: int = max_words()) -> Any:
    return Annotated[str, Field(min_length=1, max_length=limit, description=description), AfterValidator(_storable)]


Title = Annotated[str, Field(pattern=TITLE_PATTERN, description="A notebook's title.")]
LineNumber = Annotated[int, Field(ge=1, le=MAX_NUMBER, description="A line's number in the notebook.")]
Seq = Annotated[int, Field(ge=1, le=MAX_ID)]
SessionId = Annotated[int, Field(ge=1, le=MAX_ID, description="A session's id, as its take answered it.")]
PathLineNumber = Annotated[LineNumber, UrlDigits]
PathSessionId = Annotated[SessionId, UrlDigits]
SourceName = Literal[tuple(Source.values)]  # type: ignore[valid-type]
AgentSource = Literal[tuple(s for s in Source.values if s in AGENT_SOURCES)]  # type: ignore[valid-type]
Words = _words("The line's words. " + GAME_ONLY)
Plan = _words("The session's plan: what it sets out to change, in a few words (not a line of the notebook).")
Summary = _words("What the session changed, in a few words (not a line of the notebook).")
Note = _words("What stands so far, in a few words.", max_reason())
Why = _words("Why, in a few words.", max_reason())
Numbers = Annotated[list[LineNumber], Field(min_length=2, max_length=MAX_MERGE, description="The lines to merge.")]
SuggestedLines = Annotated[
    list[LineNumber],
    Field(min_length=1, max_length=MAX_MERGE, description="The lines suggested: two or more for a repeat or a "
          "conflict, one or more for a stray."),
]  # fmt: skip
SuggestionKind = Literal["repeat", "conflict", "stray"]


def described(kind: Any, description: str, *validators: Any, **limits: Any) -> Any:
    return Annotated[kind, Field(description=description, **limits), *validators]


DIGEST = "The words' digest: keyed ('k' and 63 hex digits), or the sha256 of older words, in hex."
Digest = described(str, DIGEST, pattern=r"^([0-9a-f]{64}|k[0-9a-f]{63})$")


# Taken alike by the API (bodies.py) and the MCP tools.
UNTIL = (
    "Read the notebook as it stood then: ISO 8601 (UTC unless it says) or epoch seconds; a time not yet come is "
    "refused."
)
Until = described(str | None, UNTIL)
ActorName = described(str | None, "Only the sessions this actor took.", Findable, max_length=150)
NotebookTitle = described(str | None, "Only the sessions on this notebook (its title).", Findable, max_length=80)
KeepWords = described(Words | None, "A repeat: the words to keep. " + GAME_ONLY)
KeepLine = described(LineNumber | None, "A conflict: the line to keep (one of 'lines').")
Kind = described(
    SuggestionKind,
    "repeat: they say one thing; conflict: they contradict each other; stray: not a lesson of this game.",
)


class Answer(BaseModel):
    # Every field is always sent (null when absent), so the document marks every one required.
    model_config = ConfigDict(json_schema_serialization_defaults_required=True, from_attributes=True)


PAGED = (
    "Every list pages alike: `next` is the cursor to send as `after` for the following page (opaque: send it back "
    "as it came), null when nothing is left; `more` says whether there is one."
)
# A page's cursors, as paging.cursors builds them: each list places them among its own fields, so no base model.
PageAfter = described(str | None, "The cursor this page was read after; null for the first page.", default=None)


def page_next(said: str) -> Any:
    return described(str | None, f"{said} {PAGED}", default=None)


class Claim(Answer):
    id: int
    actor: str


class NotebookItem(Answer):
    title: str
    head: int
    session: Claim | None = Field(description="The open session that claims the notebook, if any.")


class NotebookList(Answer):
    notebooks: list[NotebookItem]
    after: PageAfter
    next: page_next("The cursor of the last title of this page.")
    more: bool = False


class Line(Answer):
    n: int
    text: str
    source: str
    by: str
    at: float
    seq: int


class HeldSession(Answer):
    """The reader's own session on the notebook, as her reads and writes tell it."""

    id: int
    state: Literal["open", "lapsed"] = Field(
        description="open: her reads show its proposals and her writes go into it; lapsed: no call of hers for "
        "NOTEBOOK_SESSION_TTL seconds, its proposals listed in 'lapsed' and 'lapsed_retired' (abandon it, or retake)."
    )
    lease_until: float = Field(description="When its lease runs out (renewed by each of her calls), or ran out.")


HELD = "The reader's own session on this notebook (open, or lapsed and not abandoned); null for anyone else."
LAPSED = "Her lapsed session's lines, as it would have made them: not in the notebook, kept until she abandons it."
LAPSED_RETIRED = "The numbers of the live lines her lapsed session would retire or merge away: still in the notebook."


class Lines(Answer):
    notebook: str
    until: float | None
    seq: int = Field(description="The last row read: a frozen reader can prove what it read.")
    hash: str | None
    lines: list[Line]
    after: PageAfter
    next: page_next("The cursor of the last line of this page.")
    more: bool = False
    session: HeldSession | None = Field(None, description=HELD)
    lapsed: list[Line] = Field([], description=LAPSED)
    lapsed_retired: list[int] = Field([], description=LAPSED_RETIRED)


class OneLine(Answer):
    notebook: str
    until: float | None
    seq: int = Field(description="The last row read.")
    hash: str | None
    line: Line
    session: HeldSession | None = Field(None, description=HELD)


class Turn(Answer):
    notebook: str
    until: float | None
    text: str
    session: HeldSession | None = Field(None, description=HELD)
    lapsed: list[Line] = Field([], description=LAPSED)
    lapsed_retired: list[int] = Field([], description=LAPSED_RETIRED)


class MovedEnd(Answer):
    """The other end of a move between notebooks."""

    notebook: str
    n: int


class Entry(Answer):
    """One row of a line's history. Two ops are not rows of the line: "restored" (another line's add that restored
    it; `into` is that line) and "retired_into" (another line's strike into it, merged or retired: `from_n` is that
    line, `text` and `source` what it said then, `how`, `by`, `why`, `at` the strike's)."""

    seq: int
    op: str
    text: str | None
    source: str
    by: str
    at: float
    why: str
    how: str
    into: int | None
    adopted: bool
    was_at: float | None
    was_by: str
    from_n: int | None = Field(None, description='For op "retired_into": the line retired or merged into this one.')
    merged_from: list[int] = Field(
        default_factory=list, description="For the add of a merged line: the lines merged into it, by number."
    )
    moved_to: MovedEnd | None = Field(
        None, description='For a strike how "moved": the notebook and line the line was moved to.'
    )
    moved_from: MovedEnd | None = Field(
        None,
        description="For an add that moved the line in from another notebook: that notebook and line; `was_by` and "
        "`was_at` name who wrote the words there, and when.",
    )
    proposes: str | None = Field(
        None,
        description='For op "propose" (a session\'s pending row, counting only once the session lands): the op it '
        "proposes (add, edit or strike); `text` is the words it proposes.",
    )
    session: int | None = Field(None, description='For op "propose": the session it was proposed in.')
    lands: int | None = Field(None, description="For a session's landed row: the seq of the proposal it landed.")
    claimed_at: float | None = Field(
        None,
        description="For a row an outside writer appended to the notebook's file: the time the writer gave; `at` is "
        "when the log took it (views as of a time use `at`).",
    )


class History(Answer):
    notebook: str
    n: int
    entries: list[Entry]


class Row(BaseModel):
    """A row in the export format (JSON Lines); which other fields it has depends on its op."""

    model_config = ConfigDict(extra="allow")
    op: str
    n: int
    seq: int
    hash: str
    at: float


class Rows(Answer):
    notebook: str
    after: PageAfter
    rows: list[Row]
    next: page_next("The cursor of the last row of this page.")
    more: bool = False


class Written(Answer):
    n: int
    seq: int = Field(description="The row written: the line's last row, to send as 'expected' to change it again.")
    session: HeldSession | None = Field(
        None, description="The session the write went into (the writer's open one on this notebook); null if none."
    )


class Near(Answer):
    n: int = Field(description="A live line most like the new one.")
    score: float = Field(description="How alike, 0 to 1 (TF-IDF over character n-grams, cosine).")


class Added(Written):
    similar: list[Near] = Field(
        default_factory=list,
        description="The live lines most like the new one (at most 3, most alike first; empty when none is close): "
        "edit one of them instead when it says the same. Nothing is refused for being similar.",
    )


class Merged(Written):
    seqs: list[int] = Field(description="Every row the merge wrote: the new line's add, then one strike per line.")


class SuggestionItem(Answer):
    id: int
    notebook: str
    lines: list[int] = Field(description="The suggested lines, ascending.")
    kind: SuggestionKind
    words: str | None = Field(description="A repeat: the words suggested to keep.")
    keep: int | None = Field(description="A conflict (or a repeat): the line suggested to keep.")
    why: str
    by: str = Field(description="Who suggested it.")
    at: float = Field(description="When it was received, epoch seconds (the server's time).")


class NotAlikeMark(Answer):
    id: int
    lines: list[int]
    by: str = Field(description="Who marked them not alike (Dad).")
    at: float


class Suggested(Answer):
    already: Literal["pending", "not_alike"] | None = Field(
        description="null: stored now (201). pending: the same lines and kind already wait for Dad; 'suggestion' is "
        "that one (200). not_alike: Dad marked these lines not alike; 'mark' is his mark and 'suggestion' the last "
        "suggestion of them, if any (200)."
    )
    suggestion: SuggestionItem | None
    mark: NotAlikeMark | None


class Taken(Answer):
    id: int
    notebook: str
    base: int
    drift: int


class Checkpointed(Answer):
    id: int
    base: int
    head: int


class Landed(Answer):
    id: int
    result: Literal["landed", "no-op"]
    base: int
    head: int
    rows: int
    drift: int


class Withdrawn(Answer):
    id: int = Field(description="The session, still open.")
    proposal: int = Field(description="The seq of the proposal taken back: it stays in the log and history.")
    proposes: Literal["add", "edit", "strike"]
    n: int = Field(description="The line it proposed to add or change.")
    head: int
    rows: int = Field(description="The session's proposals that still count (a land copies those).")


class Abandoned(Answer):
    id: int
    result: Literal["abandoned"]
    head: int
    rows: int
    drift: int


class Event(Answer):
    number: int = Field(description="The event's place among the session's events: 1, 2, 3... (not a row's seq).")
    kind: str
    by: str
    at: float
    head: int
    after: int | None
    note: str
    result: str
    rows: int
    proposal: int | None = Field(None, description="A withdraw: the seq of the proposal it took back.")


class Session(Answer):
    id: int
    notebook: str
    actor: str
    role: str
    plan: str
    base: int
    at: float
    state: Literal[STATES]  # type: ignore[valid-type]
    lapsed_at: float | None = Field(
        None,
        description="A lapsed session: when its lease ran out (NOTEBOOK_SESSION_TTL seconds after the last call "
        "of its holder's).",
    )
    events: list[Event]
    change_rows: int
    drift_rows: int


class SessionRows(Session):
    change: list[Row]
    drift: list[Row]
    after: PageAfter
    next: page_next("The cursor of the last row of this page, change and drift together.")
    more: bool = False


class SessionList(Answer):
    sessions: list[Session]
    after: PageAfter
    next: page_next("The cursor of the last (oldest) session of this page.")
    more: bool = False
