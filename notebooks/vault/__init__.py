"""The vault: every notebook mirrored as its append-only JSONL file in a git repository.

Vault(path).sweep()            one sweep: outside appends imported, new rows written, one commit
watch(interval=...)            sweeps until stopped
vault_take / vault_checkpoint / vault_land / vault_abandon   the sessions' side in git
"""

from .claims import claimed_titles, open_session_titles
from .git import GitError
from .mirror import FileResult, SweepResult, Vault, canonical_bytes
from .sessions import Landed, vault_abandon, vault_checkpoint, vault_enabled, vault_land, vault_take
from .watch import watch

__all__ = [
    "FileResult",
    "GitError",
    "Landed",
    "SweepResult",
    "Vault",
    "canonical_bytes",
    "claimed_titles",
    "open_session_titles",
    "vault_abandon",
    "vault_checkpoint",
    "vault_enabled",
    "vault_land",
    "vault_take",
    "watch",
]
