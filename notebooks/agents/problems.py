"""A refusal as the API and MCP answer it, `{"error": Problem}`: its code (refusals.py's), message and what it names."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from notebooks.agents.refusals import CODES
from notebooks.agents.schemas import STATES

ErrorCode = Literal[CODES]  # type: ignore[valid-type]


class Problem(BaseModel):
    """A refusal: its stable code, a message a person can act on, and what the refusal names (each only where it
    applies)."""

    model_config = ConfigDict(extra="allow")
    code: ErrorCode
    message: str
    fields: list[str] | None = Field(None, description="Bad input: the fields (or query parameters) refused.")
    session: int | None = Field(None, description="The session the refusal is about: the holder's, or the actor's own.")
    holder: str | None = Field(None, description="Who holds the session that claims the notebook.")
    notebook: str | None = Field(None, description="The notebook the actor's open session is on.")
    state: Literal[STATES] | None = Field(None, description="A closed session: how it closed.")  # type: ignore[valid-type]
    current: str | None = Field(None, description="A stale edit: the line's words now.")
    current_seq: int | None = Field(None, description="A stale edit: the seq of the line's last row now.")
    reasons: list[str] | None = Field(None, description="A land refused (gate_refused): each final gate that failed.")
    lapsed_at: float | None = Field(None, description="A lapsed session (code lapsed): when its lease ran out.")
    lease_until: float | None = Field(
        None, description="A take by the holder of an open session: when its lease runs out (her calls renew it)."
    )
    proposal: int | None = Field(None, description="A withdraw refused: the seq of the proposal it named.")
    line: int | None = Field(None, description="An import refused: the line of the file.")
    existing: str | None = Field(None, description="A title refused as a look-alike: the taken title it looks like.")
    limit: int | None = Field(
        None,
        description="Too many new notebooks: how many one actor may create per window; too many suggestions: how "
        "many may wait for Dad per notebook.",
    )
    lines: list[int] | None = Field(None, description="A suggestion naming lines that are not live: those lines.")
    window: float | None = Field(None, description="Too many new notebooks: the window, in seconds.")
    tools: list[str] | None = Field(None, description="An unknown MCP tool: the tools there are.")


class Error(BaseModel):
    error: Problem
