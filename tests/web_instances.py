"""Real web server instances (the one `make serve` runs, or the one WEB_SERVER names) on free ports (standing in for
hosts), and small HTTP clients for them: the agent's (a bearer token) and Dad's (a signed-in session with its CSRF
cookie). Used by tests/reliability/test_instances.py and bench/serve.py.
"""

import http.cookiejar
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from notebook_site.web_servers import APP, command, server_name

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Instance:
    """One web server (its main process and workers) serving the app at `base`."""

    base: str
    proc: subprocess.Popen
    log: Path

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_instance(
    env: dict[str, str], log: Path, *, workers: int = 2, threads: int = 4, app: str = APP, **extra: str
) -> Instance:
    """Start the web server `make serve` runs (WEB_SERVER in `extra` or `env` picks another) serving `app`, the
    project's by default, with `workers` processes of `threads` threads on a free port; returns once /healthz
    answers 200."""
    port = free_port()
    env = {
        **env,
        "BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": str(workers),
        "WEB_THREADS": str(threads),
        "ACCESS_LOG": "off",
        **extra,
    }
    handle = log.open("w")
    proc = subprocess.Popen(command(env, app), cwd=ROOT, env=env, stdout=handle, stderr=handle)
    return wait_ready(Instance(f"http://127.0.0.1:{port}", proc, log), server_name(env))


def wait_ready(instance: Instance, name: str, within: float = 60) -> Instance:
    """The instance once its /healthz answers 200; stopped, with its log's end, if it exits or stays silent."""
    deadline = time.monotonic() + within
    while True:
        if instance.proc.poll() is not None:
            raise AssertionError(f"{name} exited {instance.proc.returncode}: {instance.log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(instance.base + "/healthz", timeout=5) as response:
                if response.status == 200:
                    return instance
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        if time.monotonic() > deadline:
            instance.stop()
            raise AssertionError(
                f"{name} did not answer /healthz within {within:.0f} s: {instance.log.read_text()[-3000:]}"
            )
        time.sleep(0.2)


def api(base: str, token: str, method: str, path: str, body: Any = None, timeout: float = 30) -> tuple[int, Any]:
    """One API request; the status and the decoded JSON answer (or the raw bytes if it is not JSON)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        try:
            return exc.code, json.loads(raw)
        except ValueError:
            return exc.code, raw[:500]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


@dataclass
class Browser:
    """Dad's side: cookies kept, redirects not followed, the CSRF token sent with every form."""

    base: str
    jar: http.cookiejar.CookieJar = field(default_factory=http.cookiejar.CookieJar)

    def __post_init__(self) -> None:
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect())

    def get(self, path: str, timeout: float = 30) -> tuple[int, str]:
        try:
            with self.opener.open(self.base + path, timeout=timeout) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode(errors="replace")

    def post(self, path: str, fields: list[tuple[str, Any]], timeout: float = 30) -> tuple[int, str]:
        token = next((c.value for c in self.jar if c.name == "csrftoken"), "")
        data = urllib.parse.urlencode([*fields, ("csrfmiddlewaretoken", token)]).encode()
        request = urllib.request.Request(self.base + path, data=data, method="POST")
        request.add_header("Referer", self.base + path)
        try:
            with self.opener.open(request, timeout=timeout) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode(errors="replace")

    def sign_in(self, username: str, password: str) -> int:
        """The sign-in form's answer: 302 signed in, 200 refused, 429 throttled."""
        self.get("/accounts/login/")
        return self.post("/accounts/login/", [("username", username), ("password", password)])[0]


def scratch_env(env: dict[str, str], static_root: Path) -> dict[str, str]:
    """What every instance of one test or bench shares: the database, the key, static files (DEBUG off)."""
    return {**env, "DEBUG": "0", "STATIC_ROOT": str(static_root), "ALLOWED_HOSTS": "127.0.0.1,localhost"}


def collectstatic(env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )


def environ_without_test_settings() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("NOTEBOOKS_TEST_REPORT", "PYTEST_ADDOPTS")}
