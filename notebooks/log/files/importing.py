"""Reading JSON Lines into rows: each line parsed and judged by the one decision (decision.py) before anything is
written; a refusal names the file's line and quotes at most a few hundred characters of a value. No database access."""

import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from notebooks.log.files import rowformat
from notebooks.log.rules import checks, decision
from notebooks.log.rules.checks import MAX_NAME, MAX_NUMBER, MAX_TIME
from notebooks.log.rules.errors import Invalid, NotebookError
from notebooks.log.rules.fold import PROPOSABLE, PROPOSE
from notebooks.models import TITLE_PATTERN, How, Source

SOURCES = frozenset(Source.values)
HOWS = frozenset(How.values)  # How.values builds a new list on every read: 100k rows read it 30k times
RETIRED = How.RETIRED.value
MOVED = How.MOVED.value
OPS = ("add", "edit", "strike", "adopt", "redact", "propose")
TITLE = re.compile(TITLE_PATTERN)
HEX = frozenset("0123456789abcdef")
KEYED = HEX | {rowformat.KEYED}  # a digest's first character
# A row appended to an existing notebook is hashed with the time the log gives it: a hash of the writer's cannot hold.
APPENDED_HASH = (
    "a row appended to an existing notebook carries no 'hash': the log gives it its time and its place in the chain "
    "(leave 'hash' out; your 'at' is kept as the row's claimed_at)"
)
# The same for a notebook that exists with no rows (an empty view of it could have been read), where a whole file
# with hashes is most likely a restore: the operator's door keeps its times.
EMPTY_HASH = (
    "this notebook exists with no rows, so the rows of its file are appended: they carry no 'hash' and take the log's "
    "time. To bring in a whole notebook with its own hashes and times, the operator imports it: `notebook import FILE "
    "--title TITLE`, accepted while the notebook has no rows"
)


def parse(
    lines: Iterable[str], *, state: decision.State | None = None, **options: Any
) -> tuple[list[dict[str, Any]], decision.State]:
    """checked_rows (with these `options`) as a list, with the state after them."""
    state = state or decision.State()
    return list(checked_rows(lines, state=state, **options)), state


