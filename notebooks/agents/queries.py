"""What each read of the API takes in its query string: strict like the bodies (schemas.py), an unknown parameter
refused (api.py); each list pages with the cursor of /rows: `limit` and `after` in, `next` and `more` out."""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from notebooks.agents.schemas import STATES, Findable, UrlDigits
from notebooks.log.rules.checks import MAX_ID, MAX_NUMBER

ROWS_PAGE = 1000
ROWS_PAGE_MAX = 5000
PAGE_MAX = 5000  # lines, notebooks, sessions and a session's rows per page at most
SESSIONS_PAGE = 100  # sessions answered when no limit is given, as before paging
SEARCH_LONGEST = 200  # characters of a search
SESSION_ROWS_PAGE = 400  # a session's change and drift rows together when no limit is given: each had 200 at most


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


def _limit(default: int | None, most: int, what: str) -> Any:
    said = f"at most {default} when not given" if default else "all of them when not given"
    return Field(default, ge=1, le=most, description=f"How many {what} a page answers ({said}).")


def _after(what: str, most: int, *, least: int = 0, default: int | None = 0) -> Any:
    return Field(default, ge=least, le=most, description=f"{what}: the `next` of the page before.")


class RowsQuery(Query):
    after: Annotated[int, UrlDigits] = _after("Rows after this seq", MAX_ID)
    limit: Annotated[int, UrlDigits] = _limit(ROWS_PAGE, ROWS_PAGE_MAX, "rows")


class LinesQuery(UntilQuery):
    after: Annotated[int, UrlDigits] = _after("Lines numbered after this", MAX_NUMBER)
    limit: Annotated[int | None, UrlDigits] = _limit(None, PAGE_MAX, "lines")
    q: Annotated[str | None, Findable] = Field(
        None,
        max_length=SEARCH_LONGEST,
        description="Only the lines the card's search finds: a line number (12, #12, line 12) asks for that line; "
        "words find the lines with a word beginning with each of them (folded: case, accents and apostrophes "
        "ignored, a common ending taken off), in any order.",
    )
    match: Literal["all", "any"] = Field("all", description="With 'q': lines holding all of its words, or any.")


class NotebooksQuery(Query):
    after: Annotated[str | None, Findable] = Field(
        None, max_length=80, description="Titles after this one: the `next` of the page before."
    )
    limit: Annotated[int | None, UrlDigits] = _limit(None, PAGE_MAX, "notebooks")


class SessionsQuery(Query):
    state: Literal[STATES] | None = None  # type: ignore[valid-type]
    actor: Annotated[str | None, Findable] = Field(
        None, max_length=150, description="Only the sessions this actor took."
    )
    notebook: Annotated[str | None, Findable] = Field(
        None, max_length=80, description="Only the sessions on this notebook (its title)."
    )
    after: Annotated[int | None, UrlDigits] = _after(
        "Sessions older than this id (newest first)", MAX_ID, least=1, default=None
    )
    limit: Annotated[int, UrlDigits] = _limit(SESSIONS_PAGE, PAGE_MAX, "sessions")


class SessionQuery(Query):
    after: Annotated[int, UrlDigits] = _after("The session's rows after this seq", MAX_ID)
    limit: Annotated[int, UrlDigits] = _limit(SESSION_ROWS_PAGE, PAGE_MAX, "change and drift rows together")
