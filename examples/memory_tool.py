"""Claude's memory tool (`memory_20250818`) kept as notebooks, through the notebooks API.

    from anthropic import Anthropic
    from memory_tool import NotebookMemory

    memory = NotebookMemory("http://127.0.0.1:8000", "nbk_...")
    runner = Anthropic().beta.messages.tool_runner(
        model="claude-sonnet-5-5", max_tokens=2048, tools=[memory],
        messages=[{"role": "user", "content": "Play on; keep what the game taught you in memory."}],
    )
    for message in runner:
        print(message.content)

`/memories` lists the notebooks; `/memories/<title>` is one notebook, its lines numbered for good. `str_replace`
edits the one line holding `old_str` (sending the line's seq as last viewed as `expected`, so a change made since
is a conflict, not an overwrite), and replacing a line's words with nothing retires it; `insert` and `create` add
lines at the end; `delete` and `rename` answer that a notebook is append-only. Every write names its command as its
reason and carries an Idempotency-Key made from its content (an add's also from the notebook's last row the tool
knows), so a retried call writes once. Refusals reach the
model as the API's sentences. It needs the `anthropic` SDK (requirements-memory.txt) and nothing of the app's.
The guide is docs/agents.md, "Claude's memory tool".
"""

import hashlib
import json
import logging
import re
import unicodedata
import urllib.parse
from dataclasses import dataclass
from typing import Any

import httpx2
from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError
from anthropic.types.beta import (
    BetaMemoryTool20250818Command,
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

log = logging.getLogger(__name__)

ROOT = "/memories"
# The app's title rule (notebooks/models/log.py), repeated here so that this file needs nothing of the app's.
TITLE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._+-]{0,79}$")
TITLE_RULE = "1-80 characters: letters, digits, spaces, '.', '_', '+', '-', starting with a letter or digit"
# A written line may say its own source the way a view shows it: "[seen] The door opens at night."
SOURCE_TAG = re.compile(r"^\[(seen|guessed)\][ \t]*")
NUMBER_WIDTH = 6
LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")  # where str.splitlines (and a reader) ends a line


@dataclass
class Line:
    n: int
    text: str
    source: str
    seq: int


