"""MCP tools as strict as the API's bodies (unknown names, wrong types refused), each refusal in the project's words,
"invalid (400): 'text': …", with the API's error object as structured content."""

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import ConfigDict, ValidationError

from notebooks.agents import refusals
from notebooks.agents.bodies import required_in_schema
from notebooks.agents.problems import Problem
from notebooks.log.rules.checks import is_storable
from notebooks.log.rules.errors import Invalid, NotebookError


def refused(code: str, status: int, message: str, **details: Any) -> CallToolResult:
    """A tool error naming its code and status, the API's {"error": {...}} as its structured content."""
    error = {"code": code, "message": message, **details}
    return CallToolResult(
        content=[TextContent(type="text", text=f"{code} ({status}): {message}")],
        structured_content={"error": error},
        is_error=True,
    )


def refusal(exc: NotebookError) -> CallToolResult:
    details = dict(exc.details)
    if exc.retry_after is not None:  # a take of a claimed notebook: the seconds until the holder's lease lapses
        details["retry_after"] = exc.retry_after
    return refused(exc.code, exc.status, exc.message, **details)


def _names_nothing(error: dict[str, Any]) -> bool:
    """A title out of pattern, a number 0 or past the largest: a path naming nothing, the API's 404. A negative number
    is none a URL's digits can write: the API's 400, as any other wrong value."""
    if error["type"] in ("string_pattern_mismatch", "less_than_equal"):
        return True
    return error["type"] == "greater_than_equal" and type(error.get("input")) is int and error["input"] >= 0


class StrictTool(Tool):
    path: tuple[str, ...] = ()  # the arguments the API reads from its path

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        for name, value in arguments.items():  # text the database could not store is refused before any query
            if isinstance(value, str) and not is_storable(value):
                return refusal(Invalid(f"'{name}': not valid Unicode text (a lone surrogate).", fields=[name]))
        model = self.fn_metadata.arg_model
        try:
            model.model_validate(arguments)
        except ValidationError as exc:
            errors = exc.errors()
            if errors[0]["loc"][0] in self.path and _names_nothing(errors[0]):  # as the API's path answers it
                return refusal(refusals.invalid_request([{**errors[0], "loc": ("path", *errors[0]["loc"])}], arguments))
            return refusal(refusals.bad_input(errors, known=sorted(model.model_fields)))
        return await super().run(arguments, context, convert_result=convert_result)


def strict_tool(
    fn: Callable,
    description: str,
    *,
    required: tuple[str, ...] = (),
    offered: dict[str, list] | None = None,
    path: tuple[str, ...] = (),
    annotations: ToolAnnotations | None = None,
) -> StrictTool:
    """A tool whose arguments are validated strictly; `required` as bodies.required_in_schema; `offered` narrows an
    argument's enum to what this actor may send; `path` names the arguments the API reads from its path."""
    tool = StrictTool.from_function(fn, description=description, annotations=annotations)
    tool.path = path
    loose = tool.fn_metadata.arg_model
    config = ConfigDict(extra="forbid", strict=True, arbitrary_types_allowed=True)
    if required:
        config["json_schema_extra"] = required_in_schema(*required)
    strict = type(loose.__name__, (loose,), {"model_config": config, "__module__": loose.__module__})
    tool.fn_metadata.arg_model = strict
    tool.parameters = strict.model_json_schema(by_alias=True)
    for name, values in (offered or {}).items():
        tool.parameters["properties"][name]["enum"] = values
    _admit_refusals(tool.fn_metadata.output_schema)
    return tool


def _admit_refusals(schema: dict[str, Any] | None) -> None:
    """The answer's schema admits a refusal's {"error": …} too: a client that checks it even on isError (TypeScript
    SDK 1.x, so Claude's apps and the Inspector) would hide the refusal behind its own -32602."""
    if schema is None:
        return
    problem = Problem.model_json_schema(ref_template="#/$defs/{model}")
    schema.setdefault("$defs", {}).update({**problem.pop("$defs", {}), "Problem": problem})
    refused = {"required": ["error"], "properties": {"error": {"$ref": "#/$defs/Problem"}}}
    schema["anyOf"] = [{"required": schema.pop("required", [])}, refused]
