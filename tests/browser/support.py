"""What the browser tests share: Debian's Chromium, how it is started, and live servers on scratch databases.

pytest-django's live_server flushes tables, which the append-only triggers refuse, so a server here is a
`manage.py runserver` subprocess on a scratch database (a copy of the session's migrated template,
tests/databases.py), seeded through one long-lived command process (tests/commands.py) rather than a
`manage.py` start per command.
"""

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.databases import ROOT, Commands, Scratch

# Debian's Chromium (`make browser` installs it), or any Chromium named by CHROMIUM=/path.
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# Run in each page before its scripts: collects every Content-Security-Policy violation in window.__violations.
WATCH = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
    e => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_server(url: str, server: subprocess.Popen, log: Callable[[], str], timeout: float = 60) -> None:
    """Until `url` answers; fails with the server's output if it exits or does not answer in time."""
    deadline = time.time() + timeout
    while True:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            assert server.poll() is None, log()
            assert time.time() < deadline, f"the test server did not start:\n{log()}"
            time.sleep(0.2)


@dataclass
class Server:
    """A live server: its address, the editor dad's password, and manage.py commands against its database."""

    url: str
    password: str
    scratch: Scratch
    commands: Commands
    seeded_at: float = 0.0  # when its seed finished (a test's frozen times are counted from it)

    def run(self, *args: str) -> str:
        """A manage.py command against the server's database, e.g. someone else's write; what it printed."""
        return self.commands.run(*args)


SET_PASSWORD = (
    "from django.contrib.auth.models import User; u = User.objects.get(username='dad'); u.set_password({!r}); u.save()"
)


@contextmanager
def serve(
    scratch: Scratch,
    tmp: Path,
    seed: Callable[[Server], None] | None = None,
    password: str | None = None,
    seed_first: bool = False,
    **env: str,
) -> Iterator[Server]:
    """`scratch` (migrated, with the editor dad) served by runserver until the block ends: dad's password set
    (`password`, or a new one), `seed` run through the command process, `env` added to both processes' settings.
    The server starts while the seed runs, unless `seed_first` (e.g. whitenoise lists the static files at start)."""
    env = scratch.env(**{"DEBUG": "1", "ALLOWED_HOSTS": "127.0.0.1", **env})  # DEBUG: runserver serves static files
    log_path = tmp / "server.log"
    log = log_path.open("w")
    port = free_port()
    processes: list[subprocess.Popen] = []

    def start() -> None:
        processes.append(subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), "runserver", "--noreload", f"127.0.0.1:{port}"],
            env=env, cwd=ROOT, stdout=log, stderr=log,
        ))  # fmt: skip

    commands: Commands | None = None
    try:
        if not seed_first:
            start()  # while the database is seeded: the server reads it only once a request comes
        commands = Commands(env, stderr=log)
        server = Server(url=f"http://127.0.0.1:{port}", password=password or secrets.token_urlsafe(18),
                        scratch=scratch, commands=commands)  # fmt: skip
        server.run("shell", "--no-imports", "-c", SET_PASSWORD.format(server.password))
        if seed:
            seed(server)
        server.seeded_at = time.time()
        if seed_first:
            start()
        wait_for_server(f"{server.url}/accounts/login/", processes[0], log_path.read_text)
        yield server
    finally:
        if commands is not None:
            commands.close()
        for process in processes:
            process.terminate()
            process.wait(timeout=10)
        log.close()
        scratch.settle()
