"""`make soak`: the whole system at once, with faults injected, then checked: on PostgreSQL, then on SQLite with a
disk that fills up.

A database of its own (dropped at the end), the web server `make serve` runs (3 worker processes) on a free port, the
vault watcher, and for the part's seconds: Dad through the card (sign-in, CSRF, plain POST forms, redactions), 4 agents
through the API (adds, edits, retires, merges, sessions taken, checkpointed and landed), one MCP client over stdio, an
outside writer appending rows to a vault file (every other row under the vault's lock), readers of live and frozen views
(tests/soak_actors.py). Faults on PostgreSQL: backends terminated, a web worker killed with SIGKILL, git failing during
a land (a `git` wrapper on the server's and watcher's PATH fails while a flag file exists), the vault directory and its
files made immutable (`chattr +i`: root ignores chmod). On SQLite (its database on a small tmpfs mounted for the run): a
web worker killed, and twice the tmpfs filled to the last byte for a while.

SOAK_SECONDS (default 600) is the whole run: the SQLite part takes a fifth of it (at least 60 s), PostgreSQL the
rest; SOAK_DB=postgresql or SOAK_DB=sqlite runs one part for all of it.

Every write carries a unique token in its reason (`why`); at the end each write answered 2xx (or 302 from the
card) must have exactly its rows in the log (in a session: its proposals, each landed at most once, exactly once
when the session landed; tests/soak_checks.one_write), each refused write none. Exit status 1 if anything is lost,
doubled or unverified. Run as `python -m tests.soak` (the Makefile's `make soak`).
"""

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from notebook_site import web_servers
from tests.soak_actors import AGENT_BOOKS, AGENTS, OUTSIDE_BOOKS, SIGNING_WRITERS, Actors, Write, now
from tests.soak_checks import Checks

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PG = {"host": os.environ.get("PGHOST", "127.0.0.1"), "port": int(os.environ.get("PGPORT", "5432"))}
PG["user"] = os.environ.get("PGUSER", "postgres")
GIT_WRAPPER = """#!/bin/sh
# Fails every commit-building git command while the flag file exists (the soak's "git fails during a land").
if [ -e "{flag}" ]; then
  for a in "$@"; do
    case "$a" in commit-tree|update-ref|mktree|hash-object) echo "soak: injected git failure" >&2; exit 1;; esac
  done
fi
exec {git} "$@"
"""


@dataclass
class Fault:
    kind: str
    start: float
    end: float = 0.0
    recovered: float | None = None
    detail: str = ""


