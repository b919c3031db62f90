"""Scratch databases for tests that need other processes: a temporary SQLite file, or a PostgreSQL database of
their own on the suite's server. Each is a copy of one template migrated per session; PostgreSQL ones are dropped
at the end. The vendor is the suite's (DATABASE_URL), so `make test` on PostgreSQL runs these on PostgreSQL."""

import itertools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import dj_database_url
import pytest

ROOT = Path(__file__).resolve().parent.parent
_counter = itertools.count(1)


def owner_tag() -> str:
    """Who makes a scratch name: the xdist worker (gw0, gw1, …; main without xdist) and its pid, so none collide."""
    return f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}_{os.getpid()}"


def act_as_app_role(prefix: str) -> None:
    """For the rest of the test's transaction, act as a new role (rolled back with it) with the grants least privilege
    gives the app (docs/POSTGRES.md). PostgreSQL only."""
    from django.db import connection

    from notebooks.log.store import privileges

    role = f"{prefix}_{owner_tag()}"
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE ROLE {role} NOLOGIN")
    privileges.apply(role)
    with connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL ROLE {role}")


def suite_vendor() -> str:
    url = os.environ.get("DATABASE_URL", "")
    return "postgresql" if url.startswith(("postgres://", "postgresql://")) else "sqlite"


def pg_admin() -> dict[str, Any]:
    cfg = dj_database_url.parse(os.environ["DATABASE_URL"])
    return {
        "host": cfg["HOST"] or "127.0.0.1",
        "port": cfg["PORT"] or 5432,
        "user": cfg["USER"] or "postgres",
        "password": cfg["PASSWORD"] or None,
    }


def pg_url(name: str, user: str | None = None) -> str:
    a = pg_admin()
    auth = user or a["user"]
    if a["password"] and user is None:
        auth += f":{a['password']}"
    return f"postgres://{auth}@{a['host']}:{a['port']}/{name}"


def pg_execute(*statements: str, dbname: str = "postgres") -> list[tuple]:
    import psycopg

    a = pg_admin()
    with psycopg.connect(dbname=dbname, autocommit=True, **{k: v for k, v in a.items() if v is not None}) as conn:
        result: list[tuple] = []
        for sql in statements:
            cur = conn.execute(sql)
            if cur.description:
                result = cur.fetchall()
        return result


