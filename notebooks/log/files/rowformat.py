"""The row format: how a row is hashed into its notebook's chain and how it reads as JSON Lines.

The interchange format is the seed's: add {op, n, text, source, at}, edit {op, n, to, by, why, at},
strike {op, n, how, into, by, why, at}, with at in epoch seconds. Extra fields ride along: an add that restores a
retired line names it in `restores` (the row's `into` column, hashed as `into`), so older readers see a plain add.
A merge is rows of these kinds only: an add of the new line (by whoever merged, with the source fold.merge_source
gave it, e.g. by dad, source seen when he kept her words) and a strike of each merged line, how "merged", into the
new line. The add says nothing of the merge: the strikes' `into` already do, and a field more would be hashed.
A line moved to another notebook is a strike here, how "moved", naming the notebook and line it went to
(`moved_to`, `moved_to_n`), and an add there naming where it came from (`moved_from`, `moved_from_n`) with the
words' author and time (`was_by`, `was_at`). Both pairs are the row's `moved_notebook` and `moved_n` columns,
hashed under those names only when set, so an older reader sees a plain strike and a plain add.
Words written since keyed digests (2026-12-01) have a keyed digest, "k" and 63 hex digits: the sha256 of a salt and
the words, the salt a server-keyed HMAC of the notebook and the words (log/identity/wordkeys.py), kept beside the
words and deleted with them. An export gives the salt with the words (`salt`), so a reader binds them to the digest;
once the words are redacted only the digest is left, and no guess can be checked against it. Older words have the plain
sha256 of the words; once they are redacted that digest is withheld (no `digest`, no `redacts`), since any guess
could be checked against it, and a checker takes such a row's hash as given.
A session's change is pending until it lands (fold.py): each of its rows is a proposal, op "propose", naming the op
it proposes in `proposes` (add, edit or strike) with that op's other fields as usual, its words under
`proposed_text` (an add's) or `proposed_to` (an edit's), never `text` or `to`. A land appends a landed copy of each,
a plain add, edit or strike naming the proposal's seq in `lands`. Both are hashed only when set, so older rows keep
their hashes; a reader that knows only add, edit and strike skips every proposal and reads the landed view.
The log keeps time: a row appended to an existing notebook from outside (a vault file) takes the server's time as
`at`, never before the head; the time its writer gave is kept in `claimed_at`, hashed only when set, shown in history
and never used by a view. A file that starts a notebook keeps its rows' own times (and any `claimed_at` they carry).
"""

import hashlib
import json
from math import isfinite
from typing import Any

GENESIS = "0" * 64
GAME_ONLY = "Write only what the game taught you in this notebook; it is not the coordination log."

# The field that carries a row's words, by op: an edit's words never ride under "text",
# because an older reader takes any row with "text" as a new line.
WORDS_FIELD = {"add": "text", "edit": "to", "adopt": "was"}

HASHED_FIELDS = ("seq", "op", "n", "digest", "source", "by", "why", "how", "into", "at", "was_at", "was_by")
PROPOSE = "propose"  # a session's pending row (fold.py)
# The field a proposal's words ride under, by the op it proposes: never "text" or "to", which older readers take.
PROPOSED_WORDS_FIELD = {"add": "proposed_text", "edit": "proposed_to"}

REDACTED_MARK = "[redacted: {why}]"


def redacted_text(why: str) -> str:
    """What view, history, turn and export show in place of redacted words."""
    return REDACTED_MARK.format(why=why)


def digest_of(words: str) -> str:
    """The plain sha256 of words: the digest of words written before keyed digests (rowformat docstring)."""
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
    """Hash of a row: its canonical content (words by digest only) chained to the previous row.

    The canonical content is HASHED_FIELDS as one JSON object with sorted keys, as json.dumps(..., sort_keys=True,
    separators=(",", ":"), ensure_ascii=False) writes it. The usual row (whole numbers, finite times, text) is
    written here with json's own string escaper, at half the cost of the encoder (a 100k-row import hashes every
    row); anything else goes through the encoder (_encoded_row_hash), which defines the bytes.
    """
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
    """row_hash of the fields one by one, in sorted order: an import hashes every row, without a dict for each."""
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
    fields = {
        "at": at, "by": by, "digest": digest, "how": how, "into": into, "n": n, "op": op, "redacts": redacts,
        "seq": seq, "source": source, "was_at": was_at, "was_by": was_by, "why": why,
        "moved_notebook": moved_notebook, "moved_n": moved_n, "proposes": proposes, "lands": lands,
        "claimed_at": claimed_at,
    }  # fmt: skip
    return _encoded_row_hash(prev_hash, fields)


