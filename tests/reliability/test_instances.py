"""Two web server instances (separate processes on separate ports, standing in for hosts) on one PostgreSQL behave as
one: a write through either is read at once through the other, API and card; one session per notebook and per actor;
no line number given twice; the sign-in throttle counts across them; one vault watcher sweeps a vault at a time."""

import json
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.databases import ROOT, Commands, Scratch
from tests.web_instances import Browser, Instance, api, scratch_env, start_instance

pytestmark = pytest.mark.vendor("postgresql")  # SQLite is one file on one host: several hosts means PostgreSQL


@pytest.fixture(scope="module")
def pair(scratch_templates, tmp_path_factory) -> Iterator[dict]:  # noqa: ANN001
    tmp = tmp_path_factory.mktemp("instances")
    scratch: Scratch = scratch_templates.new()
    env = scratch_env(scratch.env(), tmp / "static")
    commands = Commands(env)
    try:
        commands.run("collectstatic", "--no-input", "-v", "0")
        for title in ("zelda", "mario", "kirby", "metroid"):
            commands.run("notebook", "create", title)
        commands.run("notebook", "first-editor", "--password-file", str(tmp / "pw"))
        tokens = {
            name: commands.run("notebook", "token", name).strip().splitlines()[-1]
            for name in ("pippa", "reflector", "scout", "tidier")
        }
    finally:
        commands.close()
    instances: list[Instance] = []
    try:
        for k in range(2):
            instances.append(start_instance(env, tmp / f"server{k}.log", workers=2, threads=2))
        yield {
            "a": instances[0].base,
            "b": instances[1].base,
            "tokens": tokens,
            "password": (tmp / "pw").read_text().strip(),
            "scratch": scratch,
            "env": env,
            "tmp": tmp,
        }
    finally:
        for instance in instances:
            instance.stop()


def test_a_write_through_one_instance_is_read_at_once_through_the_other(pair):  # noqa: ANN001
    a, b, pippa = pair["a"], pair["b"], pair["tokens"]["pippa"]
    dad_b = Browser(b)
    assert dad_b.sign_in("dad", pair["password"]) == 302
    for i in range(12):
        # Every worker of both has the view kept (several reads land on each), so the next read must catch up.
        for base in (a, b) * 3:
            assert api(base, pippa, "GET", "/api/notebooks/zelda/turn")[0] == 200
        writer, reader = (a, b) if i % 2 == 0 else (b, a)
        status, added = api(
            writer, pippa, "POST", "/api/notebooks/zelda/lines", {"text": f"seen {i}", "source": "seen", "why": "x"}
        )
        assert status == 201, added
        status, lines = api(reader, pippa, "GET", "/api/notebooks/zelda/lines")
        assert status == 200 and lines["seq"] == added["seq"]
        assert lines["lines"][-1]["text"] == f"seen {i}" and lines["lines"][-1]["n"] == added["n"]
        assert f"seen {i}" in api(reader, pippa, "GET", "/api/notebooks/zelda/turn")[1]["text"]
        status, card = dad_b.get("/notebooks/zelda/")
        assert status == 200 and f"seen {i}" in card
    # Dad's write through the card of one is read by the API of the other.
    dad_a = Browser(a)
    assert dad_a.sign_in("dad", pair["password"]) == 302
    assert dad_a.post("/notebooks/zelda/add/", [("words", "block first"), ("reason", "a rule")])[0] in (200, 302)
    lines = api(b, pippa, "GET", "/api/notebooks/zelda/lines")[1]["lines"]
    assert (lines[-1]["text"], lines[-1]["source"]) == ("block first", "dad")


