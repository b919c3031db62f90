"""`make soak`: the whole system at once on PostgreSQL, with faults injected, then checked.

A database of its own (dropped at the end), gunicorn with 3 workers on a free port, the vault watcher, and for
SOAK_SECONDS (default 600): Dad through the card (sign-in, CSRF, plain POST forms), 4 agents through the API
(adds, edits, retires, merges, sessions taken and landed), an outside writer appending rows to a vault file,
readers of live and frozen views. Faults: PostgreSQL backends terminated, a web worker killed with SIGKILL, git
failing during a land (a `git` wrapper on the server's and watcher's PATH fails while a flag file exists), the
vault directory and its files made immutable (`chattr +i`: root ignores chmod).

Every write carries a unique token in its reason (`why`); at the end each write answered 2xx (or 302 from the
card) must have exactly its rows in the log, each refused write none. Exit status 1 if anything is lost, doubled
or unverified. Run as `python -m tests.soak` (the Makefile's `make soak`).
"""

import http.cookiejar
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
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PG = {"host": os.environ.get("PGHOST", "127.0.0.1"), "port": int(os.environ.get("PGPORT", "5432"))}
PG["user"] = os.environ.get("PGUSER", "postgres")
AGENT_BOOKS = ["zelda", "mario", "kirby"]
OUTSIDE_BOOK = "harness-feed"  # only the outside writer writes here: it numbers its own lines
AGENTS = ["pippa", "reflector", "scout", "tidier"]
GIT_WRAPPER = """#!/bin/sh
# Fails every commit-building git command while the flag file exists (the soak's "git fails during a land").
if [ -e "{flag}" ]; then
  for a in "$@"; do
    case "$a" in commit-tree|update-ref|mktree|hash-object) echo "soak: injected git failure" >&2; exit 1;; esac
  done
fi
exec {git} "$@"
"""


def now() -> float:
    return time.time()


@dataclass
class Write:
    kind: str  # add, edit, retire, merge, card-add, card-edit, card-retire, card-merge, take, land, outside-add
    who: str
    token: str  # the unique words of its reason
    sent: float
    notebook: str
    status: int = 0  # 0: no answer (connection reset or timeout)
    answered: float = 0.0
    seq: int | None = None
    seqs: list[int] = field(default_factory=list)
    n: int | None = None
    rows: int = 0  # rows it should have written when acknowledged
    answer: Any = None


@dataclass
class Fault:
    kind: str
    start: float
    end: float = 0.0
    recovered: float | None = None
    detail: str = ""


