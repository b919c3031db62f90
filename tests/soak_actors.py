"""The soak's actors (tests/soak.py): 4 agents through the API, Dad through the card, an outside writer of a
vault file, readers of live and frozen views, and one MCP client over stdio. Each write is recorded as a Write."""

import asyncio
import fcntl
import hashlib
import hmac
import http.cookiejar
import json
import random
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

AGENT_BOOKS = ["zelda", "mario", "kirby"]
# Each written by one outside writer only, which numbers its rows from the file: under the vault's lock, or not.
OUTSIDE_BOOKS = {"harness-feed": "harness-locked", "harness-raw": "harness"}
# The outside writers that sign their rows with a writer key (so each row is theirs); the others' rows are unproven,
# imported as the outside agent (NOTEBOOK_VAULT_OUTSIDE_AGENT, "outside").
SIGNING_WRITERS = ("harness-locked",)
OUTSIDE_AGENT = "outside"
AGENTS = ["pippa", "reflector", "scout", "tidier"]
MCP_ACTOR = "mcp-agent"
NO_ROWS = ("take", "land", "checkpoint")  # kinds that write no row of their own under their token


def now() -> float:
    return time.time()


def signed(row: dict[str, Any], title: str, key_id: str, secret: str) -> dict[str, Any]:
    """The row with `kid` and `mac`, as an outside writer with only the standard library signs it (docs/vault.md)."""
    canonical = json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    message = b"notebooks row v1\0" + title.encode() + b"\0" + canonical.encode()
    return {**row, "kid": key_id, "mac": hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()}


@dataclass
class Write:
    kind: str  # add, edit, retire, merge, card-*, mcp-*, take, checkpoint, land, outside-add
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
    secret: str = ""  # for a redaction: the words it removes
    land: "Write | None" = None  # for a write in a session: the last land sent for it (its proposals land with it)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a: Any, **k: Any) -> None:
        return None


