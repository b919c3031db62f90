"""The web server `make serve` runs (WEB_SERVER): granian by default, chosen by measurement (bench/SERVE.md), or
gunicorn with gunicorn.conf.py; both read the same settings from the environment."""

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVERS = ("granian", "gunicorn")
APP = "notebook_site.wsgi:application"
# The request's time in milliseconds after its status, as gunicorn.conf.py's format gives it.
GRANIAN_ACCESS_LOG = '%(addr)s "%(method)s %(path)s %(protocol)s" %(status)d - %(dt_ms).1fms'


Environ = Mapping[str, str]


def server_name(environ: Environ) -> str:
    """The server WEB_SERVER names (granian when unset); anything else is refused with the choices."""
    server = environ.get("WEB_SERVER") or "granian"
    if server not in SERVERS:
        raise SystemExit(f"WEB_SERVER={server!r}: one of {', '.join(SERVERS)}")
    return server


def command(environ: Environ, app: str = APP) -> list[str]:
    """The command that serves `app` (the project's WSGI app by default) with the server WEB_SERVER names."""
    if server_name(environ) == "gunicorn":
        return [sys.executable, "-m", "gunicorn", "--config", str(ROOT / "gunicorn.conf.py"), app]
    return granian(environ, app)


def granian(environ: Environ, app: str = APP) -> list[str]:
    """granian's WSGI server: WEB_CONCURRENCY processes (a core each) of WEB_THREADS threads (8: as many in all as
    gunicorn's 2 a core x 4), on BIND (host:port or unix:/path) or 127.0.0.1:PORT."""
    cores = os.cpu_count() or 1
    bind = environ.get("BIND") or f"127.0.0.1:{environ.get('PORT', '8000')}"
    if bind.startswith("unix:"):
        where = ["--uds", bind.removeprefix("unix:")]
    else:
        host, _, port = bind.rpartition(":")
        where = ["--host", host.strip("[]") or "127.0.0.1", "--port", port]
    access = environ.get("ACCESS_LOG", "-")
    if access not in ("-", "off"):
        raise SystemExit("ACCESS_LOG with granian is - (standard output) or off; a file is gunicorn's (WEB_SERVER)")
    log = ["--access-log", "--access-log-fmt", GRANIAN_ACCESS_LOG] if access == "-" else ["--no-access-log"]
    return [
        sys.executable, "-m", "granian", "--interface", "wsgi", *where,
        "--workers", environ.get("WEB_CONCURRENCY") or str(cores),
        "--blocking-threads", environ.get("WEB_THREADS") or "8",
        "--respawn-failed-workers", "--workers-kill-timeout", "10", *log,
        "--working-dir", str(ROOT), app,
    ]  # fmt: skip


if __name__ == "__main__":  # `python -m notebook_site.web_servers`: the server alone, in this process (a systemd unit)
    args = command(os.environ)
    # A database a newer release migrated, or a log without its triggers, is refused before serving (not at a reload).
    checked = subprocess.run([sys.executable, str(ROOT / "manage.py"), "check", "--fail-level", "ERROR"], check=False)
    if checked.returncode:
        raise SystemExit("manage.py check failed: not serving (its errors are above)")
    os.execv(args[0], args)