class Soak:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.tmp = Path(tempfile.mkdtemp(prefix="notebooks-soak-"))
        self.db = f"notebooks_soak_{os.getpid()}"
        self.vault = self.tmp / "vault"
        self.flag = self.tmp / "git-fails"
        self.writes: list[Write] = []
        self.faults: list[Fault] = []
        self.frozen: list[dict[str, Any]] = []
        self.reads = {"live": 0, "frozen": 0, "card": 0}
        self.read_5xx: list[tuple[float, int]] = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.procs: list[subprocess.Popen] = []
        self.port = 0
        self.tokens: dict[str, str] = {}
        self.problems: list[str] = []

    # ----- setup --------------------------------------------------------------------------------------------

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("NOTEBOOKS_TEST_REPORT", "PYTEST_ADDOPTS")}
        env.update(
            DATABASE_URL=f"postgres://{PG['user']}@{PG['host']}:{PG['port']}/{self.db}",
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
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.server = self.start(
            PY,
            "-m",
            "gunicorn",
            "notebook_site.wsgi",
            "--workers",
            "3",
            "--bind",
            f"127.0.0.1:{self.port}",
            "--timeout",
            "60",
            "--graceful-timeout",
            "5",
        )
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

    def start(self, *args: Any) -> subprocess.Popen:
        log = (self.tmp / f"proc{len(self.procs)}.log").open("w")
        proc = subprocess.Popen([str(a) for a in args], cwd=ROOT, env=self.env(), stdout=log, stderr=log)
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
        status, answer = self.api("GET", f"/api/notebooks/{title}/lines", "reader")
        return answer["lines"] if status == 200 else []

    # ----- the actors ------------------------------------------------------------------------------------------

    def agent(self, name: str, seed: int) -> None:
        rng = random.Random(seed)
        i = 0
        while not self.stop.is_set():
            i += 1
            title = rng.choice(AGENT_BOOKS)
            if i % 25 == 0:
                self.session(name, title, rng, i)
                continue
            self.agent_write(name, title, rng, f"soak {name} #{i} {rng.random():.12f}")
            time.sleep(rng.uniform(0.02, 0.15))

    def agent_write(self, name: str, title: str, rng: random.Random, token: str) -> Write | None:
        op = rng.choices(["add", "edit", "retire", "merge"], weights=[50, 25, 15, 10])[0]
        w = Write(op, name, token, now(), title)
        if op == "add":
            source = rng.choice(["seen", "guessed"])
            return self.send(
                w, "POST", f"/api/notebooks/{title}/lines", {"text": token, "source": source, "why": token}, 1
            )
        lines = [x for x in self.live(title) if x["source"] in ("seen", "guessed")]
        if len(lines) < 2:
            return None
        w.sent = now()
        line = rng.choice(lines)
        expected = line["seq"] if rng.random() < 0.5 else None
        if op == "edit":
            body = {"to": token, "why": token, **({"expected": expected} if expected else {})}
            return self.send(w, "POST", f"/api/notebooks/{title}/lines/{line['n']}/edit", body, 1)
        if op == "retire":
            body = {"why": token, **({"expected": expected} if expected else {})}
            return self.send(w, "POST", f"/api/notebooks/{title}/lines/{line['n']}/retire", body, 1)
        pair = [x["n"] for x in rng.sample(lines, 2)]
        body = {"numbers": pair, "text": token, "why": token, "source": "seen"}
        return self.send(w, "POST", f"/api/notebooks/{title}/merge", body, 3)

    def session(self, name: str, title: str, rng: random.Random, i: int) -> None:
        """Take a session, write a few rows in it, land it (abandon it if the land is refused)."""
        take = self.send(
            Write("take", name, f"take {name} #{i}", now(), title),
            "POST",
            "/api/sessions",
            {"notebook": title, "plan": f"soak plan {name} #{i}"},
            0,
        )
        if take.status != 201:
            return
        sid = take.answer["id"]
        for k in range(rng.randint(1, 4)):
            self.agent_write(name, title, rng, f"soak {name} #{i}.{k} {rng.random():.12f}")
            time.sleep(0.05)
        land = self.send(
            Write("land", name, f"land {name} #{i}", now(), title),
            "POST",
            f"/api/sessions/{sid}/land",
            {"summary": f"soak summary {name} #{i}"},
            0,
        )
        if land.status != 200:
            self.api("POST", f"/api/sessions/{sid}/abandon", name, {"why": "soak: the land was refused"})

    def dad(self, seed: int) -> None:
        rng = random.Random(seed)
        jar = http.cookiejar.CookieJar()

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *a: Any, **k: Any) -> None:
                return None

        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect())

        def csrf() -> str:
            return next((c.value for c in jar if c.name == "csrftoken"), "")

        def post(path: str, fields: list[tuple[str, Any]]) -> int:
            data = urllib.parse.urlencode([*fields, ("csrfmiddlewaretoken", csrf())]).encode()
            req = urllib.request.Request(self.base + path, data=data, method="POST")
            try:
                with opener.open(req, timeout=30) as r:
                    return r.status
            except urllib.error.HTTPError as exc:
                return exc.code

        def sign_in() -> bool:
            try:
                with opener.open(self.base + "/accounts/login/", timeout=30) as r:
                    r.read()
                return post("/accounts/login/", [("username", "dad"), ("password", self.password)]) == 302
            except urllib.error.HTTPError as exc:
                if exc.code >= 500:
                    self.read_5xx.append((now(), exc.code))
                return False
            except (urllib.error.URLError, ConnectionError, OSError):
                return False

        while not sign_in():
            if self.stop.wait(0.5):
                return
        i = 0
        while not self.stop.is_set():
            i += 1
            title = rng.choice(AGENT_BOOKS)
            token = f"soak dad #{i} {rng.random():.12f}"
            op = rng.choices(["card-add", "card-edit", "card-retire", "card-merge", "card-read"], [35, 25, 15, 10, 15])[
                0
            ]
            if op == "card-read":
                try:
                    with opener.open(f"{self.base}/notebooks/{title}/", timeout=30) as r:
                        r.read()
                        self.reads["card"] += 1
                except urllib.error.HTTPError as exc:
                    if exc.code >= 500:
                        self.read_5xx.append((now(), exc.code))
                except (urllib.error.URLError, ConnectionError, OSError):
                    pass
                continue
            w = Write(op, "dad", token, now(), title)
            lines = self.live(title)
            base = f"/notebooks/{title}"
            if op == "card-add":
                path, fields, rows = f"{base}/add/", [("words", token), ("reason", token)], 1
            elif len(lines) < 2:
                continue
            elif op == "card-edit":
                line = rng.choice(lines)
                path, rows = f"{base}/lines/{line['n']}/edit/", 1
                fields = [("words", token), ("reason", token), ("expected", line["seq"])]
            elif op == "card-retire":
                line = rng.choice(lines)
                path, fields, rows = (
                    f"{base}/lines/{line['n']}/retire/",
                    [("reason", token), ("expected", line["seq"])],
                    1,
                )
            else:
                pair = rng.sample(lines, 2)
                path, rows = f"{base}/selected/", 3
                fields = [
                    ("n", pair[0]["n"]),
                    ("n", pair[1]["n"]),
                    ("words", token),
                    ("reason", token),
                    ("action", "merge"),
                ]
            w.sent = now()
            self.record(w)
            try:
                w.status = post(path, fields)
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                w.status = 0
            w.answered = now()
            if w.status in (200, 302):
                w.rows = rows
            time.sleep(rng.uniform(0.1, 0.4))

    def outside(self, seed: int) -> None:
        """Appends valid add rows to the vault file of a notebook only it writes, numbering from what the file
        holds (as an older harness does: it reads the file, then appends the next line)."""
        rng = random.Random(seed)
        path = self.vault / f"{OUTSIDE_BOOK}.jsonl"
        i = 0
        while not self.stop.is_set():
            i += 1
            token = f"soak outside #{i} {rng.random():.12f}"
            w = self.record(Write("outside-add", "harness", token, now(), OUTSIDE_BOOK))
            try:
                held = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
                top = max((json.loads(x)["n"] for x in held if x.strip() and json.loads(x)["op"] == "add"), default=0)
                row = {"op": "add", "n": top + 1, "text": token, "source": "seen", "why": token, "at": round(now(), 3)}
                with path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(row) + "\n")
                w.status, w.rows = 200, 1  # 200: appended to the file (no HTTP here)
            except (OSError, ValueError, KeyError):
                w.status = 0
            w.answered = now()
            self.stop.wait(rng.uniform(0.2, 0.6))

    def reader(self, seed: int) -> None:
        rng = random.Random(seed)
        t0 = now()
        while not self.stop.is_set():
            title = rng.choice([*AGENT_BOOKS, OUTSIDE_BOOK])
            frozen = rng.random() < 0.5 and now() - t0 > 10
            until = round(rng.uniform(t0, now() - 5), 3) if frozen else None
            path = f"/api/notebooks/{title}/lines" + (f"?until={until}" if frozen else "")
            try:
                status, answer = self.api("GET", path, "reader")
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                status, answer = 0, None
            if status >= 500:
                self.read_5xx.append((now(), status))
            elif status == 200:
                self.reads["frozen" if frozen else "live"] += 1
                if frozen:
                    self.frozen.append({"title": title, "until": until, "seq": answer["seq"], "lines": answer["lines"]})
            time.sleep(rng.uniform(0.05, 0.2))

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
        """Git fails for 8 s; meanwhile a session is taken before and landed during the failure."""
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
            f.detail = f"session #{sid} on {book}: add answered {w.status}, land answered {land.status}"
        else:
            f.detail = f"no session could be taken ({status}): git failed under the watcher only"
        self.stop.wait(8)
        self.flag.unlink()
        f.end = now()

    def vault_unwritable(self) -> None:
        targets = [self.vault, *self.vault.glob("*.jsonl")]
        f = self.add_fault("vault directory unwritable", "chattr +i on the directory and its files")
        done = subprocess.run(["chattr", "+i", *map(str, targets)], capture_output=True, text=True)
        if done.returncode != 0:
            f.detail = f"could not inject: {done.stderr.strip()}"
        self.stop.wait(6)
        subprocess.run(["chattr", "-i", *map(str, targets)], capture_output=True)
        f.end = now()

    # ----- the run -----------------------------------------------------------------------------------------------

    def run(self) -> int:
        self.setup()
        t0 = now()
        threads = [threading.Thread(target=self.agent, args=(n, k)) for k, n in enumerate(AGENTS)]
        threads += [threading.Thread(target=self.dad, args=(10,)), threading.Thread(target=self.outside, args=(11,))]
        threads += [threading.Thread(target=self.reader, args=(20 + k,)) for k in range(2)]
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

    # ----- the checks --------------------------------------------------------------------------------------------

    def check(self) -> int:
        for f in self.faults:  # recovered: the first write sent after the fault ended that was acknowledged
            after = [
                w.answered for w in self.writes if w.sent >= f.end and 200 <= w.status < 400 and w.kind != "outside-add"
            ]
            f.recovered = min(after) if after else None
        frozen_again = []
        for fr in self.frozen[:: max(1, len(self.frozen) // 200)]:
            status, answer = self.api("GET", f"/api/notebooks/{fr['title']}/lines?until={fr['until']}", "reader")
            frozen_again.append(status == 200 and answer["lines"] == fr["lines"] and answer["seq"] == fr["seq"])
        self.server.send_signal(signal.SIGTERM)
        self.server.wait(30)
        sync = self.manage("notebook", "vault", "sync", check=False)
        if sync.returncode != 0:
            self.problems.append(f"the final sweep exited {sync.returncode}: {sync.stderr.strip()[-500:]}")
        alarms = self.manage("notebook", "vault", "alarms", "--all", "--json", check=False).stdout
        (self.tmp / "alarms.json").write_text(alarms)
        try:
            self.alarms = json.loads(alarms or "[]")
        except ValueError:
            self.alarms = []
        verify = self.manage("notebook", "verify", check=False)
        if verify.returncode != 0:
            self.problems.append(
                f"notebook verify exited {verify.returncode}: {(verify.stdout + verify.stderr)[-800:]}"
            )
        rows: dict[str, list[dict[str, Any]]] = {}
        for title in [*AGENT_BOOKS, OUTSIDE_BOOK]:
            exported = self.manage("notebook", "export", title, check=False).stdout
            rows[title] = [json.loads(x) for x in exported.splitlines() if x.strip()]
            file = self.vault / f"{title}.jsonl"
            if not file.exists() or file.read_text(encoding="utf-8") != exported:
                self.problems.append(f"vault file {title}.jsonl differs from its export")
            seqs = [r["seq"] for r in rows[title]]
            if seqs != list(range(1, len(seqs) + 1)):
                self.problems.append(f"{title}: seqs are not gapless: {seqs[:10]}…")
            added = sorted(r["n"] for r in rows[title] if r["op"] == "add")
            if added != list(range(1, len(added) + 1)):
                self.problems.append(f"{title}: line numbers are doubled or have gaps")
        by_why: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for title, found in rows.items():
            for r in found:
                by_why.setdefault((title, r.get("why") or ""), []).append(r)
        acked = lost = doubled = refused_left = unanswered_landed = 0
        self.outside_rows = {"appended": 0, "imported": 0, "not imported": 0}
        for w in self.writes:
            if w.kind in ("take", "land"):
                continue
            mine = by_why.get((w.notebook, w.token), [])
            ok = 200 <= w.status < 400
            if w.kind == "outside-add":  # no answer to the writer: imported once, or refused with an alarm
                self.outside_rows["appended"] += ok
                self.outside_rows["imported"] += ok and len(mine) == 1
                self.outside_rows["not imported"] += ok and not mine
                doubled += len(mine) > 1
                continue
            if ok:
                acked += 1
                if not mine:
                    lost += 1
                    self.problems.append(f"LOST: {w.kind} by {w.who} ({w.token!r}) answered {w.status}")
                elif len(mine) != w.rows:
                    doubled += 1
                    self.problems.append(f"{w.kind} by {w.who} ({w.token!r}): {len(mine)} rows, not {w.rows}")
                elif w.seqs and sorted(w.seqs) != sorted(r["seq"] for r in mine):
                    self.problems.append(
                        f"{w.kind} by {w.who}: answered seqs {w.seqs}, found {[r['seq'] for r in mine]}"
                    )
            elif w.status == 0:
                unanswered_landed += bool(mine)
            elif mine:
                refused_left += 1
                self.problems.append(f"refused {w.kind} by {w.who} ({w.status}) left {len(mine)} rows")
        if self.outside_rows["not imported"]:
            self.problems.append(
                f"valid rows appended to {OUTSIDE_BOOK}.jsonl and not imported: {self.outside_rows['not imported']}"
            )
        tokens = {(w.notebook, w.token) for w in self.writes}
        strays = [k for k, v in by_why.items() if k not in tokens and k[1].startswith("soak ") and v]
        self.problems += [f"a row nobody wrote: {k}" for k in strays]
        if not all(frozen_again):
            self.problems.append(f"frozen views that read differently afterwards: {frozen_again.count(False)}")
        return self.report(acked, lost, doubled, refused_left, unanswered_landed, frozen_again, rows)

    def in_window(self, t: float) -> bool:
        return any(f.start - 0.5 <= t <= max(f.end, f.recovered or f.end) + 2 for f in self.faults)

    def report(
        self,
        acked: int,
        lost: int,
        doubled: int,
        refused_left: int,
        unanswered_landed: int,
        frozen_again: list[bool],
        rows: dict[str, list],
    ) -> int:
        kinds: dict[str, dict[str, int]] = {}
        for w in self.writes:
            k = kinds.setdefault(w.kind, {})
            label = "no answer" if w.status == 0 else str(w.status)
            k[label] = k.get(label, 0) + 1
        fives = [(w.answered, w.status) for w in self.writes if w.status >= 500] + self.read_5xx
        inside = sum(self.in_window(t) for t, _ in fives)
        outside = len(fives) - inside
        if outside:
            self.problems.append(f"{outside} answers 5xx outside the faults' windows")
        lines = [
            f"soak: {self.elapsed:.0f} s on PostgreSQL ({self.db}), gunicorn 3 workers on :{self.port}",
            "operations (status: count):",
            *[f"  {k}: {', '.join(f'{s} {c}' for s, c in sorted(v.items()))}" for k, v in sorted(kinds.items())],
            f"  reads: live {self.reads['live']}, frozen {self.reads['frozen']}, card pages {self.reads['card']}",
            "faults:",
            *[
                f"  {f.kind} at +{f.start - self.faults[0].start:.0f} s ({f.detail}); lasted {f.end - f.start:.1f} s; "
                + (f"next write acknowledged {f.recovered - f.end:.2f} s after" if f.recovered else "no write after it")
                for f in self.faults
            ],
            f"rows in the log: {', '.join(f'{t} {len(r)}' for t, r in rows.items())}",
            f"writes acknowledged: {acked}; lost: {lost}; duplicated: {doubled}; "
            f"refused that left rows: {refused_left}",
            f"writes with no answer (connection cut): {sum(w.status == 0 for w in self.writes)}, "
            f"of which landed: {unanswered_landed}",
            "outside writer rows: " + ", ".join(f"{k} {v}" for k, v in self.outside_rows.items()),
            f"vault alarms: {len(self.alarms)}"
            + "".join(
                f"\n  {a.get('file', a.get('title', ''))}: {str(a.get('reason', a))[:300]}" for a in self.alarms[:3]
            ),
            f"frozen views read again: {len(frozen_again)}, equal: {sum(frozen_again)}",
            f"5xx: inside the faults' windows {inside}, outside {outside}",
            "verify: " + ("ok" if not any("verify" in p for p in self.problems) else "FAILED"),
        ]
        print("\n".join(lines))
        Path(ROOT / "var").mkdir(exist_ok=True)
        (ROOT / "var" / "soak-report.txt").write_text("\n".join(lines + self.problems) + "\n")
        for p in self.problems[:50]:
            print("PROBLEM:", p)
        return 1 if self.problems else 0

    def cleanup(self) -> None:
        subprocess.run(["chattr", "-R", "-i", str(self.vault)], capture_output=True)
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        try:
            self.pg(f"DROP DATABASE IF EXISTS {self.db} WITH (FORCE)")
        except psycopg.Error as exc:
            print(f"could not drop {self.db}: {exc}", file=sys.stderr)
        if os.environ.get("SOAK_KEEP"):
            print(f"kept {self.tmp}")
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


def main() -> None:
    soak = Soak(float(os.environ.get("SOAK_SECONDS", "600")))
    try:
        code = soak.run()
    finally:
        soak.cleanup()
    sys.exit(code)


if __name__ == "__main__":
    main()
