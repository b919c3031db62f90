"""examples/harness.py run as a user runs it: a subprocess against a live server (the browser tests' `manage.py
runserver` on a scratch database: pytest-django's live_server flushes tables, which the triggers refuse)."""

import http.server
import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from tests.browser.support import Server, free_port, serve
from tests.databases import ROOT

HARNESS = ROOT / "examples" / "harness.py"
SUGGEST_STEP = ROOT / "examples" / "suggest_step.py"
# A scripted stand-in for the model, run as --model-command: it answers a repeat and a line that is not there.
STAND_IN = (
    "import json, sys; prompt = sys.stdin.read(); "
    "assert 'it is not the coordination log.' in prompt and '[#1 seen]' in prompt, prompt; "
    "print(json.dumps({'groups': [{'lines': [1, 2], 'kind': 'repeat', 'why': 'both about the guard'}, "
    "{'lines': [1, 999], 'kind': 'conflict', 'why': 'a line not there'}]}))"
)
LESSON = "The shrine's door opens only at night."


@dataclass(frozen=True)
class Site:
    url: str
    token: str

    def harness(self, *args: str, token: str | None = None) -> subprocess.CompletedProcess:
        argv = [sys.executable, str(HARNESS), "--url", self.url, "--token", token or self.token, *args]
        return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def server(scratch_templates, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:  # noqa: ANN001
    """The demo's zelda served, and a token for pippa."""
    tokens: list[str] = []

    def seed(live: Server) -> None:
        live.run("notebook", "demo", "--title", "zelda")  # lines 1-17
        tokens.append(live.run("notebook", "token", "pippa").splitlines()[-1].strip())

    with serve(scratch_templates.new(), tmp_path_factory.mktemp("harness"), seed) as live:
        yield Site(url=live.url, token=tokens[0])


@contextmanager
def _stand_in(answer: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """A bare HTTP server standing in for the API, answering with `answer` until the block ends: its address."""
    stand_in = http.server.HTTPServer(("127.0.0.1", 0), answer)
    threading.Thread(target=stand_in.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{stand_in.server_port}"
    finally:
        stand_in.shutdown()


class _Quiet(http.server.BaseHTTPRequestHandler):
    """A stand-in's handler: JSON answers, and no log."""

    def send_json(self, data: dict) -> None:
        body = json.dumps(data).encode()
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def _read(server: Site, path: str) -> dict:
    """What the server holds, read through the API with the same token."""
    request = urllib.request.Request(server.url + path, headers={"Authorization": f"Bearer {server.token}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def _lines(server: Site) -> dict[int, dict]:
    return {line["n"]: line for line in _read(server, "/api/notebooks/zelda/lines")["lines"]}


def _sessions(server: Site) -> list[dict]:
    return _read(server, "/api/sessions")["sessions"]


def test_the_harness_takes_prints_the_turn_adds_a_lesson_and_lands(server):
    done = server.harness("--notebook", "zelda", "--lesson", LESSON, "--why", "seen at dusk")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("took session #")
    turn = out[out.index("----- the turn") : out.index("----- end of the turn")]
    assert "# Notebook 'zelda' as it stood at " in turn and "[#2 dad_correction] Block first" in turn
    assert LESSON not in turn  # the turn was read before the lesson was added
    added = next(line for line in out.splitlines() if line.startswith("added line #"))
    n = int(added.split("#")[1].split()[0])
    assert "landed session #" in out.splitlines()[-1] and ": landed, 1 row of its own" in out.splitlines()[-1]
    line = _lines(server)[n]
    assert (line["text"], line["source"], line["by"]) == (LESSON, "seen", "pippa")
    assert _sessions(server)[0]["state"] == "landed" and _sessions(server)[0]["change_rows"] == 1


def test_a_run_without_a_lesson_reads_and_lands_as_a_no_op(server):
    done = server.harness("--notebook", "zelda")
    assert done.returncode == 0, done.stderr
    assert "added line" not in done.stdout
    assert done.stdout.splitlines()[-1].endswith(": no-op, 0 rows of its own, 0 of drift")


def test_a_bad_token_is_one_line_with_its_code_and_a_non_zero_exit(server):
    before = _lines(server)
    done = server.harness("--notebook", "zelda", "--lesson", "never written", token="nbk_not-a-token")
    assert done.returncode == 3
    assert done.stdout == ""
    assert done.stderr.splitlines() == ["refused: unauthorized (401): The token is unknown or revoked."]
    assert _lines(server) == before


def test_an_unknown_notebook_is_one_line_with_its_code_and_a_non_zero_exit(server):
    done = server.harness("--notebook", "no-such-notebook", "--lesson", "never written")
    assert done.returncode == 4
    assert done.stderr.splitlines() == ["refused: not_found (404): No notebook is titled 'no-such-notebook'."]


def test_a_refused_lesson_abandons_the_session_so_the_notebook_is_free(server):
    done = server.harness("--notebook", "zelda", "--lesson", "x" * 100_000)
    assert done.returncode == 2
    [refusal] = done.stderr.splitlines()
    assert refusal.startswith("refused: invalid (400): 'text'")
    assert done.stdout.splitlines()[-1].startswith("abandoned session #")
    assert _sessions(server)[0]["state"] == "abandoned"
    again = server.harness("--notebook", "zelda")  # the notebook is not left claimed
    assert again.returncode == 0, again.stderr


def test_no_server_is_a_refusal_too():
    done = subprocess.run(
        [sys.executable, str(HARNESS), "--url", f"http://127.0.0.1:{free_port()}", "--token", "t", "--notebook", "z"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    [refusal] = done.stderr.splitlines()
    assert refusal.startswith("refused: unreachable (0): http://127.0.0.1:")


def _harness_module():  # noqa: ANN202
    sys.path.insert(0, str(HARNESS.parent))
    try:
        import harness
    finally:
        sys.path.remove(str(HARNESS.parent))
    return harness


def test_a_turn_read_again_sends_its_tag_and_reuses_its_text_when_answered_304():
    """The headers the harness sends, seen by a bare HTTP server standing in for the API's turn."""
    harness = _harness_module()
    now = {"tag": '"a"', "text": "# the first turn"}  # what the stand-in's notebook says now
    sent: list[str | None] = []
    answered: list[int] = []

    class Answer(_Quiet):
        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            sent.append(self.headers.get("If-None-Match"))
            answered.append(304 if sent[-1] == now["tag"] else 200)
            self.send_response(answered[-1])
            self.send_header("ETag", now["tag"])
            if answered[-1] == 304:
                self.end_headers()
                return
            self.send_json({"notebook": "zelda", "until": None, "text": now["text"]})

    with _stand_in(Answer) as url:
        api = harness.Notebooks(url, "t")
        read = [api.turn("zelda"), api.turn("zelda")]
        now.update(tag='"b"', text="# the turn after a write")
        read += [api.turn("zelda"), api.turn("zelda")]
    assert sent == [None, '"a"', '"a"', '"b"'] and answered == [200, 304, 200, 304]
    assert read == ["# the first turn", "# the first turn", "# the turn after a write", "# the turn after a write"]


def test_the_harness_reads_the_same_turn_again_until_a_write_changes_it(server):
    api = _harness_module().Notebooks(server.url, server.token)
    first = api.turn("zelda")
    [(tag, _text)] = api.turns.values()
    again = urllib.request.Request(
        server.url + "/api/notebooks/zelda/turn",
        headers={"Authorization": f"Bearer {server.token}", "If-None-Match": tag},
    )
    with pytest.raises(urllib.error.HTTPError) as unchanged:
        urllib.request.urlopen(again, timeout=30)
    assert unchanged.value.code == 304  # the server still stands by the tag the harness keeps
    assert api.turn("zelda") == first
    api.add("zelda", "The well is dry by noon.", "seen", "saw it")
    assert "The well is dry by noon." in api.turn("zelda") != first


def test_each_lesson_is_sent_with_an_idempotency_key_of_its_own():
    """The headers the harness sends, seen by a bare HTTP server standing in for the API's add."""
    harness = _harness_module()
    keys: list[str | None] = []

    class Answer(_Quiet):
        def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
            keys.append(self.headers.get("Idempotency-Key"))
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(201)
            self.send_json({"n": 1, "seq": 1, "similar": []})

    with _stand_in(Answer) as url:
        api = harness.Notebooks(url, "t")
        api.add("zelda", "one", "seen", "why")
        api.add("zelda", "two", "seen", "why")
    assert len(keys) == 2 and all(keys) and keys[0] != keys[1]


def test_the_suggest_step_posts_the_models_groups_and_a_second_run_nothing_more(server):
    model = f'{sys.executable} -c "{STAND_IN}"'
    argv = [sys.executable, str(SUGGEST_STEP), "--url", server.url, "--token", server.token, "--notebook", "zelda",
            "--model-command", model]  # fmt: skip
    first = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    made, missing = first.stdout.splitlines()
    assert made.startswith("repeat of #1, #2: suggestion ")
    assert missing.startswith("conflict of #1, #999: refused: not_found (404): ") and "#999" in missing
    again = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and again.stdout.splitlines()[0] == made  # its key answers the first answer


def test_the_harness_sends_one_key_per_logical_write_across_its_retries(monkeypatch):
    """A write whose answer was lost (unreachable) or that met a brief 503 is sent again with the same key, so the
    server answers it once; every write, take, land and abandon included, carries one."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("harness_example", HARNESS)
    harness = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(harness)
    monkeypatch.setattr(harness.time, "sleep", lambda _s: None)
    sent: list[tuple[str, str | None]] = []

    def call(self, method, path, body=None, key=None):  # noqa: ANN001, ANN202
        sent.append((path, key))
        if sum(1 for p, _ in sent if p == path) == 1:
            raise harness.Refused("unreachable", 0, "the answer was lost")
        return {"id": 7, "n": 1, "seq": 1, "similar": []}

    monkeypatch.setattr(harness.Notebooks, "call", call)
    api = harness.Notebooks("http://x", "t")
    api.take("zelda", "a run")
    api.add("zelda", "a lesson", "seen", "seen", session=7)
    api.land(7, "one lesson")
    api.abandon(8, "stop")
    by_path: dict[str, list] = {}
    for path, key in sent:
        by_path.setdefault(path, []).append(key)
    assert len(by_path) == 4
    for path, keys in by_path.items():
        assert len(keys) == 2 and keys[0] is not None and keys[0] == keys[1], path
    assert len({keys[0] for keys in by_path.values()}) == 4  # one key per logical write
