"""What the browser tests share: Debian's Chromium, how it is started, and a test server's start-up wait."""

import os
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable

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