def checked_rows(
    lines: Iterable[str],
    *,
    state: decision.State,
    door: decision.Door = decision.IMPORT,
    is_editor: Callable[[str], bool] = lambda name: False,
    max_words: int = 4000,
    max_reason: int = 2000,
    max_rows: int = 2_000_000,
    progress: Callable[[int], None] | None = None,
    start: int = 1,
    keep_texts: bool = True,
    latest: float = MAX_TIME,
    attribute: Callable[[dict[str, Any], str, int], tuple[str, bool]] | None = None,
    keyed: Callable[[str], tuple[str, str]] | None = None,
    session_of: Callable[[str, bool, int], int | None] | None = None,
) -> Iterator[dict[str, Any]]:
    """parse, a row at a time, each judged and folded into `state` before it is given, so an import writes as it reads.
    `attribute`: whom a row is by and as the editor or not; `session_of`: the open session whose proposal it is."""
    latest = min(latest, MAX_TIME)
    log_time = door.appended
    decide, fold_in = decision.decide, decision.apply
    count = 0
    for line_no, raw in enumerate(lines, start=start):
        if progress and line_no % 1000 == 0:
            progress(line_no)
        if not raw.strip():
            continue
        if count >= max_rows:
            raise fail(line_no, f"more than {max_rows} rows; the limit per import is {max_rows}")
        try:
            obj = loads(raw)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise fail(line_no, f"not valid JSON ({exc})") from None
        if not isinstance(obj, dict):
            raise fail(line_no, "a row must be a JSON object")
        op = obj.get("op")
        if op not in OPS:
            raise fail(line_no, f"unknown op {quoted(op)}: use add, edit, strike, adopt, redact or propose")
        n = number_of(obj, "n", line_no)
        if log_time:  # the writer's time, kept apart; the log's is stamped on append
            key = "at" if "at" in obj or "claimed_at" not in obj else "claimed_at"
            at, writer_at = None, time_of(obj, key, line_no, required=False, latest=latest)
            if key == "at" and "claimed_at" in obj and time_of(obj, "claimed_at", line_no, latest=latest) != writer_at:
                raise fail(line_no, "'at' and 'claimed_at' differ: give your time once, as 'at' (kept as claimed_at)")
            if "hash" in obj:
                raise fail(line_no, APPENDED_HASH if state.seq else EMPTY_HASH)
        else:
            at = time_of(obj, "at", line_no, latest=latest)
            writer_at = time_of(obj, "claimed_at", line_no, required=False, latest=latest)
        proposes = obj.get("proposes") if op == PROPOSE else None
        if op == PROPOSE and proposes not in PROPOSABLE:
            raise fail(line_no, f"a proposal proposes add, edit or strike, not {quoted(proposes)}")
        kind = proposes or op  # a proposal's fields are those of the op it proposes
        claimed = name_of(obj, "by", line_no, required=kind in ("edit", "strike", "redact"))
        if attribute is None:
            by = claimed or "unknown"
            editor = is_editor(by)
        else:
            by, editor = attribute(obj, claimed, line_no)
        why = text_of(obj, "why", line_no, required=kind in ("edit", "strike", "redact"), limit=max_reason)
        fields: dict[str, Any] = {"op": op, "n": n, "by": by, "why": why, "at": at, "line_no": line_no}
        if writer_at is not None:
            fields["claimed_at"] = writer_at
        session = session_of(by, editor, line_no) if session_of is not None and op != PROPOSE else None
        if session is not None:
            fields["session_id"] = session  # append() writes its add, edit or strike as a proposal (fold.py)
        if "lands" in obj:
            fields["lands"] = number_of(obj, "lands", line_no, required=False)
        _READ[op](obj, fields, line_no, max_words, latest, keyed)
        if "hash" in obj:
            if not isinstance(obj["hash"], str):
                raise fail(line_no, "'hash' must be a string")
            fields["expect_hash"] = obj["hash"]
        try:
            decide(state, fields, editor=editor, door=door, session=session)
        except NotebookError as exc:
            raise decision.in_file(exc, line_no) from None
        fold_in(state, fields, session)
        if keep_texts and op in ("add", "edit"):
            text = {key: fields[key] for key in ("words", "digest", "source")}
            state.texts.setdefault(n, []).append({**text, "by": by, "at": at, "why": why})
        if "seq" in obj and obj["seq"] != state.seq:
            raise fail(line_no, f"'seq' is {quoted(obj['seq'])} but this row is number {state.seq} in the log")
        count += 1
        yield fields
    decision.finish(state)


# Each field of a row, read and checked for type and limits: the usual value passed at once.
_scan = json.JSONDecoder().scan_once  # what json.loads runs, without its two regex matches and three calls a line


def loads(raw: str) -> Any:
    """json.loads(raw), the scanner at once for a line that is one JSON value (a refusal says what json.loads says)."""
    try:
        obj, end = _scan(raw, 0)
    except (StopIteration, ValueError, TypeError):
        return json.loads(raw)
    if end != len(raw) and not raw[end:].isspace():
        return json.loads(raw)
    return obj


def fail(line_no: int, message: str) -> Invalid:
    return Invalid(checks.bounded(f"line {line_no}: {message}"), line=line_no)


def quoted(value: Any) -> str:
    """A row's value as a refusal quotes it: its repr, cut (a 2 MB op must not make a 2 MB alarm)."""
    return checks.shown(repr(value))


def text_of(obj: dict, key: str, line_no: int, *, required: bool, limit: int) -> str:
    value = obj.get(key)
    # The usual value, passed at once: ASCII text (so no lone surrogate), not blank, no NUL, within the limit.
    if type(value) is str and value.isascii() and 0 < len(value) <= limit and not value.isspace():
        if "\x00" not in value:
            return value
    if value is None or value == "":
        if required:
            raise fail(line_no, f"'{key}' is missing or empty")
        return ""
    problem = checks.problem_of_text(value, limit=limit, required=required)
    if problem:
        raise fail(line_no, f"'{key}' {problem}")
    return value


def name_of(obj: dict, key: str, line_no: int, *, required: bool) -> str:
    """An actor's name a row gives, through the one name check (checks.problem_of_name) every other door runs."""
    value = obj.get(key)
    if type(value) is str and value.isascii() and value.isprintable() and 0 < len(value) <= MAX_NAME:
        if not value.isspace():  # the usual value, passed at once
            return value
    if value is None or value == "":
        if required:
            raise fail(line_no, f"'{key}' is missing or empty")
        return ""
    if not isinstance(value, str):
        raise fail(line_no, f"'{key}' must be text, not {type(value).__name__}")
    problem = checks.problem_of_name(value)
    if problem:
        raise fail(line_no, f"'{key}' {problem}")
    return value


