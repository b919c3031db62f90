"""The vault: every notebook mirrored as its append-only JSONL file in a git repository (Vault(path).sweep(), watch,
and the sessions' side in git: vault_take, vault_checkpoint, vault_land, vault_abandon)."""

from .claims import claimed_titles
from .fileformat import canonical_bytes
from .git import GitError, VaultUnavailable
from .mirror import Vault
from .results import SweepResult
from .sessions import vault_abandon, vault_checkpoint, vault_enabled, vault_land, vault_take
from .watch import watch

__all__ = [
    "GitError",
    "SweepResult",
    "Vault",
    "VaultUnavailable",
    "canonical_bytes",
    "claimed_titles",
    "vault_abandon",
    "vault_checkpoint",
    "vault_enabled",
    "vault_land",
    "vault_take",
    "watch",
]