def _encoded_row_hash(prev_hash: str, fields: dict[str, Any]) -> str:
    """row_hash by the JSON encoder: the dict is written in sorted key order and encoded by one kept encoder."""
    get = fields.get
    was_at = get("was_at")
    content = {
        "at": float(get("at")),
        "by": get("by") or "",
        "digest": get("digest") or "",
        "how": get("how") or "",
        "into": get("into"),
        "n": get("n"),
        "op": get("op"),
        "seq": get("seq"),
        "source": get("source") or "",
        "was_at": None if was_at is None else float(was_at),
        "was_by": get("was_by") or "",
        "why": get("why") or "",
    }
    redacts = get("redacts")
    if redacts:  # hashed only when set, so rows from before redaction keep their hashes
        content["redacts"] = redacts
    if get("moved_notebook"):  # hashed only when set, so rows from before moves keep their hashes
        content.update(moved_n=get("moved_n"), moved_notebook=get("moved_notebook"))
    if get("proposes"):  # hashed only when set, so rows from before proposals keep their hashes
        content["proposes"] = get("proposes")
    if get("lands") is not None:
        content["lands"] = get("lands")
    if get("claimed_at") is not None:  # hashed only when set, so rows from before the log kept time keep their hashes
        content["claimed_at"] = float(get("claimed_at"))
    content = dict(sorted(content.items()))  # in sorted key order, as the fast path writes it
    return hashlib.sha256((prev_hash + _ENCODE(content)).encode("utf-8")).hexdigest()


def export_row(row: dict[str, Any], words: str | None, redacted_why: str | None = None) -> dict[str, Any]:
    """One row as its JSON Lines object, in the seed's field order with our extras after.

    Words with a keyed digest are exported with it and their salt (`digest`, `salt`): a reader binds the two.
    Redacted words are exported as "[redacted: why]" with the words' keyed digest beside them, so the row's hash
    still checks when the file is imported again; a plain digest (older words) is withheld, as is a redact row's
    `redacts` naming one: any guess of the words could be checked against it (rowformat docstring).
    """
    op = row["op"]
    out: dict[str, Any] = {"op": op, "n": row["n"]}
    if redacted_why is not None:
        words = redacted_text(redacted_why)
    if op == PROPOSE:  # the proposed op's fields, its words under a field no older reader takes (docstring)
        op = row["proposes"]
        out["proposes"] = op
        inner = _fields(op, row, words)
        if op in PROPOSED_WORDS_FIELD:
            inner = {PROPOSED_WORDS_FIELD[op] if k == WORDS_FIELD[op] else k: v for k, v in inner.items()}
        out.update(inner)
    else:
        out.update(_fields(op, row, words))
    if row.get("lands") is not None:  # a landed copy of a session's proposal
        out["lands"] = row["lands"]
    if redacted_why is not None:
        out.update(redacted=True, digest=row["digest"] if is_keyed(row["digest"]) else None)
    elif row.get("salt") and words is not None:  # the digest too: an older checker takes it as given
        out.update(digest=row["digest"], salt=row["salt"])
    out["at"] = row["at"]
    if row.get("claimed_at") is not None:  # the time an outside writer gave; `at` is the log's
        out["claimed_at"] = row["claimed_at"]
    out["seq"] = row["seq"]
    out["hash"] = row["hash"]
    return out


def _fields(op: str, row: dict[str, Any], words: str | None) -> dict[str, Any]:
    """The fields of a row of this op after op and n, in the seed's order with our extras after."""
    out: dict[str, Any] = {}
    if op == "add":
        out.update(text=words, source=row["source"], by=row["by"], why=row["why"])
        if row.get("into") is not None:  # a restore: kept in the row's `into` (hashed there), named for readers
            out["restores"] = row["into"]
        if row.get("moved_notebook"):  # moved here from another notebook, with the words' author and time
            out.update(moved_from=row["moved_notebook"], moved_from_n=row["moved_n"])
            out.update(was_by=row["was_by"], was_at=row["was_at"])
    elif op == "edit":
        out.update(to=words, source=row["source"], by=row["by"], why=row["why"])
    elif op == "strike":
        out.update(how=row["how"], into=row["into"], by=row["by"], why=row["why"])
        if row.get("moved_notebook"):  # moved to another notebook
            out.update(moved_to=row["moved_notebook"], moved_to_n=row["moved_n"])
    elif op == "adopt":
        out.update(was=words, source=row["source"], by=row["by"], why=row["why"])
        out.update(was_at=row["was_at"], was_by=row["was_by"])
    elif op == "redact":
        redacts = row["redacts"]
        out.update(redacts=redacts if is_keyed(redacts) else None, by=row["by"], why=row["why"])
    return out


def dumps(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))
