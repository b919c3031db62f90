"""The row format: how a row is hashed into its notebook's chain and how it reads as JSON Lines (docs/file-format.md:
every field added since the seed's is hashed only when set, so older rows keep their hashes and readers their view)."""

import hashlib
import json
from math import isfinite
from typing import Any

from notebooks.log.rules.lines import GENESIS  # noqa: F401 - the chain's start, read here with the row format

GAME_ONLY = "Write only what the game taught you in this notebook; it is not the coordination log."

# The field that carries a row's words, by op: an edit's words never ride under "text",
# because an older reader takes any row with "text" as a new line.
WORDS_FIELD = {"add": "text", "edit": "to", "adopt": "was"}

HASHED_FIELDS = ("seq", "op", "n", "digest", "source", "by", "why", "how", "into", "at", "was_at", "was_by")
PROPOSE = "propose"  # a session's pending row (fold.py)
# The field a proposal's words ride under, by the op it proposes: never "text" or "to", which older readers take.
PROPOSED_WORDS_FIELD = {"add": "proposed_text", "edit": "proposed_to"}


def redacted_text(why: str) -> str:
    """What view, history, turn and export show in place of redacted words."""
    return f"[redacted: {why}]"


def digest_of(words: str) -> str:
    """The plain sha256 of words: the digest of words written before keyed digests."""
    return hashlib.sha256(words.encode("utf-8")).hexdigest()


KEYED = "k"  # a keyed digest starts with it: never a hex digit, so it is told from a plain one after the words go


def salted_digest(salt: str, words: str) -> str:
    """The keyed digest of words with their salt: "k" and the first 63 hex digits of sha256(salt + words)."""
    return KEYED + hashlib.sha256((salt + words).encode("utf-8")).hexdigest()[:63]


def is_keyed(digest: str | None) -> bool:
    """Whether a digest is keyed (no guess can be checked against it once its salt is gone)."""
    return bool(digest) and digest.startswith(KEYED)  # type: ignore[union-attr]


def words_digest(words: str, salt: str | None) -> str:
    """The digest words with this salt have: keyed with a salt, plain without (older words)."""
    return salted_digest(salt, words) if salt else digest_of(words)


_ENCODE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_string = json.encoder.encode_basestring  # the encoder's own escaping of a string, with ensure_ascii=False


def row_hash(prev_hash: str, fields: dict[str, Any]) -> str:
    """Hash of a row: its canonical content (HASHED_FIELDS, words by digest only, as one JSON object with sorted
    keys, separators "," and ":", not ASCII-escaped) chained to the previous row."""
    get = fields.get
    return hash_of(
        prev_hash, get("at"), get("by"), get("digest"), get("how"), get("into"), get("n"), get("op"),
        get("redacts"), get("seq"), get("source"), get("was_at"), get("was_by"), get("why"),
        get("moved_notebook"), get("moved_n"), get("proposes"), get("lands"), get("claimed_at"),
    )  # fmt: skip