class NotebookMemory(BetaAbstractMemoryTool):
    """The memory tool's six commands, as notebooks of the API at URL, for the actor of TOKEN.

    `source` is the source of the lines the model writes (`guessed` unless told otherwise; `seen` for a harness
    that writes only what the game showed). `http` is an httpx2 client to send through (a test's in-process app,
    a proxy); without one each request goes to URL with `timeout`. `session` names the session (its id, from a take)
    every write goes into; without it a write goes where the API's answer says."""

    def __init__(
        self,
        url: str,
        token: str,
        *,
        source: str = "guessed",
        http: httpx2.Client | None = None,
        timeout: float = 30,
        session: int | None = None,
    ) -> None:
        super().__init__()
        self.url, self.source, self.session = url.rstrip("/"), source, session
        self._http = http or httpx2.Client(timeout=timeout)
        self._headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        # Each notebook's lines as the model last saw them: a str_replace matches these and sends their seq.
        self._seen: dict[str, dict[int, Line]] = {}
        # The ETag of each notebook's first page of lines when last read: an unchanged notebook answers 304.
        self._tags: dict[str, str] = {}
        # Each notebook's last row as the tool knows it (read or written): part of an add's key, so the same words
        # added again after a change are written again, while a retry (nothing learned since) is the first add's.
        self._heads: dict[str, int] = {}

    # ----- the commands -----

    def execute(self, command: BetaMemoryTool20250818Command) -> str:
        try:
            return str(super().execute(command))
        except ToolError:
            raise
        except Exception as failed:  # the model gets a sentence, the harness's log the traceback
            log.exception("memory %s failed", getattr(command, "command", "?"))
            kind = type(failed).__name__
            raise ToolError(f"The memory tool failed inside the harness ({kind}); its log says more.") from None

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        title = _title_of(command.path, root_allowed=True)
        if title is None:
            return self._view_root()
        lines = self._read(title)
        shown = list(lines.values())
        if command.view_range:
            first, last = (list(command.view_range) + [-1])[:2]
            shown = [x for x in shown if x.n >= first and (last == -1 or x.n <= last)]
        head = (
            f"Notebook '{title}' at {ROOT}/{title}, its live lines by number, each `number [source]<TAB>words`. "
            "str_replace changes the one line holding old_str (its words only; replacing them with nothing "
            "retires the line); insert and create add lines at the end, numbered in turn."
        )
        body = "\n".join(_shown(x) for x in shown) if shown else "(no lines yet)"
        return f"{head}\n{body}"

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        title = _title_of(command.path)
        why = f"memory tool: create {ROOT}/{title}"
        made = False
        try:
            self._read(title)
        except _Refusal as refused:
            if refused.code != "not_found":
                raise
            self._call("POST", "/api/notebooks", {"title": title}, key=_key("create", title, ""))
            self._seen[title], made = {}, True
        try:
            said = self._add_all(title, command.file_text, why, key_of=("create", title, command.file_text))
        except ToolError as refused:
            raise ToolError(f"Created notebook '{title}', but: {refused}" if made else str(refused)) from None
        if made:
            return f"Created notebook '{title}' at {ROOT}/{title}" + (f": {said}" if said else ", with no lines yet.")
        return (
            f"Notebook '{title}' already existed; it is append-only, so its lines stay as they were. "
            + (said or "The text had no line to add.")
            + f" To change one of its lines, str_replace its words in {ROOT}/{title}."
        )

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        title = _title_of(command.path)
        self._read(title)  # "already there" is said of live lines only: one retired since the last view is not
        why = f"memory tool: insert in {ROOT}/{title}"
        said = self._add_all(title, command.insert_text, why, key_of=("insert", title, command.insert_text))
        if not said:
            raise ToolError("insert_text has no words to add; nothing was written.")
        return f"{said} A notebook's lines are numbered in the order they are written: new lines go at the end."

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        title = _title_of(command.path)
        if not command.old_str.strip():
            raise ToolError("old_str is empty: give words of the one line to change; nothing was changed.")
        lines = self._seen[title] if title in self._seen else self._read(title)
        line = self._holding(title, lines, command.old_str)
        old = command.old_str if command.old_str in line.text else SOURCE_TAG.sub("", command.old_str, count=1)
        text = line.text.replace(old, command.new_str, 1)
        if text == line.text:
            raise ToolError(f"old_str and new_str are the same; line #{line.n} is unchanged.")
        path = f"/api/notebooks/{_quoted(title)}/lines/{line.n}"
        why = f"memory tool: str_replace in {ROOT}/{title}"
        try:
            if not text.strip():  # emptied: the notebook keeps every line, so the line is retired with a reason
                body = {"why": why + " (the line's words replaced with nothing)", "expected": line.seq}
                written = self._call("POST", path + "/retire", body, key=_key("retire", title, line.n, line.seq))
                del lines[line.n]
                self._learned(title, written["seq"])
                return f"Line #{line.n} is retired (its history is kept): it no longer shows in {ROOT}/{title}."
            body = {"text": text, "why": why, "expected": line.seq}
            written = self._call("POST", path + "/edit", body, key=_key("edit", title, line.n, line.seq, text))
        except _Refusal as refused:
            if refused.code == "conflict" and "current" in refused.fields:
                current, seq = refused.fields["current"], refused.fields.get("current_seq")
                if isinstance(current, str) and isinstance(seq, int):
                    lines[line.n] = Line(line.n, current, line.source, seq)
                raise ToolError(
                    f"Line #{line.n} changed since you last viewed it; it now says: {current!r}. Nothing was "
                    "written: decide on its words as they are now and call str_replace again."
                ) from None
            raise ToolError(refused.message) from None
        lines[line.n] = Line(line.n, text, line.source, written["seq"])
        self._learned(title, written["seq"])
        return f"The notebook '{title}' has been edited:\n{_shown(lines[line.n])}"

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        title = _title_of(command.path, root_allowed=True)
        if title is not None:
            self._exists(title)
        what = f"notebook '{title}' is" if title is not None else "notebooks are"
        raise ToolError(
            f"Nothing can be deleted here: {what} append-only, every line and its history kept for good. To take a "
            "line out of view, str_replace its words with nothing: it is retired, with your command as the reason."
        )

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        title = _title_of(command.old_path)
        new = _title_of(command.new_path)
        self._exists(title)
        raise ToolError(
            f"A notebook's title never changes, so '{title}' cannot become '{new}'. To keep its lessons under the "
            f"new title, create {ROOT}/{new} with their words; '{title}' stays as it is."
        )

    # ----- what the commands share -----

    def _view_root(self) -> str:
        found: list[str] = []
        for page in self._pages("/api/notebooks", "notebooks"):
            claim = page["session"]
            held = f", claimed by session #{claim['id']} ({claim['actor']})" if claim else ""
            found.append(f"{ROOT}/{page['title']}\t(head seq {page['head']}{held})")
        head = (
            f"The notebooks in {ROOT}, one file each (view one to see its lines). A new notebook is "
            f"{ROOT}/<title>, the title {TITLE_RULE}; there are no folders."
        )
        return head + "\n" + ("\n".join(found) if found else "(no notebooks yet)")

    def _read(self, title: str) -> dict[int, Line]:
        """The notebook's live lines, read now (every page; none when the first answers 304: nothing changed since the
        last read), and kept as what the model has seen."""
        lines: dict[int, Line] = {}
        try:
            found = self._pages(f"/api/notebooks/{_quoted(title)}/lines", "lines", title)
            if found is None:
                return self._seen[title]
        except _Refusal as refused:
            if refused.code != "not_found":
                raise
            hint = f" To start it, create {ROOT}/{title}."
            raise _Refusal(refused.code, refused.message + hint, refused.fields) from None
        for x in found:
            lines[x["n"]] = Line(x["n"], x["text"], x["source"], x["seq"])
        self._seen[title] = lines
        return lines

    def _exists(self, title: str) -> None:
        self._call("GET", f"/api/notebooks/{_quoted(title)}/lines", params={"limit": 1})

    def _pages(self, path: str, field: str, tagged: str | None = None) -> list[dict[str, Any]] | None:
        """Every item of a paged list: its `next` sent back as `after` while `more` says so. With `tagged` (a title
        whose lines were read before), None when the first page answers 304."""
        found: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        while True:
            tag = self._tags.get(tagged) if tagged in self._seen and not params else None
            page = self._call("GET", path, params=params, tag=tag)
            if page is None:
                return None
            if tagged is not None and not params:
                self._tags[tagged] = page.pop("_etag", "")
                self._learned(tagged, page["seq"])
            found.extend(page[field])
            if not page.get("more") or page.get("next") is None:
                return found
            params = {"after": page["next"]}

    def _learned(self, title: str, seq: int) -> None:
        self._heads[title] = max(self._heads.get(title, 0), seq)

    def _holding(self, title: str, lines: dict[int, Line], old: str) -> Line:
        """The one line whose words hold OLD, or a refusal the model can act on."""
        holding = [x for x in lines.values() if old in x.text]
        if not holding and SOURCE_TAG.match(old):  # the view's "[seen] " copied with the words
            holding = [x for x in lines.values() if SOURCE_TAG.sub("", old, count=1) in x.text]
        if len(holding) == 1:
            return holding[0]
        if not holding:
            raise ToolError(
                f"No line of notebook '{title}' holds the words {_cut(old)} (as you last viewed it); nothing was "
                f"changed. View {ROOT}/{title} and give words of one line: each line is changed on its own, so "
                "old_str cannot run across two."
            )
        numbers = ", ".join(f"#{x.n}" for x in holding)
        raise ToolError(
            f"The words {_cut(old)} are in {len(holding)} lines of notebook '{title}' ({numbers}); nothing was "
            "changed. Give more of the words, enough to be in one line only."
        )

    def _add_all(self, title: str, text: str, why: str, key_of: tuple[str, ...]) -> str:
        """Each non-blank line of TEXT added as a line of its own (unless a live line already says exactly it),
        said as one sentence; a refusal partway says what was added before it."""
        lines = self._seen.setdefault(title, {})
        added: list[int] = []
        already: list[int] = []
        for part, raw in enumerate(text.splitlines()):
            tag = SOURCE_TAG.match(raw.strip())
            words = SOURCE_TAG.sub("", raw.strip(), count=1)
            if not words:
                continue
            same = next((x for x in lines.values() if x.text == words), None)
            if same is not None:
                already.append(same.n)
                continue
            source = tag.group(1) if tag else self.source
            body = {"text": words, "source": source, "why": why}
            path = f"/api/notebooks/{_quoted(title)}/lines"
            try:
                written = self._call("POST", path, body, key=_key(*key_of, self._heads.get(title, 0), part, source))
            except _Refusal as refused:
                done = f"Added {_numbers(added)}, then the next" if added else "The first"
                raise ToolError(
                    f"{done} line was refused: {refused.message} Nothing after it was written; the same call "
                    "again (put right if the refusal says so) adds only what is missing."
                ) from None
            lines[written["n"]] = Line(written["n"], words, source, written["seq"])
            self._learned(title, written["seq"])
            added.append(written["n"])
        said = [f"Added {_numbers(added)}." if added else ""]
        if already:
            said.append(f"Already there, not added again: {_numbers(already)}.")
        return " ".join(x for x in said if x)

    def _call(
        self,
        method: str,
        path: str,
        body: dict | None = None,
        *,
        key: str | None = None,
        params: dict | None = None,
        tag: str | None = None,
    ) -> Any:
        """The answer's JSON (a GET's with its ETag as `_etag`), or None for a 304 to `tag`."""
        headers = dict(self._headers)
        if key is not None:  # the same content makes the same key: a retried call is answered, not written twice
            headers["Idempotency-Key"] = key
        if tag:
            headers["If-None-Match"] = tag
        if body is not None and self.session is not None and "/lines" in path:  # a line's write, not a create
            body = {**body, "session": self.session}
        try:
            answer = self._http.request(method, self.url + path, json=body, params=params, headers=headers)
        except httpx2.HTTPError as failed:
            if method != "GET":  # a write may have landed unseen: the next command reads the notebooks again first
                self._seen.clear()
                self._tags.clear()
            raise ToolError(
                f"The notebooks server at {self.url} could not be reached ({type(failed).__name__}); a write may or "
                "may not have been made. The same call again is safe: it is written at most once."
            ) from None
        if answer.status_code == 304 and tag:
            return None
        if answer.is_success:
            found = answer.json()
            if method == "GET" and isinstance(found, dict):
                found["_etag"] = answer.headers.get("ETag", "")
            return found
        try:
            error = answer.json()["error"]
            raise _Refusal(str(error["code"]), " ".join(str(error["message"]).split()), error)
        except (ValueError, KeyError, TypeError):
            raise ToolError(f"The notebooks server answered HTTP {answer.status_code} without saying why.") from None