class Soak(Actors, Checks):
    def __init__(self, seconds: float, engine: str = "postgresql") -> None:
        self.seconds = seconds
        self.engine = engine
        self.root, self.python = ROOT, PY
        self.tmp = Path(tempfile.mkdtemp(prefix="notebooks-soak-"))
        self.db = f"notebooks_soak_{os.getpid()}"
        self.dbfs = self.tmp / "dbfs"  # SQLite: a small tmpfs of its own, filled up during the run
        self.mounted = False
        self.pg_server = PG
        self.report_text = ""
        self.vault = self.tmp / "vault"
        self.flag = self.tmp / "git-fails"
        self.writes: list[Write] = []
        self.faults: list[Fault] = []
        self.frozen: list[dict[str, Any]] = []
        self.reads = {"live": 0, "frozen": 0, "card": 0, "mcp": 0, "conditional": 0, "unchanged": 0}
        self.stale_304: list[str] = []  # conditional reads answered 304 after a write acknowledged before them
        self.mcp_failure = ""
        self.read_5xx: list[tuple[float, int]] = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.procs: list[subprocess.Popen] = []
        self.port = 0
        self.tokens: dict[str, str] = {}
        self.writer_keys: dict[str, tuple[str, str]] = {}  # outside writer -> (key id, secret)
        self.problems: list[str] = []

    # ----- setup --------------------------------------------------------------------------------------------

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("NOTEBOOKS_TEST_REPORT", "PYTEST_ADDOPTS")}
        if self.engine == "sqlite":
            url = f"sqlite:///{self.dbfs / 'notebooks.sqlite3'}"
        else:
            url = f"postgres://{PG['user']}@{PG['host']}:{PG['port']}/{self.db}"
        env.update(
            DATABASE_URL=url,
            DJANGO_SETTINGS_MODULE="notebook_site.settings",
            SECRET_KEY="soak-key-for-a-scratch-database-only-0123456789abcdefghijklmnop",
            PYTHONPATH=str(ROOT),
            PYTHONUNBUFFERED="1",
            NOTEBOOK_VAULT=str(self.vault),
            PATH=f"{self.tmp / 'bin'}:{os.environ.get('PATH', '')}",
            ALLOWED_HOSTS="127.0.0.1,localhost",
            SIGNIN_MAX_FAILURES="1000",
        )
        return env

    def manage(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [PY, "manage.py", *args], cwd=ROOT, env=self.env(), capture_output=True, text=True, timeout=300
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} exited {done.returncode}: {done.stderr[-2000:]}")
        return done

    def pg(self, sql: str, dbname: str = "postgres") -> list[tuple]:
        with psycopg.connect(dbname=dbname, autocommit=True, **PG) as conn:
            cur = conn.execute(sql)
            return cur.fetchall() if cur.description else []

    def setup(self) -> None:
        (self.tmp / "bin").mkdir()
        wrapper = self.tmp / "bin" / "git"
        wrapper.write_text(GIT_WRAPPER.format(flag=self.flag, git=shutil.which("git") or "/usr/bin/git"))
        wrapper.chmod(0o755)
        if self.engine == "sqlite":
            self.dbfs.mkdir()
            size = os.environ.get("SOAK_SQLITE_MB", "32")
            mount = ["mount", "-t", "tmpfs", "-o", f"size={size}m", "tmpfs", str(self.dbfs)]
            done = subprocess.run(mount, capture_output=True, text=True)
            self.mounted = done.returncode == 0
            if not self.mounted:  # not root: the run goes on, on the plain disk, and fails for want of the fault
                self.problems.append(f"no tmpfs for the disk-full faults (run as root): {done.stderr.strip()}")
        else:
            self.pg(f"DROP DATABASE IF EXISTS {self.db} WITH (FORCE)")
            self.pg(f"CREATE DATABASE {self.db}")
        self.manage("migrate", "--no-input", "-v", "0")
        self.manage("collectstatic", "--no-input", "-v", "0")  # DEBUG is off: the manifest storage needs it
        self.manage("notebook", "first-editor", "--password-file", str(self.tmp / "password"))
        self.password = (self.tmp / "password").read_text().strip().split()[-1]
        subprocess.run(
            [PY, "-m", "tests.stress", "setup", "--notebooks", ",".join(AGENT_BOOKS)],
            cwd=ROOT,
            env=self.env(),
            check=True,
            timeout=120,
        )
        for name in [*AGENTS, "reader", "lander"]:
            self.tokens[name] = self.manage("notebook", "token", name).stdout.strip().splitlines()[-1]
        for who in SIGNING_WRITERS:  # proven: its rows are its own, not the outside agent's
            issued = self.manage("notebook", "key", "issue", "--actor", who).stdout.strip().splitlines()
            self.writer_keys[who] = (issued[0].split()[2], issued[-1])
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        # The server `make serve` runs, 3 worker processes: one killed at a time leaves the others answering.
        server = {"BIND": f"127.0.0.1:{self.port}", "WEB_CONCURRENCY": "3", "WEB_THREADS": "4", "ACCESS_LOG": "off"}
        self.server = self.start(*web_servers.command({**self.env(), **server}), env=server)
        self.vault.mkdir()
        self.watcher = self.start(PY, "manage.py", "notebook", "vault", "watch", "--interval", "1")
        deadline = now() + 60
        while now() < deadline:
            try:
                self.api("GET", "/api/notebooks", "reader")
                return
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.3)
        raise RuntimeError("the server did not answer within 60 s")

    def start(self, *args: Any, env: dict[str, str] | None = None) -> subprocess.Popen:
        log = (self.tmp / f"proc{len(self.procs)}.log").open("w")
        env = {**self.env(), **(env or {})}
        proc = subprocess.Popen([str(a) for a in args], cwd=ROOT, env=env, stdout=log, stderr=log)
        self.procs.append(proc)
        return proc

    # ----- HTTP ------------------------------------------------------------------------------------------------

    def api(self, method: str, path: str, who: str, body: Any = None, timeout: float = 30) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.tokens[who]}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            try:
                return exc.code, json.loads(raw)
            except ValueError:
                return exc.code, raw[:300]

    def record(self, w: Write) -> Write:
        with self.lock:
            self.writes.append(w)
        return w

    def send(self, w: Write, method: str, path: str, body: Any, rows: int) -> Write:
        self.record(w)
        try:
            w.status, answer = self.api(method, path, w.who, body)
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            w.status, answer = 0, None
        w.answered, w.answer = now(), answer
        if 200 <= w.status < 300 and isinstance(answer, dict):
            w.seq, w.n = answer.get("seq"), answer.get("n")
            w.seqs = answer.get("seqs") or ([w.seq] if w.seq else [])
            w.rows = rows
        return w

    def live(self, title: str) -> list[dict[str, Any]]:
        try:
            status, answer = self.api("GET", f"/api/notebooks/{title}/lines?limit=1000", "reader")
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            return []  # a worker killed under the read: the actor goes on, as its writes do
        return answer["lines"] if status == 200 else []

    # ----- faults ----------------------------------------------------------------------------------------------

    def faults_loop(self, t0: float) -> None:
        plan = [
            (0.12, self.kill_backends),
            (0.25, self.kill_worker),
            (0.38, self.git_fails),
            (0.52, self.kill_backends),
            (0.64, self.vault_unwritable),
            (0.76, self.kill_worker),
            (0.86, self.kill_backends),
        ]
        if self.engine == "sqlite":
            plan = [(0.15, self.kill_worker)]
            plan += [(0.3, self.disk_full), (0.65, self.disk_full)] if self.mounted else []
        for at, fault in plan:
            if self.stop.wait(max(0.0, t0 + at * self.seconds - now())):
                return
            fault()

    def add_fault(self, kind: str, detail: str = "") -> Fault:
        f = Fault(kind, now(), detail=detail)
        self.faults.append(f)
        return f

    def kill_backends(self) -> None:
        f = self.add_fault("pg_terminate_backend")
        rows = self.pg(
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{self.db}' "
            "AND pid <> pg_backend_pid()"
        )
        f.end, f.detail = now(), f"{len(rows)} backends"

    def kill_worker(self) -> None:
        found = subprocess.run(["pgrep", "-P", str(self.server.pid)], capture_output=True, text=True).stdout.split()
        if not found:
            return
        pid = int(random.choice(found))
        f = self.add_fault("web worker SIGKILL", f"pid {pid}")
        os.kill(pid, signal.SIGKILL)
        f.end = now()

    def git_fails(self) -> None:
        """Git fails for 8 s; meanwhile a session is taken before and landed during the failure (refused whole, 503),
        then landed again once git works."""
        book = AGENT_BOOKS[0]
        status, answer = self.api("POST", "/api/sessions", "lander", {"notebook": book, "plan": "soak land"})
        sid = answer.get("id") if status == 201 else None
        f = self.add_fault("git fails during a land")
        self.flag.touch()
        if sid:
            token = f"soak lander {random.random():.12f}"
            w = Write("add", "lander", token, now(), book)
            self.send(w, "POST", f"/api/notebooks/{book}/lines", {"text": token, "source": "seen", "why": token}, 1)
            land = self.send(
                Write("land", "lander", "land lander", now(), book),
                "POST",
                f"/api/sessions/{sid}/land",
                {"summary": "soak: landed while git fails"},
                0,
            )
            w.land = land
            f.detail = f"session #{sid} on {book}: add answered {w.status}, land answered {land.status}"
        else:
            f.detail = f"no session could be taken ({status}): git failed under the watcher only"
        self.stop.wait(8)
        self.flag.unlink()
        f.end = now()
        if sid and land.status != 200:  # a land refused while git failed leaves the session open: it lands now
            again = self.send(
                Write("land", "lander", "land lander again", now(), book),
                "POST",
                f"/api/sessions/{sid}/land",
                {"summary": "soak: landed once git works again"},
                0,
            )
            w.land = again
            f.detail += f", landed again after it: {again.status}"
            if again.status != 200:
                said = again.answer.get("error", {}) if isinstance(again.answer, dict) else {}
                f.detail += f" ({said.get('code')}: {str(said.get('message', again.answer))[:300]})"
                self.api("POST", f"/api/sessions/{sid}/abandon", "lander", {"why": "soak: the land was refused"})

    def vault_unwritable(self) -> None:
        targets = [self.vault, *self.vault.glob("*.jsonl")]
        f = self.add_fault("vault directory unwritable", "chattr +i on the directory and its files")
        done = subprocess.run(["chattr", "+i", *map(str, targets)], capture_output=True, text=True)
        if done.returncode != 0:
            f.detail = f"could not inject: {done.stderr.strip()}"
        self.stop.wait(6)
        subprocess.run(["chattr", "-i", *map(str, targets)], capture_output=True)
        f.end = now()

    def disk_full(self) -> None:
        """The tmpfs holding the SQLite database filled to its last byte for 12 s, then freed."""
        f = self.add_fault("SQLite disk full")
        filler = self.dbfs / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        filled = 0
        try:
            for chunk in (1 << 20, 1 << 12, 1):  # down to the last byte
                while True:
                    try:
                        filled += os.write(fd, b"\0" * chunk)
                    except OSError:
                        break
        finally:
            os.close(fd)
        f.detail = f"{filled / 1e6:.1f} MB written to fill it"
        self.stop.wait(12)
        filler.unlink()
        f.end = now()

    # ----- the run -----------------------------------------------------------------------------------------------

    def run(self) -> int:
        self.setup()
        t0 = now()
        threads = [threading.Thread(target=self.agent, args=(n, k)) for k, n in enumerate(AGENTS)]
        threads += [threading.Thread(target=self.dad, args=(10,))]
        threads += [threading.Thread(target=self.outside, args=(11 + k, t)) for k, t in enumerate(OUTSIDE_BOOKS)]
        threads += [threading.Thread(target=self.reader, args=(20 + k,)) for k in range(2)]
        threads += [threading.Thread(target=self.conditional_reader, args=(25,))]
        threads += [threading.Thread(target=self.mcp_client, args=(30,))]
        threads += [threading.Thread(target=self.faults_loop, args=(t0,))]
        for t in threads:
            t.start()
        self.stop.wait(self.seconds)
        self.stop.set()
        for t in threads:
            t.join(60)
        self.elapsed = now() - t0
        chattr_clear = [self.vault, *self.vault.glob("*.jsonl")]
        subprocess.run(["chattr", "-i", *map(str, chattr_clear)], capture_output=True)
        self.watcher.send_signal(signal.SIGTERM)
        self.watcher.wait(30)
        return self.check()

    def cleanup(self) -> None:
        subprocess.run(["chattr", "-R", "-i", str(self.vault)], capture_output=True)
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        if self.engine == "sqlite":
            if self.mounted:
                subprocess.run(["umount", str(self.dbfs)], check=False)
        else:
            try:
                self.pg(f"DROP DATABASE IF EXISTS {self.db} WITH (FORCE)")
            except psycopg.Error as exc:
                print(f"could not drop {self.db}: {exc}", file=sys.stderr)
        if self.problems:  # a 500's traceback is in the server's log: kept beside the report, whatever SOAK_KEEP says
            kept = ROOT / "var" / f"soak-logs-{self.engine}-{int(time.time())}"
            kept.mkdir(parents=True, exist_ok=True)
            for log in self.tmp.glob("proc*.log"):
                shutil.copy(log, kept / log.name)
            print(f"the processes' logs of this part, which found problems: {kept}")
        if os.environ.get("SOAK_KEEP"):
            print(f"kept {self.tmp}")
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


def parts() -> list[tuple[str, float]]:
    """(engine, seconds) for each part of the run: SOAK_DB picks one; by default PostgreSQL, then SQLite."""
    total = float(os.environ.get("SOAK_SECONDS", "600"))
    engine = os.environ.get("SOAK_DB", "both")
    if engine in ("postgresql", "sqlite"):
        return [(engine, total)]
    sqlite = max(60.0, total / 5)
    return [("postgresql", max(60.0, total - sqlite)), ("sqlite", sqlite)]


def main() -> None:
    code, reports = 0, []
    for engine, seconds in parts():
        soak = Soak(seconds, engine)
        try:
            code |= soak.run()
        finally:
            soak.cleanup()
        reports.append(soak.report_text)
        print(flush=True)
    (ROOT / "var").mkdir(exist_ok=True)
    (ROOT / "var" / "soak-report.txt").write_text("\n\n".join(reports))
    sys.exit(code)


if __name__ == "__main__":
    main()