WITHHELD = (
    "its words were redacted before digests were keyed, and their plain digest is withheld from exports (any guess "
    "could be checked against it), so this row's hash cannot be checked again; restore such a notebook from a "
    "backup (docs/RELIABILITY.md)"
)


def digest_of(obj: dict, key: str, line_no: int) -> str:
    value = obj.get(key)
    if value is None and key in obj and (key == "redacts" or obj.get("redacted") is True):
        raise fail(line_no, WITHHELD)
    if not isinstance(value, str) or not set(value[1:]) <= HEX or len(value) != 64 or not set(value[:1]) <= KEYED:
        raise fail(line_no, f"'{key}' must be a digest (64 lowercase hex digits, or 'k' and 63), not {quoted(value)}")
    return value


def number_of(obj: dict, key: str, line_no: int, *, required: bool = True) -> int | None:
    value = obj.get(key)
    if type(value) is int and 1 <= value <= MAX_NUMBER:  # the usual value, passed at once
        return value
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_NUMBER:
        raise fail(line_no, f"'{key}' must be a whole number from 1 to {MAX_NUMBER}, not {quoted(value)}")
    return value


def time_of(obj: dict, key: str, line_no: int, *, required: bool = True, latest: float = MAX_TIME) -> float | None:
    """A time no later than `latest` (at most MAX_TIME): a row from the future is a poisoned clock."""
    value = obj.get(key)
    if type(value) is float and 0 <= value <= latest:  # the usual value, passed at once
        return value
    if value is None and not required:
        return None
    if value is None:  # only a file that starts a notebook, or an import, brings its rows' own times
        raise fail(line_no, f"'{key}' is missing: this file brings its rows' own times, in epoch seconds")
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= MAX_TIME:
        raise fail(line_no, f"'{key}' must be a time in epoch seconds (0 to {MAX_TIME:.0f}), not {quoted(value)}")
    problem = checks.problem_of_future(value, latest)
    if problem:
        raise fail(line_no, f"'{key}' {problem}")
    return float(value)


def moved_of(obj: dict, key: str, line_no: int) -> tuple[str, int] | None:
    """The other end of a move a row names (`key` and `key`_n: a notebook's title and a line of it), or None."""
    title = obj.get(key)
    if title is None and obj.get(f"{key}_n") is None:
        return None
    if not isinstance(title, str) or not TITLE.fullmatch(title) or title != title.rstrip():
        raise fail(line_no, f"'{key}' must be a notebook's title, not {quoted(title)}")
    return title, number_of(obj, f"{key}_n", line_no)


# Each op's own fields, read and checked for type and limits (what may be written: decision.py).
Reader = Callable[[dict, dict[str, Any], int, int, float, "Callable[[str], tuple[str, str]] | None"], None]


def _source(obj: dict, line_no: int, *, required: bool = True) -> str:
    source = obj.get("source")
    if not required and not source:
        return ""
    if not isinstance(source, str) or source not in SOURCES:
        raise fail(line_no, f"unknown source {quoted(source)}")
    return source


def _words(obj: dict, fields: dict[str, Any], key: str, line_no: int, limit: int, keyed: Any) -> None:
    """A row's words, digest and salt; without a salt or a hash, the digest is keyed and the plain one kept beside."""
    if "digest" in obj and "salt" not in obj:
        fields.update(words=None, digest=digest_of(obj, "digest", line_no), salt=None)
        return
    words = text_of(obj, key, line_no, required=True, limit=limit)
    salt = obj.get("salt")
    if salt is not None and (not isinstance(salt, str) or not 0 < len(salt) <= 64 or not set(salt) <= HEX):
        raise fail(line_no, f"'salt' must be hex digits, not {quoted(salt)}")
    digest = rowformat.words_digest(words, salt)  # once, here: the log keeps it (append.py)
    if "digest" in obj and obj["digest"] != digest:
        raise fail(line_no, "'hash' does not match the row's content: its words are not the ones its digest covers")
    if salt is None and keyed is not None and "hash" not in obj:
        fields["plain"] = digest  # a redact row of the file may name the plain one
        salt, digest = keyed(words)
    fields.update(words=words, digest=digest, salt=salt)