class _Refusal(ToolError):
    """The API's refusal: its code, its message, and the fields it carries besides."""

    def __init__(self, code: str, message: str, fields: dict[str, Any]) -> None:
        super().__init__(message)
        self.code, self.message, self.fields = code, message, fields


def _title_of(path: str, *, root_allowed: bool = False) -> str | None:
    """The notebook a path names (/memories/<title>), None for /memories itself, or a refusal saying the rule."""
    if path.rstrip("/") == ROOT:
        if root_allowed:
            return None
        raise ToolError(f"{ROOT} holds the notebooks; name one: {ROOT}/<title>.")
    if not path.startswith(ROOT + "/"):
        raise ToolError(f"Memory paths start with {ROOT}/; {_cut(path)} does not.")
    title = path[len(ROOT) + 1 :].rstrip("/")
    if "/" in title:
        raise ToolError(f"{_cut(path)} is in a folder; there are none here: each notebook is {ROOT}/<title>.")
    if not TITLE.fullmatch(title):  # not match: "$" would let a title end in a line break
        raise ToolError(f"{_cut(title)} cannot be a notebook's title: a title is {TITLE_RULE}.")
    return title


def _key(*parts: object) -> str:
    return "memory-" + hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()


def _quoted(title: str) -> str:
    return urllib.parse.quote(title, safe="")


def _cut(value: str, most: int = 200) -> str:
    """A value the model sent, quoted in a refusal: cut, so a 100,000-character path is not said back whole."""
    return repr(value) if len(value) <= most else f"{value[:most]!r}… ({len(value)} characters)"


def _shown(line: Line) -> str:
    """A line as viewed: a line break in its words indented (no line of its own to pass for another), any other
    control or format character escaped, as the API's turn does."""
    words = line.text if line.text.isprintable() else "".join(map(_seen_as, line.text.replace("\r\n", "\n")))
    return f"{str(line.n).rjust(NUMBER_WIDTH)} [{line.source}]\t{words}"


def _seen_as(ch: str) -> str:
    if ch.isprintable() or ch in "\t\u200c\u200d" or unicodedata.category(ch) == "Zs":
        return ch
    return "\n" + " " * NUMBER_WIDTH + "\t" if ch in LINE_BREAKS else ascii(ch)[1:-1]


def _numbers(numbers: list[int]) -> str:
    return ("line " if len(numbers) == 1 else "lines ") + ", ".join(f"#{n}" for n in numbers)
