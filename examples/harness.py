"""A small agent harness for the notebooks API, to copy and grow: take a notebook, read the turn, add a lesson, land.

    python examples/harness.py --url http://127.0.0.1:8000 --token nbk_... --notebook zelda-demo \
        --lesson "The guard swings twice; roll after the second swing."

It needs only the standard library. A refusal prints one line, `refused: CODE (STATUS): message`, and the exit
status says which kind (2 bad input, 3 not allowed, 4 not found, 5 conflict, 1 anything else), as the CLI's do.
A turn read again sends the last one's ETag as If-None-Match and, answered 304 (nothing changed), gives its text.
The walk-through is in docs/agents.md, "A harness, step by step".
"""

import argparse
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any

EXIT = {400: 2, 401: 3, 403: 3, 404: 4, 409: 5}
TRIES = 3  # a write is sent again, with the same key, when the answer was lost or the server was briefly unavailable


class Refused(Exception):
    """The API said no (or could not be reached): its stable code, the HTTP status and its message."""

    def __init__(self, code: str, status: int, message: str) -> None:
        super().__init__(message)
        self.code, self.status, self.message = code, status, message

    def line(self) -> str:
        return f"refused: {self.code} ({self.status}): {' '.join(self.message.split())}"


class Notebooks:
    """The API under URL, speaking for the actor of one token."""

    def __init__(self, url: str, token: str, timeout: float = 30) -> None:
        self.url, self.token, self.timeout = url.rstrip("/"), token, timeout
        self.turns: dict[str, tuple[str, str]] = {}  # a turn's path -> the ETag and text last read there

    def call(self, method: str, path: str, body: dict | None = None, key: str | None = None) -> dict[str, Any]:
        answer, _tag = self.send(method, path, body, key)
        return answer if answer is not None else {}  # sent with no tag, it is never answered 304

    def send(
        self, method: str, path: str, body: dict | None = None, key: str | None = None, tag: str | None = None
    ) -> tuple[dict[str, Any] | None, str | None]:
        """The answer and its ETag; no answer when `tag` (an ETag read before) still stands: 304 Not Modified."""
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        data = None
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        if key is not None:  # the same key on a resent write lets the server answer it once (see docs/agents.md)
            headers["Idempotency-Key"] = key
        if tag is not None:  # a read of something read before: 304 and no body while nothing changed
            headers["If-None-Match"] = tag
        request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.load(response), response.headers.get("ETag")
        except urllib.error.HTTPError as refused:
            if refused.code == 304 and tag is not None:
                return None, refused.headers.get("ETag", tag)
            raise _refusal(refused) from None
        except (urllib.error.URLError, TimeoutError) as failed:
            raise Refused("unreachable", 0, f"{self.url}: {getattr(failed, 'reason', failed)}") from None

    def write(self, path: str, body: dict) -> dict[str, Any]:
        """One logical write: one Idempotency-Key for all its tries, so a retry is answered, never written twice."""
        key = str(uuid.uuid4())
        for attempt in range(1, TRIES + 1):
            try:
                return self.call("POST", path, body, key=key)
            except Refused as refused:
                if refused.status not in (0, 503) or attempt == TRIES:
                    raise
                time.sleep(attempt)
        raise AssertionError("unreachable")

    def take(self, notebook: str, plan: str) -> dict[str, Any]:
        return self.write("/api/sessions", {"notebook": notebook, "plan": plan})

    def turn(self, notebook: str) -> str:
        """The turn's text; the one read last, when the server says nothing changed since (If-None-Match, 304)."""
        path = f"/api/notebooks/{_quoted(notebook)}/turn"
        tag, text = self.turns.get(path, (None, ""))
        answer, tag = self.send("GET", path, tag=tag)
        if answer is not None:
            text = answer["text"]
            if tag is not None:
                self.turns[path] = (tag, text)
        return text

    def add(self, notebook: str, text: str, source: str, why: str, session: int | None = None) -> dict[str, Any]:
        """Add a line; naming the session makes sure it goes only into that one (the answer names it either way)."""
        body: dict[str, Any] = {"text": text, "source": source, "why": why}
        if session is not None:
            body["session"] = session
        return self.write(f"/api/notebooks/{_quoted(notebook)}/lines", body)

    def land(self, session: int, summary: str) -> dict[str, Any]:
        return self.write(f"/api/sessions/{session}/land", {"summary": summary})

    def abandon(self, session: int, why: str) -> dict[str, Any]:
        return self.write(f"/api/sessions/{session}/abandon", {"why": why})


def _quoted(title: str) -> str:
    return urllib.parse.quote(title, safe="")


def _refusal(answer: urllib.error.HTTPError) -> Refused:
    """The API's refusal is {"error": {"code", "message", ...}}; anything else (a proxy's page) names its status."""
    try:
        error = json.loads(answer.read())["error"]
        return Refused(str(error["code"]), answer.code, str(error["message"]))
    except (ValueError, KeyError, TypeError):
        return Refused(f"http_{answer.code}", answer.code, answer.reason or "no JSON error in the answer")


def run(api: Notebooks, notebook: str, lesson: str | None, source: str, why: str, plan: str) -> None:
    """One play run against the notebook, saying each step as it is done. A refusal after the take abandons the
    session, so that the notebook is not left claimed, and is raised again."""
    taken = api.take(notebook, plan)
    drift = f"; {taken['drift']} rows written outside any session before it, kept apart as drift"
    drift = drift if taken["drift"] else ""
    print(f"took session #{taken['id']} on {taken['notebook']!r} at seq {taken['base']}{drift}")
    try:
        turn = api.turn(notebook)
        print("----- the turn the model would be given -----", turn, "----- end of the turn -----", sep="\n")
        if lesson is None:
            summary = "read the notebook; nothing new to add"
        else:
            added = api.add(notebook, lesson, source, why, session=taken["id"])
            like = ", ".join(f"#{near['n']} ({near['score']:.2f})" for near in added["similar"])
            print(f"added line #{added['n']} (seq {added['seq']})" + (f"; most like {like}" if like else ""))
            summary = f"one lesson: line #{added['n']}"
        landed = api.land(taken["id"], summary)
    except Refused as refused:
        try:
            api.abandon(taken["id"], f"the harness stopped: {refused.code}")
            print(f"abandoned session #{taken['id']}")
        except Refused:
            print(f"could not abandon session #{taken['id']}; it stays open")
        raise
    rows = "1 row" if landed["rows"] == 1 else f"{landed['rows']} rows"
    print(f"landed session #{landed['id']}: {landed['result']}, {rows} of its own, {landed['drift']} of drift")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Take a notebook, print the turn, add one lesson, land.")
    parser.add_argument("--url", required=True, help="where the app answers, e.g. http://127.0.0.1:8000")
    parser.add_argument("--token", required=True, help="an agent token (python manage.py notebook token pippa)")
    parser.add_argument("--notebook", required=True, help="the notebook's title")
    parser.add_argument("--lesson", help="the words of one line to add; without it the run only reads")
    parser.add_argument("--source", default="seen", choices=("seen", "guessed"), help="seen (default) or guessed")
    parser.add_argument("--why", default="what this run taught", help="the reason stored with the line")
    parser.add_argument("--plan", default="one play run", help="the session's plan")
    o = parser.parse_args(argv)
    try:
        run(Notebooks(o.url, o.token), o.notebook, o.lesson, o.source, o.why, o.plan)
    except Refused as refused:
        print(refused.line(), file=sys.stderr)
        return EXIT.get(refused.status, 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
