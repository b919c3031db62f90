"""The command `make serve` runs the web server with (notebook_site/web_servers.py): granian unless WEB_SERVER says
gunicorn, each told the same settings by the same environment names."""

import pytest

from notebook_site.web_servers import command, server_name


def _option(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


def test_granian_is_the_server_when_none_is_named() -> None:
    args = command({})
    assert args[1:3] == ["-m", "granian"] and _option(args, "--interface") == "wsgi"
    assert (_option(args, "--host"), _option(args, "--port")) == ("127.0.0.1", "8000")
    assert args[-1] == "notebook_site.wsgi:application"
    assert "--respawn-failed-workers" in args  # a worker that dies is started again, as gunicorn's master does


def test_granian_takes_the_address_processes_and_threads_gunicorn_would() -> None:
    args = command({"BIND": "0.0.0.0:9000", "WEB_CONCURRENCY": "3", "WEB_THREADS": "5", "PORT": "1"})
    assert (_option(args, "--host"), _option(args, "--port")) == ("0.0.0.0", "9000")  # BIND wins over PORT
    assert (_option(args, "--workers"), _option(args, "--blocking-threads")) == ("3", "5")
    assert _option(command({"BIND": "unix:/run/notebooks.sock"}), "--uds") == "/run/notebooks.sock"
    assert _option(command({"BIND": "[::1]:8001"}), "--host") == "::1"


def test_granian_logs_each_request_with_its_time_unless_the_log_is_off() -> None:
    assert "%(dt_ms).1fms" in _option(command({}), "--access-log-fmt")
    assert "--no-access-log" in command({"ACCESS_LOG": "off"})
    with pytest.raises(SystemExit, match="a file is gunicorn's"):
        command({"ACCESS_LOG": "/var/log/notebooks.log"})


def test_gunicorn_is_run_with_the_project_config_and_the_app_asked_for() -> None:
    args = command({"WEB_SERVER": "gunicorn"}, "bench.serve_floor:application")
    assert args[1:3] == ["-m", "gunicorn"] and _option(args, "--config").endswith("gunicorn.conf.py")
    assert args[-1] == "bench.serve_floor:application"


def test_an_unknown_server_is_refused_with_the_choices() -> None:
    with pytest.raises(SystemExit, match="WEB_SERVER='uwsgi': one of granian, gunicorn"):
        server_name({"WEB_SERVER": "uwsgi"})


def test_run_as_a_module_it_becomes_the_server_it_names() -> None:
    import os
    import subprocess
    import sys
    import time

    import psutil

    from notebook_site.web_servers import ROOT
    from tests.web_instances import free_port

    env = {**os.environ, "PORT": str(free_port()), "WEB_CONCURRENCY": "1", "ACCESS_LOG": "off"}
    proc = subprocess.Popen([sys.executable, "-m", "notebook_site.web_servers"], cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 20
        while "granian" not in " ".join(psutil.Process(proc.pid).cmdline()):  # the same process, now the server
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    refused = subprocess.run(
        [sys.executable, "-m", "notebook_site.web_servers"],
        cwd=ROOT,
        env={**env, "WEB_SERVER": "uwsgi"},
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 1 and "one of granian, gunicorn" in refused.stderr


def test_the_server_will_not_serve_a_database_a_newer_release_migrated(tmp_path):
    import os
    import sqlite3
    import subprocess
    import sys

    from notebook_site.web_servers import ROOT

    newer = sqlite3.connect(tmp_path / "db.sqlite3")
    newer.execute("CREATE TABLE django_migrations (id INTEGER PRIMARY KEY, app TEXT, name TEXT, applied DATETIME)")
    newer.execute("INSERT INTO django_migrations (app, name, applied) VALUES ('notebooks', '0999_next', '2027-01-01')")
    newer.commit()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "PORT": "0", "ACCESS_LOG": "off"}
    refused = subprocess.run(
        [sys.executable, "-m", "notebook_site.web_servers"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert refused.returncode == 1 and "notebooks.E004" in refused.stderr and "0999_next" in refused.stderr
    assert "not serving" in refused.stderr
