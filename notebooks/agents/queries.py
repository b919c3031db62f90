"""What each read of the API takes in its query string, strict like the bodies; every list pages alike (paging.py)."""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from notebooks.agents import paging
from notebooks.agents.schemas import STATES, Findable

SEARCH_LONGEST = 200  # characters of a search


class Query(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _blank_is_unsaid(cls, data: Any) -> Any:
        """?after= with no value reads as no 'after' at all, as it always has."""
        return {k: v for k, v in data.items() if v != ""} if isinstance(data, dict) else data


class UntilQuery(Query):
    until: str | None = Field(
        None, description="Read the notebook as it stood then: ISO 8601 (UTC unless it says) or epoch seconds."
    )


class RowsQuery(Query):
    after: paging.query_after("rows") = None
    limit: paging.query_limit("rows") = paging.PAGE


class LinesQuery(UntilQuery):
    after: paging.query_after("lines") = None
    limit: paging.query_limit("lines") = paging.PAGE
    q: Annotated[str | None, Findable] = Field(
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
    state: Literal[STATES] | None = None  # type: ignore[valid-type]
    actor: Annotated[str | None, Findable] = Field(
        None, max_length=150, description="Only the sessions this actor took."
    )
    notebook: Annotated[str | None, Findable] = Field(
        None, max_length=80, description="Only the sessions on this notebook (its title)."
    )
    after: paging.query_after("sessions") = None
    limit: paging.query_limit("sessions") = paging.PAGE


class SessionQuery(Query):
    after: paging.query_after("session") = None
    limit: paging.query_limit("change and drift rows together") = paging.PAGE