def _was(obj: dict, line_no: int, latest: float) -> dict[str, Any]:
    """The author and time of words a row brings from elsewhere (an adopt's, a moved line's), when it gives them."""
    return {
        "was_at": time_of(obj, "was_at", line_no, required=False, latest=latest),
        "was_by": name_of(obj, "was_by", line_no, required=False),
    }


def _read_add(obj: dict, fields: dict[str, Any], line_no: int, limit: int, latest: float, keyed: Any) -> None:
    fields["source"] = _source(obj, line_no)
    _words(obj, fields, "text", line_no, limit, keyed)
    restores = number_of(obj, "restores", line_no, required=False)
    if restores is not None:
        fields["restores"] = restores
    came = moved_of(obj, "moved_from", line_no)
    if came is not None:  # moved here from another notebook (fold.py), with the words' author and time
        if restores is not None:
            raise fail(line_no, "an add restores a line of its notebook or moves one in, not both")
        fields.update(moved_notebook=came[0], moved_n=came[1], **_was(obj, line_no, latest))
    elif obj.get("was_at") is not None or obj.get("was_by"):  # kept only beside moved_from: refused, not dropped
        raise fail(line_no, "'was_at' and 'was_by' belong to a line moved in ('moved_from') or an adopt, not this add")


def _read_edit(obj: dict, fields: dict[str, Any], line_no: int, limit: int, latest: float, keyed: Any) -> None:
    if "text" in obj:
        raise fail(line_no, "an edit's words ride under 'to', never 'text'")
    _words(obj, fields, "to", line_no, limit, keyed)
    source = obj.get("source")
    if source is not None:
        if not isinstance(source, str):
            raise fail(line_no, f"unknown source {quoted(source)}")
        fields["source"] = source  # which sources an edit may give: decision.py


def _read_strike(obj: dict, fields: dict[str, Any], line_no: int, limit: int, latest: float, keyed: Any) -> None:
    how = obj.get("how") or RETIRED
    if not isinstance(how, str) or how not in HOWS:
        raise fail(line_no, f"unknown how {quoted(how)}: use retired, merged or moved")
    went = moved_of(obj, "moved_to", line_no)
    if (how == MOVED) != (went is not None):
        raise fail(line_no, "a strike how 'moved' names where it went in 'moved_to' and 'moved_to_n'; no other does")
    if went is not None:
        if obj.get("into") is not None:
            raise fail(line_no, "a moved line's 'into' stays empty: 'moved_to_n' names the line it became")
        fields.update(moved_notebook=went[0], moved_n=went[1])
    fields.update(how=how, into=number_of(obj, "into", line_no, required=False))


def _read_redact(obj: dict, fields: dict[str, Any], line_no: int, limit: int, latest: float, keyed: Any) -> None:
    fields["redacts"] = digest_of(obj, "redacts", line_no)
    fields["words"] = None


def _read_adopt(obj: dict, fields: dict[str, Any], line_no: int, limit: int, latest: float, keyed: Any) -> None:
    _words(obj, fields, "was", line_no, limit, keyed)
    fields.update(source=_source(obj, line_no, required=False), **_was(obj, line_no, latest))


def _read_proposal(obj: dict, fields: dict[str, Any], line_no: int, limit: int, latest: float, keyed: Any) -> None:
    """A session's proposal (fold.py): its op's own fields, its words under proposed_text or proposed_to."""
    proposes = obj["proposes"]
    if "text" in obj or "to" in obj:
        raise fail(line_no, "a proposal's words ride under 'proposed_text' or 'proposed_to', never 'text' or 'to'")
    fields["proposes"] = proposes
    fields["words"] = fields["digest"] = None
    if proposes == "add":
        fields["into"] = number_of(obj, "restores", line_no, required=False)
    if proposes in ("add", "edit"):
        fields["source"] = _source(obj, line_no)
        _words(obj, fields, rowformat.PROPOSED_WORDS_FIELD[proposes], line_no, limit, keyed)
    else:
        how = obj.get("how") or RETIRED
        if not isinstance(how, str) or how not in HOWS or how == MOVED:
            raise fail(line_no, f"unknown how {quoted(how)} for a proposal: use retired or merged")
        fields.update(how=how, into=number_of(obj, "into", line_no, required=False))


_READ: dict[str, Reader] = {
    "add": _read_add,
    "edit": _read_edit,
    "strike": _read_strike,
    "redact": _read_redact,
    "adopt": _read_adopt,
    PROPOSE: _read_proposal,
}
