"""The vault: every notebook mirrored as its append-only JSONL file in a git repository.

Vault(path).sweep()            one sweep: outside appends imported, new rows written, one commit
watch(interval=...)            sweeps until stopped
vault_take / vault_checkpoint / vault_land / vault_abandon   the sessions' side in git
"""

from .claims import claimed_titles, open_session_titles
from .fileformat import canonical_bytes
from .git import GitError, VaultUnavailable
from .landing import Landed
from .mirror import Vault
from .results import FileResult, SweepResult
from .sessions import (
    vault_abandon,
    vault_checkpoint,
    vault_enabled,
    vault_land,
    vault_land_check,
    vault_land_commit,
    vault_take,
)
from .watch import watch

__all__ = [
    "FileResult",
    "GitError",
    "Landed",
    "SweepResult",
    "Vault",
    "VaultUnavailable",
    "canonical_bytes",
    "claimed_titles",
    "open_session_titles",
    "vault_abandon",
    "vault_checkpoint",
    "vault_enabled",
    "vault_land",
    "vault_land_check",
    "vault_land_commit",
    "vault_take",
    "watch",
]