class Actors:
    """Mixed into Soak: needs self.api, self.send, self.record, self.live, self.stop, self.base, self.vault,
    self.writer_keys."""

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

    def agent_write(self, name: str, title: str, rng: random.Random, token: str) -> Any:
        op = rng.choices(["add", "edit", "retire", "merge"], weights=[50, 25, 15, 10])[0]
        w = Write(op, name, token, now(), title)
        if op == "add":  # the words carry a secret of their own: Dad may redact them, and they must leave no trace
            text = f"{token} secret-{rng.getrandbits(64):016x}"
            body = {"text": text, "source": rng.choice(["seen", "guessed"]), "why": token}
            return self.send(w, "POST", f"/api/notebooks/{title}/lines", body, 1)
        lines = [x for x in self.live(title) if x["source"] in ("seen", "guessed")]
        if len(lines) < 2:
            return None
        w.sent = now()
        line = rng.choice(lines)
        expected = line["seq"] if rng.random() < 0.5 else None
        if op == "edit":
            body = {"text": token, "why": token, **({"expected": expected} if expected else {})}
            return self.send(w, "POST", f"/api/notebooks/{title}/lines/{line['n']}/edit", body, 1)
        if op == "retire":
            body = {"why": token, **({"expected": expected} if expected else {})}
            return self.send(w, "POST", f"/api/notebooks/{title}/lines/{line['n']}/retire", body, 1)
        pair = [x["n"] for x in rng.sample(lines, 2)]
        body = {"numbers": pair, "text": token, "why": token, "source": "seen"}
        return self.send(w, "POST", f"/api/notebooks/{title}/merge", body, 3)

    def session(self, name: str, title: str, rng: random.Random, i: int) -> None:
        """Take a session, write a few rows in it, checkpoint it (half the time), land it (abandon it if refused)."""
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
        made = []
        for k in range(rng.randint(1, 4)):
            made.append(self.agent_write(name, title, rng, f"soak {name} #{i}.{k} {rng.random():.12f}"))
            time.sleep(0.05)
        if rng.random() < 0.5:
            self.send(
                Write("checkpoint", name, f"checkpoint {name} #{i}", now(), title),
                "POST",
                f"/api/sessions/{sid}/checkpoint",
                {"note": f"soak checkpoint {name} #{i}"},
                0,
            )
        land = self.send(
            Write("land", name, f"land {name} #{i}", now(), title),
            "POST",
            f"/api/sessions/{sid}/land",
            {"summary": f"soak summary {name} #{i}"},
            0,
        )
        for w in made:
            if w is not None:
                w.land = land
        if land.status != 200:
            try:
                self.api("POST", f"/api/sessions/{sid}/abandon", name, {"why": "soak: the land was refused"})
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass  # a worker killed meanwhile: the session stays open, as a harness's would

    # ----- Dad, through the card -------------------------------------------------------------------------------

    def card_get(self, path: str) -> tuple[int, bytes]:
        try:
            with self.dad_opener.open(self.base + path, timeout=30) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def card_post(self, path: str, fields: list[tuple[str, Any]]) -> int:
        csrf = next((c.value for c in self.dad_jar if c.name == "csrftoken"), "")
        data = urllib.parse.urlencode([*fields, ("csrfmiddlewaretoken", csrf)]).encode()
        req = urllib.request.Request(self.base + path, data=data, method="POST")
        try:
            with self.dad_opener.open(req, timeout=30) as r:
                return r.status
        except urllib.error.HTTPError as exc:
            return exc.code

    def sign_in(self) -> bool:
        try:
            self.card_get("/accounts/login/")
            return self.card_post("/accounts/login/", [("username", "dad"), ("password", self.password)]) == 302
        except (urllib.error.URLError, ConnectionError, OSError):
            return False

    def dad(self, seed: int) -> None:
        rng = random.Random(seed)
        self.dad_jar = http.cookiejar.CookieJar()
        self.dad_opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.dad_jar), NoRedirect())
        while not self.sign_in():
            if self.stop.wait(0.5):
                return
        i = 0
        kinds = ["card-add", "card-edit", "card-retire", "card-merge", "card-redact", "card-read"]
        while not self.stop.is_set():
            i += 1
            title = rng.choice(AGENT_BOOKS)
            token = f"soak dad #{i} {rng.random():.12f}"
            op = rng.choices(kinds, [35, 25, 15, 10, 4, 15])[0]
            if op == "card-read":
                self.dad_read(f"/notebooks/{title}/")
                continue
            w = Write(op, "dad", token, now(), title)
            lines = self.live(title)
            base = f"/notebooks/{title}"
            if op == "card-add":
                path, fields, rows = f"{base}/add/", [("words", token), ("reason", token)], 1
            elif op == "card-redact":
                secret = [x for x in lines if "secret-" in x["text"]]
                if not secret:
                    continue
                line = rng.choice(secret)
                w.secret, w.n = line["text"], line["n"]
                path, rows = f"{base}/lines/{line['n']}/redact/", 1
                fields = [("reason", token), ("seq", line["seq"])]
            elif len(lines) < 2:
                continue
            elif op == "card-edit":
                line = rng.choice(lines)
                path, rows = f"{base}/lines/{line['n']}/edit/", 1
                fields = [("words", token), ("reason", token), ("expected", line["seq"])]
            elif op == "card-retire":
                line = rng.choice(lines)
                path, rows = f"{base}/lines/{line['n']}/retire/", 1
                fields = [("reason", token), ("expected", line["seq"])]
            else:
                pair = rng.sample(lines, 2)
                path, rows = f"{base}/selected/", 3
                fields = [("n", pair[0]["n"]), ("n", pair[1]["n"]), ("words", token), ("reason", token)]
                fields.append(("action", "merge"))
            w.sent = now()
            self.record(w)
            try:
                w.status = self.card_post(path, fields)
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                w.status = 0
            w.answered = now()
            if w.status in (200, 302):
                w.rows = rows
            time.sleep(rng.uniform(0.1, 0.4))

    def dad_read(self, path: str) -> None:
        try:
            status, _ = self.card_get(path)
        except (urllib.error.URLError, ConnectionError, OSError):
            return
        if status >= 500:
            self.read_5xx.append((now(), status))
        elif status == 200:
            self.reads["card"] += 1

    # ----- the outside writer and the readers --------------------------------------------------------------------

    def outside(self, seed: int, title: str) -> None:
        """Appends valid add rows to the vault file of a notebook only it writes, numbering from what the file
        holds (as an older harness does: it reads the file, then appends the next line): holding the vault's lock
        across both (docs/vault.md's recipe), or ignoring it (an older harness), as OUTSIDE_BOOKS says."""
        rng = random.Random(seed)
        who = OUTSIDE_BOOKS[title]
        path = self.vault / f"{title}.jsonl"
        lock_path = self.vault / ".git" / "notebooks-vault.lock"
        i = 0
        while not self.stop.is_set():
            i += 1
            token = f"soak outside {title} #{i} {rng.random():.12f}"
            w = self.record(Write("outside-add", who, token, now(), title))
            try:
                lock = lock_path.open("a+b") if who == "harness-locked" else None
                try:
                    if lock:
                        fcntl.flock(lock, fcntl.LOCK_EX)
                    held = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
                    rows = [json.loads(x) for x in held if x.strip()]
                    top = max((r["n"] for r in rows if r["op"] == "add"), default=0)
                    row = {"op": "add", "n": top + 1, "text": token, "source": "seen", "why": token}
                    row["at"] = round(now(), 3)
                    if who in SIGNING_WRITERS:
                        row = signed(row, title, *self.writer_keys[who])
                    with path.open("a", encoding="utf-8") as f:
                        f.write(json.dumps(row) + "\n")
                finally:
                    if lock:
                        lock.close()  # closing releases the flock
                w.status, w.rows = 200, 1  # 200: appended to the file (no HTTP here)
            except (OSError, ValueError, KeyError):
                w.status = 0
            w.answered = now()
            self.stop.wait(rng.uniform(0.2, 0.6))

    def reader(self, seed: int) -> None:
        rng = random.Random(seed)
        t0 = now()
        while not self.stop.is_set():
            title = rng.choice([*AGENT_BOOKS, *OUTSIDE_BOOKS])
            frozen = rng.random() < 0.5 and now() - t0 > 10
            until = round(rng.uniform(t0, now() - 5), 3) if frozen else None
            path = f"/api/notebooks/{title}/lines?limit=1000" + (f"&until={until}" if frozen else "")
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

    def conditional_reader(self, seed: int) -> None:
        """Reads live lines with the ETag of its last full answer, as a harness does every turn. A 304 must never hide
        a write acknowledged before the read was sent: its notebook's head moved, so its tag did."""
        rng = random.Random(seed)
        last: dict[str, tuple[str, int]] = {}  # title -> (ETag, seq) of its last full answer
        while not self.stop.is_set():
            title = rng.choice(AGENT_BOOKS)
            path = f"/api/notebooks/{title}/lines?limit=1000"
            with self.lock:
                acked = max((max([w.seq or 0, *w.seqs]) for w in self.writes
                             if w.notebook == title and 200 <= w.status < 300 and w.answered), default=0)  # fmt: skip
            req = urllib.request.Request(self.base + path)
            req.add_header("Authorization", f"Bearer {self.tokens['reader']}")
            if title in last:
                req.add_header("If-None-Match", last[title][0])
            try:
                with urllib.request.urlopen(req, timeout=30) as r:
                    status, tag, answer = r.status, r.headers.get("ETag"), json.loads(r.read())
            except urllib.error.HTTPError as exc:
                status, tag, answer = exc.code, exc.headers.get("ETag"), None
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                status, tag, answer = 0, None, None
            if status >= 500:
                self.read_5xx.append((now(), status))
            elif status == 200 and tag:
                self.reads["conditional"] += 1
                last[title] = (tag, answer["seq"])
            elif status == 304:
                self.reads["unchanged"] += 1
                if acked > last[title][1]:
                    self.stale_304.append(f"{title}: 304 at seq {last[title][1]}, seq {acked} acknowledged before")
            time.sleep(rng.uniform(0.01, 0.05))

    # ----- one MCP client over stdio (the official SDK) --------------------------------------------------------

    def mcp_client(self, seed: int) -> None:
        try:
            asyncio.run(self._mcp(random.Random(seed)))
        except Exception as exc:  # noqa: BLE001 - the soak reports it instead of dying with the thread
            self.mcp_failure = f"{type(exc).__name__}: {exc}"[:300]

    async def _mcp(self, rng: random.Random) -> None:
        from mcp import ClientSession, StdioServerParameters, stdio_client

        server = StdioServerParameters(
            command=self.python, args=["manage.py", "notebook", "mcp", "--actor", MCP_ACTOR], env=self.env(),
            cwd=str(self.root),
        )  # fmt: skip
        with (self.tmp / "mcp.log").open("w") as errlog:
            async with stdio_client(server, errlog=errlog) as (read, write), ClientSession(read, write) as client:
                await client.initialize()
                i = 0
                while not self.stop.is_set():
                    i += 1
                    title = rng.choice(AGENT_BOOKS)
                    view = await self._mcp_call(client, "view", {"notebook": title})
                    self.reads["mcp"] += view[0] == 200
                    lines = [x for x in (view[1] or {}).get("lines", []) if x.get("source") in ("seen", "guessed")]
                    token = f"soak mcp #{i} {rng.random():.12f}"
                    if lines and rng.random() < 0.3:
                        line = rng.choice(lines)
                        w = self.record(Write("mcp-edit", MCP_ACTOR, token, now(), title))
                        args = {"notebook": title, "n": line["n"], "text": token, "why": token, "expected": line["seq"]}
                        w.status, w.answer = await self._mcp_call(client, "edit", args)
                    else:
                        w = self.record(Write("mcp-add", MCP_ACTOR, token, now(), title))
                        args = {"notebook": title, "text": token, "why": token, "source": "seen"}
                        w.status, w.answer = await self._mcp_call(client, "add", args)
                    w.answered = now()
                    if w.status == 200 and isinstance(w.answer, dict):
                        w.seq, w.n, w.rows = w.answer.get("seq"), w.answer.get("n"), 1
                        w.seqs = [w.seq] if w.seq else []
                    await asyncio.sleep(rng.uniform(0.3, 0.8))

    async def _mcp_call(self, client: Any, name: str, arguments: dict[str, Any]) -> tuple[int, Any]:
        """(200, its answer) or (the refusal's status, its text); (0, None) when no answer came in 30 s."""
        try:
            result = await asyncio.wait_for(client.call_tool(name, arguments), 30)
        except TimeoutError:
            return 0, None
        text = result.content[0].text if result.content else ""
        if result.is_error:
            code = re.search(r"\((\d{3})\)", text)
            return (int(code.group(1)) if code else 500), text
        if result.structured_content is not None:
            return 200, result.structured_content
        try:
            return 200, json.loads(text)
        except ValueError:
            return 200, text
