"""Reading JSON Lines into rows: every row is checked against the notebook as it stands before
anything is written, and a refusal names the file's line number. No database access here."""

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from . import log
from .errors import Invalid
from .models import How, Source

SOURCES = frozenset(Source.values)
OPS = ("add", "edit", "strike", "adopt")
MAX_NUMBER = 2**31 - 1  # the n column's limit on every database
MAX_TIME = 253402300799.0  # 9999-12-31T23:59:59Z: later times cannot be shown as dates


@dataclass
class FoldedLine:
    source: str
    words: str
    live: bool = True
    texts: list[dict[str, Any]] = field(default_factory=list)  # every add/edit of the line, for adoption


@dataclass
class Fold:
    """The notebook's lines as the rows so far leave them: enough to judge the next row."""

    lines: dict[int, FoldedLine] = field(default_factory=dict)
    top_n: int = 0
    seq: int = 0
    at: float = 0.0


def _fail(line_no: int, message: str) -> Invalid:
    return Invalid(f"line {line_no}: {message}", line=line_no)


def _text(obj: dict, key: str, line_no: int, *, required: bool, limit: int) -> str:
    value = obj.get(key)
    if value is None or value == "":
        if required:
            raise _fail(line_no, f"'{key}' is missing or empty")
        return ""
    if not isinstance(value, str):
        raise _fail(line_no, f"'{key}' must be a string, not {type(value).__name__}")
    if required and not value.strip():
        raise _fail(line_no, f"'{key}' is blank")
    if len(value) > limit:
        raise _fail(line_no, f"'{key}' is {len(value)} characters long; the limit is {limit}")
    if "\x00" in value:
        raise _fail(line_no, f"'{key}' contains a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _fail(line_no, f"'{key}' holds a lone surrogate, which is not text") from None
    return value


def _number(obj: dict, key: str, line_no: int, *, required: bool = True) -> int | None:
    value = obj.get(key)
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_NUMBER:
        raise _fail(line_no, f"'{key}' must be a whole number from 1 to {MAX_NUMBER}, not {value!r}")
    return value


def _time(obj: dict, key: str, line_no: int, *, required: bool = True) -> float | None:
    value = obj.get(key)
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= MAX_TIME:
        raise _fail(line_no, f"'{key}' must be a time in epoch seconds (0 to {MAX_TIME:.0f}), not {value!r}")
    return float(value)


def parse(
    lines: Iterable[str],
    *,
    fold: Fold | None = None,
    default_by: str = "unknown",
    is_editor: Callable[[str], bool] = lambda name: name == "dad",
    max_words: int = 4000,
    max_reason: int = 2000,
    max_rows: int = 2_000_000,
    progress: Callable[[int], None] | None = None,
    start: int = 1,
    keep_texts: bool = True,
) -> tuple[list[dict[str, Any]], Fold]:
    """Check rows against the fold and return them as fields for the log, with the fold after them.

    `start` is the file's line number of the first line given, so a refusal names the line in the file.
    `keep_texts=False` skips keeping every text of every line (only a backup's are needed, for adoption).
    """
    fold = fold or Fold()
    out: list[dict[str, Any]] = []
    for line_no, raw in enumerate(lines, start=start):
        if progress and line_no % 1000 == 0:
            progress(line_no)
        if not raw.strip():
            continue
        if len(out) >= max_rows:
            raise _fail(line_no, f"more than {max_rows} rows; the limit per import is {max_rows}")
        try:
            obj = json.loads(raw)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise _fail(line_no, f"not valid JSON ({exc})") from None
        if not isinstance(obj, dict):
            raise _fail(line_no, "a row must be a JSON object")
        op = obj.get("op")
        if op not in OPS:
            raise _fail(line_no, f"unknown op {op!r}: use add, edit, strike or adopt")
        n = _number(obj, "n", line_no)
        at = _time(obj, "at", line_no)
        if at < fold.at:
            raise _fail(line_no, f"'at' {at} goes back in time (the row before is at {fold.at})")
        by = _text(obj, "by", line_no, required=op in ("edit", "strike"), limit=80) or default_by
        why = _text(obj, "why", line_no, required=op in ("edit", "strike"), limit=max_reason)
        fields: dict[str, Any] = {"op": op, "n": n, "by": by, "why": why, "at": at, "line_no": line_no}
        current = fold.lines.get(n)
        if op == "add":
            if n != fold.top_n + 1:
                raise _fail(line_no, f"a new line takes number {fold.top_n + 1}, not {n} (numbers are never reused)")
            source = obj.get("source")
            if source not in SOURCES:
                raise _fail(line_no, f"unknown source {source!r}")
            words = _text(obj, "text", line_no, required=True, limit=max_words)
            fields.update(words=words, source=source)
            fold.lines[n] = FoldedLine(source=source, words=words)
            fold.top_n = n
        elif op == "edit":
            if current is None:
                raise _fail(line_no, f"edit of line #{n}, which does not exist")
            if not current.live:
                raise _fail(line_no, f"edit of line #{n}, which is retired")
            if "text" in obj:
                raise _fail(line_no, "an edit's words ride under 'to', never 'text'")
            words = _text(obj, "to", line_no, required=True, limit=max_words)
            source = obj.get("source")
            allowed = {current.source, Source.DAD_CORRECTION}
            if source is None:
                source = Source.DAD_CORRECTION if is_editor(by) else current.source
            elif source not in allowed:
                raise _fail(line_no, f"an edit keeps the line's source ({current.source}) or makes it dad_correction")
            fields.update(words=words, source=source)
            current.source, current.words = source, words
        elif op == "strike":
            if current is None:
                raise _fail(line_no, f"strike of line #{n}, which does not exist")
            if not current.live:
                raise _fail(line_no, f"strike of line #{n}, which is already retired")
            how = obj.get("how") or How.RETIRED
            if how not in How.values:
                raise _fail(line_no, f"unknown how {how!r}: use retired or merged")
            into = _number(obj, "into", line_no, required=False)
            if into is not None:
                if into == n:
                    raise _fail(line_no, f"line #{n} cannot be retired into itself")
                target = fold.lines.get(into)
                if target is None or not target.live:
                    raise _fail(line_no, f"'into' names line #{into}, which is not a live line")
            fields.update(how=how, into=into)
            current.live = False
        else:  # adopt: history only, never in the view
            words = _text(obj, "was", line_no, required=True, limit=max_words)
            source = obj.get("source") or ""
            if source and source not in SOURCES:
                raise _fail(line_no, f"unknown source {source!r}")
            fields.update(
                words=words,
                source=source,
                was_at=_time(obj, "was_at", line_no, required=False),
                was_by=_text(obj, "was_by", line_no, required=False, limit=80),
            )
            fold.top_n = max(fold.top_n, n)
        if keep_texts and op in ("add", "edit"):
            fold.lines[n].texts.append({"words": words, "source": fields["source"], "by": by, "at": at, "why": why})
        fold.seq += 1
        if "seq" in obj and obj["seq"] != fold.seq:
            raise _fail(line_no, f"'seq' is {obj['seq']!r} but this row is number {fold.seq} in the log")
        if "hash" in obj:
            if not isinstance(obj["hash"], str):
                raise _fail(line_no, "'hash' must be a string")
            fields["expect_hash"] = obj["hash"]
        fold.at = at
        out.append(fields)
    return out, fold


def adoptions(rewrite: Fold, backup: Fold, *, backup_name: str) -> list[dict[str, Any]]:
    """Adopted rows for every backup line the rewrite changed or dropped: the backup's words, as history."""
    out: list[dict[str, Any]] = []
    for n in sorted(backup.lines):
        old = backup.lines[n]
        new = rewrite.lines.get(n)
        if new is not None and new.words == old.words:
            continue
        for text in old.texts:
            why = f"recovered from {backup_name}" + (f": {text['why']}" if text["why"] else "")
            out.append(
                {
                    "op": "adopt",
                    "n": n,
                    "words": text["words"],
                    "source": text["source"],
                    "why": why,
                    "was_at": text["at"],
                    "was_by": text["by"],
                }
            )
    return out


def dumps_all(rows: Iterable[dict[str, Any]]) -> str:
    return "".join(log.dumps(r) + "\n" for r in rows)
