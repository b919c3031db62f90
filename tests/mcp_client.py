"""The MCP server as another client sees it: `manage.py notebook mcp` over stdio, driven by the mcp package's client."""

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import Implementation

from tests.databases import ROOT


@asynccontextmanager
async def mcp_session(env: dict[str, str], actor: str = "pippa") -> AsyncIterator[tuple[ClientSession, Implementation]]:
    """An initialized client session with the server run as `actor` on `env`'s database; yields it and the server's
    info."""
    server = StdioServerParameters(
        command=sys.executable, args=["manage.py", "notebook", "mcp", "--actor", actor], env=env, cwd=str(ROOT)
    )
    with open(os.devnull, "w") as quiet:  # the server's system-check warnings go to stderr
        async with stdio_client(server, errlog=quiet) as (read, write), ClientSession(read, write) as client:
            info = (await client.initialize()).server_info
            yield client, info


def scratch_database(tmp_path_factory, name: str, setup: str) -> str:  # noqa: ANN001
    """A SQLite file of its own, made by running `setup` (a script that migrates and writes what the test needs); its
    DATABASE_URL."""
    path = tmp_path_factory.mktemp(name) / "notebooks.sqlite3"
    url = f"sqlite:///{path}"
    subprocess.run([sys.executable, "-c", setup], cwd=ROOT, env={**os.environ, "DATABASE_URL": url}, check=True,
                   capture_output=True)  # fmt: skip
    return url


def tool_caller(client: ClientSession) -> Callable[..., Awaitable[Any]]:
    """call(name, **arguments): a tool's structured answer, or ("error", its text, its structured error)."""

    async def call(name: str, **arguments: object) -> Any:
        result = await client.call_tool(name, arguments)
        if result.is_error:
            return ("error", result.content[0].text, result.structured_content)
        return result.structured_content

    return call
