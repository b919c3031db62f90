"""What the sessions code (notebooks/sessions/services.py) calls so take, checkpoint, land and abandon reach git.

Every function does nothing (and returns an empty value) unless a vault is configured (vault_enabled()).
A session object needs: pk, notebook.title, actor, plan, and vault_base (the base_sha stored at take).

    take:       with session_lock():
                    base_sha = base_for_take(title)              # before the transaction: pending drift committed
                    with transaction.atomic():
                        ... Session.objects.create(..., vault_base=base_sha)
    checkpoint: after the checkpoint event:   after_checkpoint(session, note)
    land:       with session_lock(), transaction.atomic():
                    ... the database's gates ...
                    land_in_git(session, summary, seqs)    # a Conflict rolls the land back: the session stays open
                    ... the land event ...
    abandon:    with session_lock(), transaction.atomic(): ... ; after_abandon(session, why)

The lock is taken before the database's own locks, as a sweep takes it, so the watcher and a session never
wait on each other in opposite orders. land_in_git is idempotent: a land retried after the database's commit
failed returns the semantic commit git already holds.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from django.conf import settings

if TYPE_CHECKING:
    from .sessions import Landed

# The vault's modules are imported when called: sessions.py imports this module, and the vault imports services.


def vault_enabled() -> bool:
    return bool(settings.NOTEBOOK_VAULT_ENABLED)


@contextmanager
def session_lock() -> Iterator[None]:
    """The vault's lock, when there is a vault; hold it around a take's or a land's transaction."""
    if not vault_enabled():
        yield
        return
    from .mirror import Vault

    with Vault().lock():
        yield


def base_for_take(title: str) -> str:
    """The base_sha to store on the new session ("" without a vault)."""
    if not vault_enabled():
        return ""
    from .sessions import vault_take

    return vault_take(title)


def after_checkpoint(session: Any, note: str) -> str | None:
    if not vault_enabled() or not session.vault_base:
        return None
    from .sessions import vault_checkpoint

    return vault_checkpoint(session.notebook.title, session_id=session.pk, base_sha=session.vault_base, note=note)


def land_in_git(session: Any, summary: str | None, seqs: "list[int] | tuple[int, ...]") -> "Landed | None":
    """The semantic commit (or the no-op); raises Conflict when the final gate refuses."""
    if not vault_enabled() or not session.vault_base:
        return None
    from .sessions import vault_land

    return vault_land(
        session.notebook.title,
        actor=session.actor,
        plan=session.plan,
        summary=summary or "",
        session_id=session.pk,
        base_sha=session.vault_base,
        seqs=list(seqs),
    )


def after_abandon(session: Any, why: str) -> str | None:
    if not vault_enabled() or not session.vault_base:
        return None
    from .sessions import vault_abandon

    return vault_abandon(session.notebook.title, session_id=session.pk, why=why)