def django_env(url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NOTEBOOKS_TEST_REPORT", "PYTEST_ADDOPTS")}
    env.update(
        DATABASE_URL=url,
        DJANGO_SETTINGS_MODULE="notebook_site.settings",
        SECRET_KEY="scratch-database-key-for-tests-only-0123456789abcdefghijklmnop",
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


class Commands:
    """`manage.py` commands against one database, sent to one process (tests/commands.py): a command costs what
    it does, not a process start (seconds on a busy machine)."""

    def __init__(self, env: dict[str, str], stderr: IO[str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.commands"],
            env=env,
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
        self._answer()  # Django is set up

    def _answer(self) -> dict:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, f"the command process exited {self.process.poll()} (its errors went to {self.process.stderr})"
        return json.loads(line)

    def run(self, *args: str) -> str:
        """What `manage.py ARGS` prints; fails the test with its output if it fails."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps([str(a) for a in args]) + "\n")
        self.process.stdin.flush()
        done = self._answer()
        assert done["ok"], f"manage.py {' '.join(args)} failed:\n{done['out']}\n{done['err']}"
        return done["out"]

    def close(self) -> None:
        if self.process.stdin:
            with suppress(BrokenPipeError):  # it died already: its answer said so
                self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@dataclass
class Scratch:
    vendor: str
    url: str
    path: Path | None = None  # SQLite file
    name: str | None = None  # PostgreSQL database
    procs: list[subprocess.Popen] = field(default_factory=list)

    def env(self, **extra: str) -> dict[str, str]:
        return django_env(self.url, **extra)

    def run(self, *args: str, timeout: float = 180, check: bool = True, **kw: Any) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [sys.executable, *args],
            cwd=ROOT,
            env=kw.pop("env", None) or self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
            **kw,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"{args} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
        return done

    def manage(self, *args: str, **kw: Any) -> subprocess.CompletedProcess:
        return self.run("manage.py", *args, **kw)

    @contextmanager
    def commands(self) -> Iterator[Commands]:
        """One process for many manage.py commands in a row (tests/commands.py)."""
        commands = Commands(self.env())
        try:
            yield commands
        finally:
            commands.close()

    def stress(self, *args: str, **kw: Any) -> subprocess.CompletedProcess:
        return self.run("-m", "tests.stress", *args, **kw)

    def start(self, *args: str, **kw: Any) -> subprocess.Popen:
        proc = subprocess.Popen(
            [sys.executable, *args],
            cwd=ROOT,
            env=kw.pop("env", None) or self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            **kw,
        )
        self.procs.append(proc)
        return proc

    def settle(self) -> None:
        """On PostgreSQL, wait until the server has ended the sessions of killed clients."""
        if self.vendor != "postgresql":
            return
        import time

        for _ in range(200):
            busy = pg_execute(f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{self.name}'")[0][0]
            if not busy:
                return
            time.sleep(0.05)


class Templates:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.vendor = suite_vendor()
        self.template: Scratch | None = None
        self.made: list[Scratch] = []

    def _migrate(self, scratch: Scratch) -> None:
        scratch.manage("migrate", "--no-input", "-v", "0")
        scratch.manage("notebook", "editor", "dad")

    def new(self) -> Scratch:
        k = next(_counter)
        if self.vendor == "sqlite":
            if self.template is None:
                self.template = Scratch("sqlite", "", path=self.base / "template.sqlite3")
                self.template.url = f"sqlite:///{self.template.path}"
                self._migrate(self.template)
            path = self.base / f"scratch{k}.sqlite3"
            shutil.copyfile(self.template.path, path)
            scratch = Scratch("sqlite", f"sqlite:///{path}", path=path)
        else:
            if self.template is None:
                name = f"reliability_tpl_{owner_tag()}"
                pg_execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", f"CREATE DATABASE {name}")
                self.template = Scratch("postgresql", pg_url(name), name=name)
                self._migrate(self.template)
            name = f"reliability_{owner_tag()}_{k}"
            pg_execute(
                f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", f"CREATE DATABASE {name} TEMPLATE {self.template.name}"
            )
            scratch = Scratch("postgresql", pg_url(name), name=name)
        self.made.append(scratch)
        return scratch

    def empty(self) -> Scratch:
        """A database with nothing in it (a restore target)."""
        k = next(_counter)
        if self.vendor == "sqlite":
            path = self.base / f"empty{k}.sqlite3"
            scratch = Scratch("sqlite", f"sqlite:///{path}", path=path)
        else:
            name = f"reliability_{owner_tag()}_{k}"
            pg_execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", f"CREATE DATABASE {name}")
            scratch = Scratch("postgresql", pg_url(name), name=name)
        self.made.append(scratch)
        return scratch

    def cleanup(self) -> None:
        for scratch in [*self.made, *([self.template] if self.template else [])]:
            for proc in scratch.procs:
                if proc.poll() is None:
                    proc.kill()
                proc.wait()
            if scratch.vendor == "postgresql":
                pg_execute(f"DROP DATABASE IF EXISTS {scratch.name} WITH (FORCE)")


@pytest.fixture(scope="session")
def scratch_templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Templates]:
    templates = Templates(tmp_path_factory.mktemp("scratch"))
    yield templates
    templates.cleanup()


@pytest.fixture
def scratch_db(scratch_templates: Templates) -> Callable[[], Scratch]:
    """A function giving fresh migrated databases (with the editor 'dad'), of the suite's vendor."""
    return scratch_templates.new


def heavy() -> bool:
    """`make reliability` sets NOTEBOOKS_RELIABILITY=heavy: the same tests, with bigger numbers."""
    return os.environ.get("NOTEBOOKS_RELIABILITY") == "heavy"


def scale(small: int, big: int) -> int:
    return big if heavy() else small


def record(test: str, **figures: Any) -> None:
    """Append a test's figures to NOTEBOOKS_RELIABILITY_FIGURES (docs/RELIABILITY.md is written from them)."""
    target = os.environ.get("NOTEBOOKS_RELIABILITY_FIGURES")
    if not target:
        return
    import json

    Path(target).parent.mkdir(parents=True, exist_ok=True)
    with Path(target).open("a", encoding="utf-8") as f:
        f.write(json.dumps({"test": test, "vendor": suite_vendor(), **figures}) + "\n")


def serve_once(scratch: Scratch, secret: str | None = None) -> dict:
    """Start the server on the scratch database, read the notebooks through the API once (with `secret`, a token
    already issued, or a new one), stop it; the answer."""
    import json
    import socket
    import time
    import urllib.error
    import urllib.request

    secret = secret or scratch.manage("notebook", "token", "probe").stdout.strip().splitlines()[-1]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = scratch.start("manage.py", "runserver", f"127.0.0.1:{port}", "--noreload")
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/notebooks", headers={"Authorization": f"Bearer {secret}"}
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise AssertionError(f"the server exited {proc.returncode}: {proc.stderr.read()}")
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    return json.loads(response.read())
            except urllib.error.HTTPError as exc:
                raise AssertionError(f"the server answered {exc.code}: {exc.read()[:500]!r}") from None
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        raise AssertionError("the server did not answer within 60 s")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
