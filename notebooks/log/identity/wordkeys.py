"""The salt of a notebook's words: a server-keyed HMAC of its title and the words (docs/file-format.md), so a
redacted digest cannot be guessed, one redaction takes every copy, and two notebooks' digests say nothing."""

import hashlib
import hmac
from collections.abc import Callable

from django.conf import settings

from notebooks.log.files import rowformat

CONTEXT = b"notebooks words salt\x00"


def derived_secret(configured: str, label: bytes) -> bytes:
    """`configured`, or a secret derived from SECRET_KEY under `label` (so not the very key Django signs with)."""
    if configured:
        return configured.encode("utf-8")
    return hmac.new(settings.SECRET_KEY.encode("utf-8"), label, hashlib.sha256).digest()


def server_secret() -> bytes:
    """NOTEBOOK_WORDS_SECRET, or one derived from SECRET_KEY (a change of it: docs/RELIABILITY.md)."""
    return derived_secret(getattr(settings, "NOTEBOOK_WORDS_SECRET", ""), b"notebooks words")


def keyer(title: str) -> Callable[[str], tuple[str, str]]:
    """keyed for many words of one notebook: the HMAC keyed once, not per row (5% of a 100,000-row import)."""
    started = hmac.new(server_secret(), CONTEXT + title.encode("utf-8") + b"\x00", hashlib.sha256)

    def keyed_here(words: str) -> tuple[str, str]:
        mac = started.copy()
        mac.update(words.encode("utf-8"))
        salt = mac.hexdigest()[:32]
        return salt, rowformat.salted_digest(salt, words)

    return keyed_here


def keyed(title: str, words: str) -> tuple[str, str]:
    """The salt (32 hex digits) and keyed digest of these words in the notebook `title`."""
    return keyer(title)(words)


def salt_of(title: str, words: str) -> str:
    return keyed(title, words)[0]


def lookups(title: str, words: str) -> tuple[str, str]:
    """Both digests these words may have been stored under in the notebook: keyed (now), plain (before)."""
    return keyed(title, words)[1], rowformat.digest_of(words)
