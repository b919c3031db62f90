"""The project's version, said once in pyproject.toml: the MCP server and the API's document state it."""

import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def _read() -> str:
    try:
        with PYPROJECT.open("rb") as f:
            return str(tomllib.load(f)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):  # a copy without its pyproject still starts
        return "0+unknown"


VERSION = _read()
