"""What the browser tests share: Debian's Chromium, how it is started, live servers on scratch databases, Dad's
sign-in, the seeds several modules import, and the tally of Dad's hands in a cleanup.

pytest-django's live_server flushes tables, which the append-only triggers refuse, so a server here is a
`manage.py runserver` subprocess on a scratch database (a copy of the session's migrated template,
tests/databases.py), seeded through one long-lived command process (tests/commands.py) rather than a
`manage.py` start per command.
"""

import difflib
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.similar_data import START, load
from tests.databases import ROOT, Commands, Scratch
from tests.web_instances import free_port

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


# ----- Dad's sign-in ---------------------------------------------------------------------------------------------


def fill_sign_in(page, password: str) -> None:  # noqa: ANN001
    """Dad's name and password sent from the sign-in form the page shows."""
    page.get_by_label("Username").fill("dad")
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def sign_in(page, url: str, password: str) -> None:  # noqa: ANN001
    """Dad signs in from the sign-in page and lands on the home page."""
    page.goto(f"{url}/accounts/login/")
    fill_sign_in(page, password)
    page.wait_for_url(f"{url}/")


def save_sign_in(browser, url: str, password: str, path: Path | str) -> str:  # noqa: ANN001
    """Dad signed in once (the password hash is deliberately slow), his cookies saved at `path` for new contexts."""
    context = browser.new_context()
    sign_in(context.new_page(), url, password)
    context.storage_state(path=str(path))
    context.close()
    return str(path)


def open_signed_in(browser, url: str, password: str, path: str, width: int = 1280, height: int = 900):  # noqa: ANN001, ANN201
    """A new context signed in as Dad on `path`: the context, its page and the page's script errors."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_in(page, url, password)
    page.goto(f"{url}{path}")
    return context, page, errors


@contextmanager
def card_pages(browser, url: str, state: str) -> Iterator[Callable[..., Any]]:  # noqa: ANN001
    """opened(title, width=1280, height=900, query=""): a page signed in with `state` on that notebook's card, each in
    a context closed when the block ends; fails on script errors."""
    contexts, errors = [], []

    def opened(title: str, width: int = 1280, height: int = 900, query: str = ""):  # noqa: ANN202
        context = browser.new_context(viewport={"width": width, "height": height}, storage_state=state)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{url}/notebooks/{title}/{query}")
        page.evaluate("window.__same_page = true")  # gone if an action reloads the page instead of swapping
        return page

    yield opened
    for context in contexts:
        context.close()
    assert errors == [], f"script errors: {errors}"


# ----- seeds -----------------------------------------------------------------------------------------------------


def import_rows(server: Server, path: Path, rows: Iterable[dict], *titles: str) -> None:
    """`rows` written to `path` as JSONL, then imported as each of `titles`."""
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    for title in titles:
        server.run("notebook", "import", str(path), "--title", title)


def seen_rows(texts: Iterable[str], start_at: float) -> list[dict]:
    """An add row for each of `texts` (#1 on), seen by pippa, a second apart after `start_at`."""
    return [
        {"op": "add", "n": n, "text": text, "source": "seen", "by": "pippa", "why": "seen", "at": start_at + n}
        for n, text in enumerate(texts, start=1)
    ]


def labelled_seed(tmp: Path, game: str, title: str) -> Callable[[Server], None]:
    """A seed that imports a labelled game's notebook (bench/similar_data) as `title`: Dad's sources by dad."""

    def seed(server: Server) -> None:
        rows = []
        for i, (n, words, source) in enumerate(load(game).lines):
            by = "dad" if source.startswith("dad") else "pippa"
            rows.append({"op": "add", "n": n, "text": words, "source": source, "by": by, "at": START + i * 60})
        import_rows(server, tmp / "messy.jsonl", rows, title)

    return seed


def seed_suggestions(server: Server, path: Path, title: str, lines: Iterable[str], suggestions: list[dict]) -> None:
    """A notebook `title` of `lines` seen by pippa, and pippa's `suggestions` on it (written to `path` first)."""
    server.run("notebook", "create", title)
    for words in lines:
        server.run("notebook", "add", title, words, "--source", "seen", "--by", "pippa", "--why", "seen")
    server.run("notebook", "token", "pippa")
    path.write_text(json.dumps(suggestions))
    server.run("notebook", "suggest", title, str(path), "--by", "pippa")


# ----- a cleanup, counted ----------------------------------------------------------------------------------------


@dataclass
class Tally:
    """Dad's hands: every click, choice and field filled is an action; every character he types is counted."""

    actions: int = 0
    typed: int = 0
    steps: dict[str, list[int]] = field(default_factory=dict)  # phase -> [actions, typed] spent in it
    phase: str = ""

    def _count(self, actions: int, typed: int = 0) -> None:
        self.actions += actions
        self.typed += typed
        spent = self.steps.setdefault(self.phase, [0, 0])
        spent[0] += actions
        spent[1] += typed

    def click(self, locator) -> None:  # noqa: ANN001
        locator.click()
        self._count(1)

    def fill(self, locator, text: str) -> None:  # noqa: ANN001
        locator.fill(text)
        self._count(1, len(text))

    def choose(self, locator, label: str) -> None:  # noqa: ANN001
        locator.select_option(label=label)
        self._count(1)


def live_lines(server: Server, title: str) -> dict[int, dict]:
    """The notebook's live lines by number, all on one page."""
    view = json.loads(server.run("notebook", "view", title, "--json", "--limit", "1000"))
    assert view["next"] is None, "more than a page of live lines"
    return {line["n"]: line for line in view["lines"]}


def line_histories(server: Server, title: str, numbers: list[int]) -> dict[int, list[dict]]:
    """`notebook history TITLE N --json` of each line, run in one process (a process per line cost minutes)."""
    code = (
        "import io, json\nfrom django.core.management import call_command\nout = {}\n"
        f"for n in {sorted(set(numbers))!r}:\n"
        "    buf = io.StringIO()\n"
        f"    call_command('notebook', 'history', {title!r}, str(n), '--json', stdout=buf)\n"
        "    out[n] = json.loads(buf.getvalue())\n"
        "print(json.dumps(out))"
    )
    found = json.loads(server.run("shell", "--no-imports", "-c", code).strip().splitlines()[-1])
    return {int(n): h["entries"] if isinstance(h, dict) else h for n, h in found.items()}


def true_side(numbers: list[int], words: dict[int, str], keep: str) -> int:
    """Which line of a contradiction says what Dad knows is right: the closest to the label's words."""
    return max(numbers, key=lambda x: (difflib.SequenceMatcher(None, words[x], keep).ratio(), -x))
