"""`python -m notebook_site.serve` (the end of `make serve`): the web server (granian, or gunicorn with
WEB_SERVER=gunicorn) and the vault watcher together, stopped together, and the server's access log gives each
request's time."""

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from tests.databases import ROOT
from tests.web_instances import free_port


def _wait_for(check, what: str, timeout: float = 60) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


@pytest.fixture(params=["granian", "gunicorn"])
def serve(request, scratch_db, tmp_path):  # noqa: ANN001, ANN201
    db = scratch_db()
    port = free_port()
    log = tmp_path / "serve.log"
    env = db.env(
        BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="1",
        WEB_SERVER=request.param,
        NOTEBOOK_VAULT=str(tmp_path / "vault"),
        NOTEBOOK_VAULT_INTERVAL="0.2",
        STATIC_ROOT=str(tmp_path / "static"),
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "notebook_site.serve"],
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its children can be found and ended whatever happens
    )
    try:
        _wait_for(lambda: _answers(f"http://127.0.0.1:{port}/healthz"), "the server to answer")
        _wait_for(lambda: "sweeping" in log.read_text(), "the watcher to sweep")
        yield proc, port, log, request.param
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _children(proc: subprocess.Popen) -> list[psutil.Process]:
    return psutil.Process(proc.pid).children(recursive=True)


def _command(child: psutil.Process) -> str:
    """A child's command line; empty for one that ended meanwhile (the watcher's git runs come and go)."""
    try:
        return " ".join(child.cmdline())
    except psutil.NoSuchProcess:
        return ""


def test_serve_runs_the_server_and_the_watcher_and_sigterm_stops_both(serve) -> None:  # noqa: ANN001
    proc, port, log, server = serve
    children = _children(proc)
    commands = [_command(c) for c in children]
    assert any(f"-m {server} " in c for c in commands) and any("vault watch" in c for c in commands), commands
    urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5).read()
    _wait_for(lambda: '"GET /healthz HTTP/1.1" 200' in log.read_text(), "the access log line")
    line = next(x for x in log.read_text().splitlines() if '"GET /healthz HTTP/1.1" 200' in x)
    assert line.split('" 200 ')[1].split()[1].endswith("ms")  # the request's time
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    gone, alive = psutil.wait_procs(children, timeout=10)
    assert alive == []
    assert "stopped" in log.read_text()  # the watcher ended its loop, not killed


def test_serve_stops_the_server_and_fails_when_the_watcher_dies(serve) -> None:  # noqa: ANN001
    proc, port, log, _ = serve
    children = _children(proc)
    watcher = next(c for c in children if "vault watch" in _command(c))
    watcher.kill()
    assert proc.wait(timeout=30) != 0  # a supervisor restarts the pair
    gone, alive = psutil.wait_procs(children, timeout=10)
    assert alive == []
    assert not _answers(f"http://127.0.0.1:{port}/healthz")
    assert "stopping the rest" in Path(log).read_text()
