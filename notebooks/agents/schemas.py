"""The agent's contract, declared once: what the API (api.py) and the MCP tools (mcp_server.py) take and answer.

The OpenAPI document is generated from these models, so it cannot disagree with the code. Bodies are strict (a
string is never a number, a bool never an integer) and refuse unknown fields; limits are those of log/checks.py.
"""

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from notebooks.log.checks import MAX_ID, MAX_NUMBER, is_storable, max_reason, max_words
from notebooks.log.rowformat import GAME_ONLY
from notebooks.models import TITLE_PATTERN, Source

MAX_MERGE = 1000
ROWS_PAGE = 1000
ROWS_PAGE_MAX = 5000
STATES = ("open", "landed", "no-op", "abandoned", "lapsed")
TITLE = re.compile(TITLE_PATTERN)


def _storable(value: str) -> str:
    if not is_storable(value):
        raise ValueError("not valid Unicode text (a lone surrogate)")
    return value


def _words(description: str, limit: int) -> Any:
    return Annotated[str, Field(min_length=1, max_length=limit, description=description), AfterValidator(_storable)]


Title = Annotated[str, Field(pattern=TITLE_PATTERN, description="A notebook's title.")]
LineNumber = Annotated[int, Field(ge=1, le=MAX_NUMBER)]
Seq = Annotated[int, Field(ge=1, le=MAX_ID)]
SessionId = Annotated[int, Field(ge=1, le=MAX_ID)]
SourceName = Literal[tuple(Source.values)]  # type: ignore[valid-type]
Words = _words("The line's words. " + GAME_ONLY, max_words())
Why = _words("Why, in a few words.", max_reason())
Numbers = Annotated[list[LineNumber], Field(min_length=2, max_length=MAX_MERGE, description="The lines to merge.")]
Digest = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$", description="The sha256 of the words, in hex.")]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Query(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _blank_is_unsaid(cls, data: Any) -> Any:
        """?after= with no value reads as no 'after' at all, as it always has."""
        return {k: v for k, v in data.items() if v != ""} if isinstance(data, dict) else data


# ----- what is sent ---------------------------------------------------------------------------------------------


class AddIn(Body):
    text: Words
    source: SourceName
    why: Why


class EditIn(Body):
    to: Words
    why: Why
    expected: Seq | None = Field(None, description="The seq of the line's last row as you read it.")


class RetireIn(Body):
    why: Why
    into: LineNumber | None = Field(None, description="The line that now says it.")
    expected: Seq | None = None


class RedactIn(Body):
    why: Why
    seq: Seq | None = Field(None, description="The row of the line whose words go.")
    digest: Digest | None = None


class MergeIn(Body):
    numbers: Numbers
    text: Words
    why: Why
    source: SourceName | None = None


class TakeIn(Body):
    notebook: Annotated[str, Field(min_length=1, max_length=80, description="The notebook's title.")]
    plan: _words("The plan.", max_words())


class CheckpointIn(Body):
    note: _words("What stands so far.", max_reason())


class LandIn(Body):
    summary: _words("What the session changed.", max_words()) | None = None


class AbandonIn(Body):
    why: Why


class UntilQuery(Query):
    until: str | None = Field(
        None, description="Read the notebook as it stood then: ISO 8601 (UTC unless it says) or epoch seconds."
    )


class RowsQuery(Query):
    after: int = Field(0, ge=0, le=MAX_ID)
    limit: int = Field(ROWS_PAGE, ge=1, le=ROWS_PAGE_MAX)


class StateQuery(Query):
    state: Literal[STATES] | None = None  # type: ignore[valid-type]


# ----- what is answered -------------------------------------------------------------------------------------------


class Claim(BaseModel):
    id: int
    actor: str


class NotebookItem(BaseModel):
    title: str
    head: int
    session: Claim | None = Field(description="The open session that claims the notebook, if any.")


class NotebookList(BaseModel):
    notebooks: list[NotebookItem]


class Line(BaseModel):
    n: int
    text: str
    source: str
    by: str
    at: float
    seq: int


class Lines(BaseModel):
    notebook: str
    until: float | None
    seq: int = Field(description="The last row read: a frozen reader can prove what it read.")
    hash: str | None
    lines: list[Line]


class Turn(BaseModel):
    notebook: str
    until: float | None
    text: str


class Entry(BaseModel):
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


class History(BaseModel):
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


class Rows(BaseModel):
    notebook: str
    after: int
    rows: list[Row]
    next: int
    more: bool


class Written(BaseModel):
    n: int
    seq: int


class Near(BaseModel):
    n: int = Field(description="A live line most like the new one.")
    score: float = Field(description="How alike, 0 to 1 (TF-IDF over character n-grams, cosine).")


class Added(Written):
    similar: list[Near] = Field(
        default_factory=list,
        description="The live lines most like the new one (at most 3, most alike first; empty when none is close): "
        "edit one of them instead when it says the same. Nothing is refused for being similar.",
    )


class Merged(BaseModel):
    n: int
    seqs: list[int]


class Taken(BaseModel):
    id: int
    notebook: str
    base: int
    drift: int


class Checkpointed(BaseModel):
    id: int
    base: int
    head: int


class Landed(BaseModel):
    id: int
    result: Literal["landed", "no-op"]
    base: int
    head: int
    rows: int
    drift: int


class Abandoned(BaseModel):
    id: int
    result: Literal["abandoned"]
    head: int
    rows: int
    drift: int


class Event(BaseModel):
    seq: int
    kind: str
    by: str
    at: float
    head: int
    after: int | None
    note: str
    result: str
    rows: int


class Session(BaseModel):
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


class SessionList(BaseModel):
    sessions: list[Session]


class Problem(BaseModel):
    """A refusal: its stable code, a message a person can act on, and what the refusal names."""

    model_config = ConfigDict(extra="allow")
    code: str
    message: str
    fields: list[str] | None = Field(None, description="The fields refused (bad input).")
    holder: str | None = Field(None, description="Who holds the session that claims the notebook.")
    session: int | None = Field(None, description="The session the refusal names (the claiming or lapsed one).")
    current: str | None = Field(None, description="A stale edit: the line's words now.")
    current_seq: int | None = Field(None, description="A stale edit: the seq of the line's last row now.")
    reasons: list[str] | None = Field(None, description="A land refused: each final gate that failed.")


class Error(BaseModel):
    error: Problem
