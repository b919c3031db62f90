import os
from collections.abc import Callable, Iterable
from typing import Any

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notebook_site.settings")
everyone = get_wsgi_application()

from django.conf import settings  # noqa: E402 - after the setup above
from django.core.handlers.wsgi import WSGIHandler  # noqa: E402

from notebooks.agents.api import warm as warm_api  # noqa: E402


class AgentHandler(WSGIHandler):
    """The app with settings.AGENT_MIDDLEWARE only, for an agent's calls (bench/NOTES.md: 0.73 -> 0.58 ms of CPU a
    warm turn read in process)."""

    def load_middleware(self, is_async: bool = False) -> None:
        full = settings.MIDDLEWARE
        settings.MIDDLEWARE = settings.AGENT_MIDDLEWARE  # read once, here, while the process starts
        try:
            super().load_middleware(is_async)
        finally:
            settings.MIDDLEWARE = full


agents = AgentHandler()
warm_api()


def is_agents(environ: dict[str, Any]) -> bool:
    """A call with a bearer token to the API (its docs page aside: it needs the card's sign-in) or to /mcp."""
    path = environ.get("PATH_INFO", "")
    bearer = environ.get("HTTP_AUTHORIZATION", "")[:7].lower() == "bearer "
    return bearer and (path == "/mcp" or (path.startswith("/api/") and not path.startswith("/api/docs")))


def application(environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
    return (agents if is_agents(environ) else everyone)(environ, start_response)