def _read_if_changed(base: str, token: str, path: str, tag: str, host: str = "") -> tuple[int, str, dict | None]:
    """A conditional read: the status, the ETag and the answer (none on a 304)."""
    headers = {"Authorization": f"Bearer {token}", "If-None-Match": tag} | ({"Host": host} if host else {})
    request = urllib.request.Request(base + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers["ETag"], json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("ETag"), None


def test_a_write_through_one_instance_is_in_the_next_conditional_read_through_the_other(pair):  # noqa: ANN001
    a, b, pippa = pair["a"], pair["b"], pair["tokens"]["pippa"]
    path = "/api/notebooks/zelda/turn"
    tag = _read_if_changed(a, pippa, path, '"none yet"')[1]
    for i in range(8):
        writer, reader = (a, b) if i % 2 == 0 else (b, a)
        # Every worker of both answers 304 to the tag, whichever instance gave it: a tag names the same answer on each.
        for base in (a, b) * 3:
            assert _read_if_changed(base, pippa, path, tag)[:2] == (304, tag)
        body = {"text": f"conditional {i}", "source": "seen", "why": "x"}
        assert api(writer, pippa, "POST", "/api/notebooks/zelda/lines", body)[0] == 201
        status, new_tag, answer = _read_if_changed(reader, pippa, path, tag)
        assert status == 200 and new_tag != tag and f"conditional {i}" in answer["text"]
        tag = new_tag


def _take_at_once(takers: list[tuple[str, str]], tokens: dict[str, str], plan: str) -> dict[str, tuple[int, dict]]:
    answers: dict[str, tuple[int, dict]] = {}
    barrier = threading.Barrier(len(takers))

    def take(who: str, base: str) -> None:
        barrier.wait()
        answers[who] = api(base, tokens[who], "POST", "/api/sessions", {"notebook": "kirby", "plan": plan})

    threads = [threading.Thread(target=take, args=x) for x in takers]
    [th.start() for th in threads]
    [th.join() for th in threads]
    return answers


def test_one_session_per_notebook_and_per_actor_holds_across_instances(pair):  # noqa: ANN001
    a, b, t = pair["a"], pair["b"], pair["tokens"]
    for round_ in range(4):
        # Two agents take the same notebook at the same moment, one through each instance: exactly one gets it.
        answers = _take_at_once([("pippa", a), ("reflector", b)], t, f"round {round_}")
        statuses = sorted(status for status, _ in answers.values())
        assert statuses == [201, 409], answers
        holder = next(who for who, (status, _) in answers.items() if status == 201)
        other_base = b if holder == "pippa" else a
        # The holder may not take a second notebook through the other instance either.
        status, refused = api(other_base, t[holder], "POST", "/api/sessions", {"notebook": "metroid", "plan": "two"})
        assert status == 409, refused
        # And its writes elsewhere are refused through either instance while the session is open.
        body = {"text": "elsewhere", "source": "seen", "why": "x"}
        assert api(other_base, t[holder], "POST", "/api/notebooks/metroid/lines", body)[0] == 409
        sid = answers[holder][1]["id"]
        assert api(other_base, t[holder], "POST", f"/api/sessions/{sid}/abandon", {"why": "test"})[0] == 200


def test_no_line_number_is_given_twice_under_concurrent_adds_through_both(pair):  # noqa: ANN001
    a, b, t = pair["a"], pair["b"], pair["tokens"]
    given: list[int] = []
    failures: list[tuple] = []
    lock = threading.Lock()

    def adds(who: str, base: str) -> None:
        for i in range(20):
            body = {"text": f"{who} {base[-5:]} {i}", "source": "guessed", "why": "race"}
            status, answer = api(base, t[who], "POST", "/api/notebooks/mario/lines", body)
            with lock:
                (given.append(answer["n"]) if status == 201 else failures.append((status, answer)))

    workers = [("scout", a), ("tidier", b), ("scout", b), ("tidier", a)]
    threads = [threading.Thread(target=adds, args=w) for w in workers]
    [th.start() for th in threads]
    [th.join() for th in threads]
    assert failures == []
    assert sorted(given) == list(range(1, 81))  # every number once, none skipped
    lines = api(a, t["scout"], "GET", "/api/notebooks/mario/lines")[1]["lines"]
    assert sorted(line["n"] for line in lines) == list(range(1, 81))
    pair["scratch"].manage("notebook", "verify", "mario", env=pair["env"])  # the chain holds


def test_the_sign_in_throttle_counts_across_instances(pair):  # noqa: ANN001
    a, b = pair["a"], pair["b"]
    statuses = [Browser(a if i % 2 == 0 else b).sign_in("mallory", f"guess {i}") for i in range(5)]
    assert statuses == [200] * 5  # refused, each counted
    assert Browser(a).sign_in("mallory", "guess 6") == 429
    assert Browser(b).sign_in("mallory", "guess 7") == 429


def _watcher(env: dict[str, str], vault: Path, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "notebook", "vault", "watch", "--vault", str(vault), "--interval", "0.2"],
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )


def _wait_for(check, what: str, timeout: float = 30) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_only_one_vault_watcher_sweeps_a_vault_at_a_time(pair):  # noqa: ANN001
    env, tmp, pippa = pair["env"], pair["tmp"], pair["tokens"]["pippa"]
    vault = tmp / "vault"
    logs = [tmp / "watcher0.log", tmp / "watcher1.log"]
    first = _watcher(env, vault, logs[0])
    try:
        _wait_for(lambda: "sweeping" in logs[0].read_text(), "the first watcher to sweep")
        second = _watcher(env, vault, logs[1])
        try:
            _wait_for(lambda: "standing by" in logs[1].read_text(), "the second watcher to stand by")
            body = {"text": "for the vault", "source": "seen", "why": "x"}
            assert api(pair["a"], pippa, "POST", "/api/notebooks/metroid/lines", body)[0] == 201
            _wait_for(lambda: b"for the vault" in (vault / "metroid.jsonl").read_bytes(), "the row in the file")
            assert "sweeping" not in logs[1].read_text()  # it never swept while the first one held the vault
            first.send_signal(signal.SIGTERM)
            assert first.wait(timeout=30) == 0
            _wait_for(lambda: "sweeping" in logs[1].read_text(), "the second watcher to take over")
            body = {"text": "after the takeover", "source": "seen", "why": "x"}
            assert api(pair["b"], pippa, "POST", "/api/notebooks/metroid/lines", body)[0] == 201
            _wait_for(lambda: b"after the takeover" in (vault / "metroid.jsonl").read_bytes(), "the second row")
        finally:
            second.send_signal(signal.SIGTERM)
            assert second.wait(timeout=30) == 0
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()


def test_an_unchanged_read_after_the_database_ended_every_connection_is_answered_not_refused(pair):  # noqa: ANN001
    """A 304 skips the connection's health check (the head's statement checks it): a dead connection found there is
    closed and the read answered on a new one, as the check would have done. A host first named after the connections
    ended is answered through Django's handler (its 304 headers not yet kept), the others before it."""
    a, b, pippa = pair["a"], pair["b"], pair["tokens"]["pippa"]
    path = "/api/notebooks/kirby/turn"
    tag = _read_if_changed(a, pippa, path, '"none yet"')[1]
    for _ in range(2):
        for base in (a, b) * 4:  # every worker's thread holds a connection, then loses it
            assert _read_if_changed(base, pippa, path, tag)[:2] == (304, tag)
        with psycopg.connect(pair["scratch"].url, autocommit=True) as db:
            ended = db.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid()"
            ).fetchone()[0]
        assert ended >= 1
    for base in (a, b) * 4:
        assert _read_if_changed(base, pippa, path, tag)[:2] == (304, tag)
        port = base.rsplit(":", 1)[1]
        assert _read_if_changed(base, pippa, path, tag, host=f"localhost:{port}")[:2] == (304, tag)
