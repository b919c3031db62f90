"""The MCP server as another client sees it: `manage.py notebook mcp` over stdio, driven by the mcp package's client."""

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import Implementation

from tests.databases import ROOT

Caller = Callable[..., Awaitable[Any]]
# What every setup script starts with: Django set up on DATABASE_URL, migrated, and the two write services at hand.
PREAMBLE = """
import os, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notebook_site.settings")
django.setup()
from django.core.management import call_command
from notebooks.log import services
from notebooks.sessions import services as sessions
call_command("migrate", "--no-input", verbosity=0)
"""


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
    """A SQLite file of its own, made by running `setup` (a script that writes what the test needs) after PREAMBLE; its
    DATABASE_URL. One process migrates and fills it: each Django start costs seconds on a busy machine."""
    path = tmp_path_factory.mktemp(name) / "notebooks.sqlite3"
    url = f"sqlite:///{path}"
    env = {**os.environ, "DATABASE_URL": url}
    subprocess.run([sys.executable, "-c", PREAMBLE + setup], cwd=ROOT, env=env, check=True, capture_output=True)
    return url


def tool_caller(client: ClientSession) -> Caller:
    """call(name, **arguments): a tool's structured answer, or ("error", its text, its structured error)."""

    async def call(name: str, **arguments: object) -> Any:
        result = await client.call_tool(name, arguments)
        if result.is_error:
            return ("error", result.content[0].text, result.structured_content)
        return result.structured_content

    return call


Script = Callable[[ClientSession, Caller], Awaitable[dict]]


def run_mcp_script(tmp_path_factory, name: str, setup: str, script: Script, **env: str) -> dict:  # noqa: ANN001
    """What `script(client, call)` gathers in one session as pippa, on a scratch database made by `setup` and with `env`
    set for the server."""
    url = scratch_database(tmp_path_factory, name, setup)

    async def run() -> dict:
        async with mcp_session({"DATABASE_URL": url, **env}) as (client, _info):
            return await script(client, tool_caller(client))

    return anyio.run(run)
