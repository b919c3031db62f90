"""Signed rows: what proves which outside writer wrote a vault row, as docs/vault.md ("Writer keys") defines it:
`kid` and `mac`, the HMAC of the notebook's title and the row's canonical bytes. Pure Python, no Django, no I/O."""

import hashlib
import hmac
import json
import re
from collections.abc import Callable
from typing import Any

KID = "kid"
MAC = "mac"
CONTEXT = b"notebooks row v1\x00"  # what the HMAC covers starts so: no other message of ours reads the same
KEY_ID = re.compile(r"wk[0-9a-f]{10}")
MAC_PATTERN = re.compile(r"[0-9a-f]{64}")
SECRET = re.compile(r"nbw_[A-Za-z0-9_-]{43}")


class NotCanonical(ValueError):
    """A row with no canonical bytes: a number JSON cannot write (NaN, infinity) or text that is not UTF-8."""


def canonical_bytes(row: dict[str, Any]) -> bytes:
    """Every field but `kid` and `mac`, sorted: the file's key order and spacing do not count."""
    fields = {k: v for k, v in row.items() if k not in (KID, MAC)}
    try:
        text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        return text.encode("utf-8")
    except (ValueError, TypeError) as exc:  # NaN or infinity, a lone surrogate, a value JSON has no form for
        raise NotCanonical(f"the row has no canonical form ({exc})") from None


def message(notebook: str, row: dict[str, Any]) -> bytes:
    """What a row's mac is the HMAC of (the title in it: a row signed for one notebook proves nothing elsewhere)."""
    return CONTEXT + notebook.encode("utf-8") + b"\x00" + canonical_bytes(row)


def mac_of(row: dict[str, Any], *, notebook: str, secret: str) -> str:
    return hmac.new(secret.encode("utf-8"), message(notebook, row), hashlib.sha256).hexdigest()


def sign(row: dict[str, Any], key_id: str, secret: str, *, notebook: str) -> dict[str, Any]:
    """The row with `kid` and `mac` (any it carried replaced); the row given is not changed."""
    if not KEY_ID.fullmatch(key_id):
        raise ValueError(f"{key_id[:40]!r} is not a writer key id (wk and 10 hex digits)")
    if not SECRET.fullmatch(secret):
        raise ValueError("that is not a writer key's secret (nbw_ and 43 characters)")
    fields = {k: v for k, v in row.items() if k not in (KID, MAC)}
    return {**fields, KID: key_id, MAC: mac_of(fields, notebook=notebook, secret=secret)}


def verify(row: dict[str, Any], *, notebook: str, secret_for: Callable[[str], str | None]) -> tuple[str | None, str]:
    """(the key id whose secret made the row's mac, "") or (None, why it proves nothing); liveness is the caller's."""
    key_id, mac = row.get(KID), row.get(MAC)
    if key_id is None and mac is None:
        return None, "the row is not signed (no kid, no mac)"
    if not isinstance(key_id, str) or not KEY_ID.fullmatch(key_id):
        return None, "the row's kid is not a writer key id"
    if not isinstance(mac, str) or not MAC_PATTERN.fullmatch(mac):
        return None, f"the row names key {key_id} but its mac is not 64 lowercase hex digits"
    secret = secret_for(key_id)
    if secret is None:
        return None, f"no writer key {key_id} was ever issued"
    try:
        expected = mac_of(row, notebook=notebook, secret=secret)
    except NotCanonical as exc:
        return None, str(exc)
    if not hmac.compare_digest(expected, mac):
        return None, f"the row's mac does not match key {key_id} (changed since it was signed, or not by it)"
    return key_id, ""
