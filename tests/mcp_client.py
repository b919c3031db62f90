"""The MCP server as another client sees it: `manage.py notebook mcp` over stdio, driven by the mcp package's client."""

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

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
