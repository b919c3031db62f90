"""What the API (api.py) and the MCP tools (mcp_server.py) take in a request's body: strict (a string is never a
number, a bool never an integer), unknown fields refused, limits those of log/rules/checks.py. The field types and the
answers are schemas.py's."""

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from notebooks.agents.schemas import (
    Digest,
    LineNumber,
    Note,
    Numbers,
    Plan,
    Seq,
    SourceName,
    Summary,
    Why,
    Words,
)
from notebooks.log.rules.errors import Invalid
from notebooks.models import TITLE_PATTERN


def required_in_schema(*names: str) -> Any:
    """The document marks these fields required although the model still takes them missing: an old name of the
    field (deprecated, kept one release) or an old use (a no-op land without a summary) is answered as before."""

    def edit(schema: dict[str, Any]) -> None:
        schema["required"] = [*schema.get("required", []), *names]
        for name in names:
            prop = schema["properties"][name]
            branches = [b for b in prop.pop("anyOf", []) if b.get("type") != "null"]
            prop.update(branches[0] if branches else {})
            prop.pop("default", None)

    return edit


def _deprecated(description: str) -> dict[str, Any]:
    return {"deprecated": True, "description": "Deprecated (kept until the next release): " + description}


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class AddIn(Body):
    text: Words
    source: SourceName
    why: Why


class EditIn(Body):
    model_config = ConfigDict(json_schema_extra=required_in_schema("text"))
    text: Words | None = None
    to: Words | None = Field(None, json_schema_extra=_deprecated("the line's new words; send them as 'text'."))
    why: Why
    expected: Seq | None = Field(None, description="The seq of the line's last row as you read it.")

    def words(self) -> str:
        return new_words(self.text, self.to)


def new_words(text: str | None, to: str | None) -> str:
    """An edit's new words: 'text', or 'to' (its old name, deprecated); one of them, not both."""
    if text is not None and to is not None:
        raise Invalid("'to': send the new words once, as 'text' ('to' is its old name).", fields=["to"])
    if text is None and to is None:
        raise Invalid("'text': Field required (the line's new words).", fields=["text"])
    return text if text is not None else to  # type: ignore[return-value]


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


class NotebookIn(Body):
    title: Annotated[str, Field(pattern=TITLE_PATTERN, description="The new notebook's title (a game's name).")]


class TakeIn(Body):
    notebook: Annotated[str, Field(min_length=1, max_length=80, description="The notebook's title.")]
    plan: Plan


class CheckpointIn(Body):
    note: Note


class LandIn(Body):
    # Required: a land with rows and no summary is refused; a no-op land without one is still taken (deprecated).
    model_config = ConfigDict(json_schema_extra=required_in_schema("summary"))
    summary: Summary | None = None


class AbandonIn(Body):
    why: Why
