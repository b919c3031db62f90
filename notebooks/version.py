"""The project's version, said once in pyproject.toml: the MCP server and the API's document state it."""

import tomllib
from pathlib import Path

try:
    with (Path(__file__).resolve().parent.parent / "pyproject.toml").open("rb") as f:
        VERSION = str(tomllib.load(f)["project"]["version"])
except (OSError, KeyError, tomllib.TOMLDecodeError):  # a copy without its pyproject still starts
    VERSION = "0+unknown"
