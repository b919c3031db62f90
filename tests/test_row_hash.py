"""The row hash is the sha256 of the previous hash and the row's canonical JSON (sorted keys, no spaces)."""

import hashlib
import json

from bench import data
from notebooks import log


def canonical_hash(prev_hash: str, fields: dict) -> str:
    """The definition, written the slow and obvious way."""
    content = {k: fields.get(k) for k in log.HASHED_FIELDS}
    for k in ("digest", "source", "by", "why", "how", "was_by"):
        content[k] = content[k] or ""
    content["at"] = float(content["at"])
    if content["was_at"] is not None:
        content["was_at"] = float(content["was_at"])
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256((prev_hash + text).encode("utf-8")).hexdigest()


def test_it_hashes_every_kind_of_row_as_the_definition_does():
    rows = [dict(r, seq=i, digest=log.digest_of(str(i))) for i, r in enumerate(data.rows(300, seed=5), start=1)]
    rows += [
        {"seq": 1, "op": "adopt", "n": 3, "at": 5, "was_at": 3, "was_by": 'dåd \u2028 "q"', "why": "é\n", "by": "x"},
        {"seq": 2, "op": "strike", "n": 1, "at": 1.5, "by": "dad", "why": "why", "how": "merged", "into": 4},
        {"seq": 3, "op": "add", "n": 9, "at": 10**10, "by": "", "source": None, "extra": "ignored"},
    ]
    prev = log.GENESIS
    for row in rows:
        assert log.row_hash(prev, row) == canonical_hash(prev, row)
        prev = log.row_hash(prev, row)