def hash_of(
    prev_hash: str, at: Any, by: Any, digest: Any, how: Any, into: Any, n: Any, op: Any, redacts: Any, seq: Any,
    source: Any, was_at: Any, was_by: Any, why: Any, moved_notebook: Any = None, moved_n: Any = None,
    proposes: Any = None, lands: Any = None, claimed_at: Any = None,
) -> str:  # fmt: skip
    """row_hash of the fields one by one, without a dict for each row of an import: the usual row written with json's
    own string escaper, at half the encoder's cost; anything else by the encoder, which defines the bytes."""
    at = float(at)
    if was_at is not None:
        was_at = float(was_at)
    if claimed_at is not None:
        claimed_at = float(claimed_at)
    if (
        type(n) is int
        and type(seq) is int
        and (into is None or type(into) is int)
        and (moved_n is None or type(moved_n) is int)
        and (lands is None or type(lands) is int)
        and isfinite(at)
        and (was_at is None or isfinite(was_at))
        and (claimed_at is None or isfinite(claimed_at))
    ):
        try:  # a field that is not text where text is expected raises TypeError: the encoder decides
            redacted = f'"redacts":{_string(redacts)},' if redacts else ""  # only when set, in sorted key order
            moved = (  # only when set, in sorted key order ("moved_n" sorts before "moved_notebook")
                f'"moved_n":{"null" if moved_n is None else moved_n},"moved_notebook":{_string(moved_notebook)},'
                if moved_notebook
                else ""
            )
            landed = f'"lands":{lands},' if lands is not None else ""  # only when set, in sorted key order
            proposed = f'"proposes":{_string(proposes)},' if proposes else ""
            claimed = f'"claimed_at":{claimed_at!r},' if claimed_at is not None else ""
            text = (
                f'{{"at":{at!r},"by":{_string(by or "")},{claimed}"digest":{_string(digest or "")},'
                f'"how":{_string(how or "")},"into":{"null" if into is None else into},{landed}{moved}"n":{n},'
                f'"op":{_string(op)},{proposed}{redacted}"seq":{seq},"source":{_string(source or "")},'
                f'"was_at":{"null" if was_at is None else repr(was_at)},"was_by":{_string(was_by or "")},'
                f'"why":{_string(why or "")}}}'
            )
        except TypeError:
            pass
        else:
            return hashlib.sha256((prev_hash + text).encode("utf-8")).hexdigest()
    texts = {"by": by, "digest": digest, "how": how, "source": source, "was_by": was_by, "why": why}
    content = {"at": at, "into": into, "n": n, "op": op, "seq": seq, "was_at": was_at}
    content.update((key, value or "") for key, value in texts.items())
    # Each field added since the seed's is hashed only when set, so the rows from before it keep their hashes.
    added = {"redacts": redacts or None, "proposes": proposes or None, "lands": lands, "claimed_at": claimed_at}
    content.update((key, value) for key, value in added.items() if value is not None)
    if moved_notebook:
        content.update(moved_n=moved_n, moved_notebook=moved_notebook)
    encoded = _ENCODE(dict(sorted(content.items())))  # in sorted key order, as the fast path writes it
    return hashlib.sha256((prev_hash + encoded).encode("utf-8")).hexdigest()


def export_row(row: dict[str, Any], words: str | None, redacted_why: str | None = None) -> dict[str, Any]:
    """One row as its JSON Lines object; redacted words read "[redacted: why]" beside their keyed digest, if keyed."""
    op = row["op"]
    out: dict[str, Any] = {"op": op, "n": row["n"]}
    if redacted_why is not None:
        words = redacted_text(redacted_why)
    if op == PROPOSE:  # the proposed op's fields, its words under a field no older reader takes
        op = out["proposes"] = row["proposes"]
    inner = _fields(op, row, words)
    if "proposes" in out and op in PROPOSED_WORDS_FIELD:
        inner = {PROPOSED_WORDS_FIELD[op] if k == WORDS_FIELD[op] else k: v for k, v in inner.items()}
    out.update(inner)
    if row.get("lands") is not None:  # a landed copy of a session's proposal
        out["lands"] = row["lands"]
    if redacted_why is not None:
        out.update(redacted=True, digest=row["digest"] if is_keyed(row["digest"]) else None)
    elif row.get("salt") and words is not None:  # the digest too: an older checker takes it as given
        out.update(digest=row["digest"], salt=row["salt"])
    out["at"] = row["at"]
    if row.get("claimed_at") is not None:  # the time an outside writer gave; `at` is the log's
        out["claimed_at"] = row["claimed_at"]
    out.update(seq=row["seq"], hash=row["hash"])
    return out


def _fields(op: str, row: dict[str, Any], words: str | None) -> dict[str, Any]:
    """A row's fields after op and n, in the seed's order with our extras after."""
    said = {"by": row["by"], "why": row["why"]}
    if op == "strike":
        out = {"how": row["how"], "into": row["into"], **said}
        if row.get("moved_notebook"):  # moved to another notebook
            out.update(moved_to=row["moved_notebook"], moved_to_n=row["moved_n"])
        return out
    if op == "redact":
        return {"redacts": row["redacts"] if is_keyed(row["redacts"]) else None, **said}
    out = {WORDS_FIELD[op]: words, "source": row["source"], **said}  # add, edit or adopt
    if op == "adopt":
        out.update(was_at=row["was_at"], was_by=row["was_by"])
    if op == "add" and row.get("into") is not None:  # a restore: kept in the row's `into` (hashed there)
        out["restores"] = row["into"]
    if op == "add" and row.get("moved_notebook"):  # moved here from another notebook, with the words' author and time
        out.update(moved_from=row["moved_notebook"], moved_from_n=row["moved_n"])
        out.update(was_by=row["was_by"], was_at=row["was_at"])
    return out


def dumps(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))
