"""What the browser tests share: Debian's Chromium, how it is started, and a live server on its own SQLite file.

pytest-django's live_server flushes tables, which the append-only triggers refuse, so the server here is a
`manage.py runserver` subprocess on a temporary database, migrated and seeded through manage.py.
"""

import os
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

ROOT = Path(__file__).resolve().parent.parent

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
    """A live server: its address, the first editor's password, and manage.py against its database."""

    url: str
    password: str
    env: dict
    manage: list
    seeded_at: float = 0.0  # when its seed finished (a test's frozen times are counted from it)

    def run(self, *args: str) -> str:
        """A manage.py command against the server's database, e.g. someone else's write."""
        done = subprocess.run(
            [*self.manage, *args], env=self.env, cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
        return done.stdout


@contextmanager
def live_server(tmp: Path, seed: Callable[[Server], None]) -> Iterator[Server]:
    """A migrated database in `tmp` with a first editor ("dad"), seeded by `seed`, served until the block ends."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "notebook_site.settings",
        "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}",
        "DEBUG": "1",  # runserver serves the static files only in DEBUG, as `make run` does
        "SECRET_KEY": "browser-tests-only",
        "ALLOWED_HOSTS": "127.0.0.1",
    }
    server = Server(url="", password="", env=env, manage=[sys.executable, str(ROOT / "manage.py")])
    server.run("migrate", "--no-input")
    server.run("notebook", "first-editor", "--password-file", str(tmp / "pw.txt"))
    server.password = (tmp / "pw.txt").read_text().split()[-1]
    seed(server)
    server.seeded_at = time.time()
    port = free_port()
    log = (tmp / "server.log").open("w")
    process = subprocess.Popen(
        [*server.manage, "runserver", "--noreload", f"127.0.0.1:{port}"], env=env, cwd=ROOT, stdout=log, stderr=log
    )
    server.url = f"http://127.0.0.1:{port}"
    try:
        wait_for_server(f"{server.url}/accounts/login/", process, (tmp / "server.log").read_text)
        yield server
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()
