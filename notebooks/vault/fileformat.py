"""A notebook's file in the vault: its export's lines, one JSON row each (rowformat's, so it reads back and imports
back as the same view and hash chain), and how two such files compare."""

import json
from collections.abc import Container

from notebooks.log.files import rowformat
from notebooks.log.views import selectors
from notebooks.models import Notebook

SUFFIX = ".jsonl"
# What an outside row gives that its logged row need not repeat: its place in the chain, the writer's proof (kept in
# the database: log/identity/outside.py) and its `by`, a claim the importer replaced by the proof.
IGNORED = frozenset({"seq", "hash", "kid", "mac", "by"})
REDACT_ROW = b'"op": "redact"'  # exactly once in each redact row of an export (quotes in values are escaped)


def canonical_lines(notebook: Notebook | None, *, after: int = 0) -> list[bytes]:
    """The notebook's rows after `after`, each exactly as `notebook export` prints it (without the newline)."""
    if notebook is None:
        return []
    return [rowformat.dumps(row).encode("utf-8") for row in selectors.rows(notebook, after=after)]


def canonical_bytes(notebook: Notebook) -> bytes:
    """The file a notebook is: its export's lines, each ending in a newline."""
    return b"".join(line + b"\n" for line in canonical_lines(notebook))


def split_lines(data: bytes) -> tuple[list[bytes], bytes | None]:
    """Complete lines and the unfinished last one (or None); only b"\\n" ends a line, not U+2028 as in splitlines."""
    if not data:
        return [], None
    parts = data.split(b"\n")
    last = parts.pop()
    return parts, (last or None)


def json_object(line: bytes) -> dict | None:
    """The line's JSON object; None when it is not one. UTF-8 only, as the importer reads it: json.loads of bytes
    would take a BOM, UTF-16 or surrogate bytes the importer then refuses."""
    try:
        found = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) else None


def rows_kept(old: list[bytes], new: list[bytes], gone: Container[str]) -> tuple[int, list[int]]:
    """How many rows of `old` begin `new`, each the same or with its words redacted since (their digest in `gone`);
    and the positions (from 1) of the redacted ones."""
    redacted = []
    for k, (was, now) in enumerate(zip(old, new, strict=False)):
        if was != now:
            if not redacted_since(was, now, gone):
                return k, redacted
            redacted.append(k + 1)
    return min(len(old), len(new)), redacted


def redacted_since(was: bytes, now: bytes, gone: Container[str]) -> bool:
    """Whether export line `now` is row `was` with its words redacted: the same row (its hash covers the words'
    digest, not the words), only the words (and their salt) differ, and a redact row of the log (`gone`) names
    the digest of the words `was` held: the keyed one `now` names, or the plain one `now` withholds. Or `was` is the
    row as a release before that withholding wrote it: a redacted row or a redact row naming the plain digest."""
    before, after = json_object(was), json_object(now)
    if before is None or after is None:
        return False
    differ = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    withheld = {"digest"} if after.get("redacted") is True else {"redacts"} if after.get("op") == "redact" else set()
    if differ and differ <= withheld:
        return all(_plain(before.get(k)) and before[k] in gone and k in after and after[k] is None for k in differ)
    if after.get("redacted") is not True:
        return False
    differ -= {"redacted", "digest", "salt"}
    if len(differ) != 1 or "hash" not in after or before.get("hash") != after["hash"]:
        return False
    words, salt = before.get(differ.pop()), before.get("salt")
    if not isinstance(words, str) or not (salt is None or isinstance(salt, str)):
        return False
    digest = rowformat.words_digest(words, salt)
    named = after.get("digest")
    return digest in gone and (named == digest if rowformat.is_keyed(digest) else named is None)


def _plain(digest: object) -> bool:
    return isinstance(digest, str) and not rowformat.is_keyed(digest)


def imported_already(outside: list[bytes], tail: list[bytes]) -> int:
    """How many of the outside rows, from the first, `tail` already holds in order (an earlier sweep imported them
    but could not rewrite the file); a row matches when every field it gives but IGNORED is the logged row's."""
    count, at = 0, 0
    for raw in outside:
        mine = json_object(raw)
        if mine is None:
            break
        while at < len(tail) and not _gives_same(mine, tail[at]):
            at += 1
        if at == len(tail):
            break
        count, at = count + 1, at + 1
    return count


def _gives_same(mine: dict, logged: bytes) -> bool:
    theirs = json_object(logged)
    if theirs is None:
        return False
    if mine.get("hash") is not None and mine.get("hash") == theirs.get("hash"):
        return mine == theirs  # a row the vault wrote: one changed by hand (its `by` made "dad") is not the same row
    if "claimed_at" in theirs:  # the log gave the row its time; the writer's is kept
        theirs = {**theirs, "at": theirs["claimed_at"]}
    return all(theirs.get(k) == v for k, v in mine.items() if k not in IGNORED)


def seq_and_author(line: bytes) -> tuple[int | None, str]:
    """A row's seq (None when it has none) and its `by` ("" when none), from its line."""
    obj = json_object(line) or {}
    seq = obj.get("seq")
    return (seq if isinstance(seq, int) else None), str(obj.get("by") or "")
