"""The hooks sessions call (notebooks/sessions/hooks.py) when a vault is configured; a session without vault_base has
none. The vault's lock is taken before the database's, as a sweep takes it, so the two never deadlock."""

import logging
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

from django.core.signals import setting_changed
from django.db import DatabaseError
from django.dispatch import receiver

from notebooks.log.rules.errors import Conflict, NotebookError
from notebooks.sessions import hooks
from notebooks.sessions import selectors as session_selectors
from notebooks.sessions.claims import open_session_on

from .claims import claimed_titles
from .git import GitError, VaultUnavailable
from .landing import Landed
from .mirror import Vault
from .sessions import vault_abandon, vault_checkpoint, vault_enabled, vault_land_check, vault_land_commit, vault_take

log = logging.getLogger(__name__)

# What a hook after the database's commit logs and leaves for the next sweep: a change that stands is never a 500.
LEFT_FOR_LATER = (NotebookError, OSError, DatabaseError)


@contextmanager
def unavailable(refused: str, then: str) -> Iterator[None]:
    """Git failing or the directory unwritable refuses the step whole (503): `refused` says what, `then` what stands."""
    try:
        yield
    except (GitError, OSError) as exc:
        wait = VaultUnavailable.retry_after
        cause = exc.message if isinstance(exc, GitError) else f"{type(exc).__name__}: {exc}"
        raise VaultUnavailable(
            f"{refused}: the vault could not be used ({cause}). {then}; try again in {wait} s."
        ) from exc


@contextmanager
def session_lock() -> Iterator[None]:
    with ExitStack() as held:
        with unavailable("Refused", "Nothing was done"):  # only taking the lock: what runs under it is not ours
            held.enter_context(Vault().lock())
        yield


def base_for_take(title: str) -> str:
    """The base_sha to store on the new session: the vault's head once pending drift is committed."""
    with unavailable(f"The take of {title!r} is refused", "No session was taken"):
        if title in claimed_titles():  # held: the take is refused in its transaction, the holder's file left claimed
            return Vault().git.head()
        return vault_take(title)


def check_land(session: Any, rows: Sequence[int]) -> None:
    """The vault's final gate and the drift before the land, ahead of the database's land; raises to refuse it."""
    if not session.vault_base:
        return
    lapsed = session_selectors.lapsed_before_land(session)
    holder = open_session_on(session.notebook) if lapsed else None
    if holder is not None:  # its commit would hold the holder's rows, which then could never land
        raise Conflict(
            f"Session #{holder.pk} of {holder.actor} is open on '{session.notebook.title}': land or discard it first, "
            f"then this lapsed session #{session.pk}. Nothing was written."
        )
    with unavailable(f"The land of session #{session.pk} is refused", "The session stays open"):
        vault_land_check(
            session.notebook.title, actor=session.actor, session_id=session.pk, base_sha=session.vault_base, seqs=rows,
            after_lapse=lapsed,
        )  # fmt: skip


def land_in_git(session: Any, summary: str, rows: Sequence[int]) -> Landed | None:
    """The semantic commit (or the no-op's drift), once the database's land has committed."""
    if not session.vault_base:
        return None
    try:
        return vault_land_commit(
            session.notebook.title,
            actor=session.actor,
            plan=session.plan,
            summary=summary,
            session_id=session.pk,
            base_sha=session.vault_base,
            seqs=list(rows),
            after_lapse=session_selectors.lapsed_before_land(session),
        )
    except LEFT_FOR_LATER as exc:  # the land stands: the next land or sweep makes its commit
        log.warning("session %s landed; its vault commit is left for the next sweep: %s", session.pk, exc)
        return None


def after_checkpoint(session: Any, note: str) -> str | None:
    """The checkpoint's recovery commit on refs/checkpoints/<session>."""
    if not session.vault_base:
        return None
    try:
        return vault_checkpoint(session.notebook.title, session_id=session.pk, base_sha=session.vault_base, note=note)
    except LEFT_FOR_LATER as exc:  # the checkpoint stands: the database is its record
        log.warning("session %s checkpointed; its vault commit failed: %s", session.pk, exc)
        return None


def after_abandon(session: Any, why: str) -> str | None:
    """The claimed file's change committed as drift, once the database's abandon has committed."""
    if not session.vault_base or open_session_on(session.notebook) is not None:
        return None  # a lapsed session's notebook taken since: its file is the holder's, committed at its land
    try:
        return vault_abandon(session.notebook.title, session_id=session.pk, why=why)
    except LEFT_FOR_LATER as exc:  # the abandon stands: the next sweep commits its drift
        log.warning("session %s abandoned; its vault commit is left for the next sweep: %s", session.pk, exc)
        return None


HOOKS = hooks.SessionHooks(
    lock=session_lock,
    base_for_take=base_for_take,
    check_land=check_land,
    after_checkpoint=after_checkpoint,
    land_in_git=land_in_git,
    after_abandon=after_abandon,
)


def install() -> None:
    hooks.register(HOOKS if vault_enabled() else hooks.NO_HOOKS)


@receiver(setting_changed)
def _follow_the_setting(*, setting: str, **kwargs: object) -> None:
    # Settings overridden at run time (tests) switch the vault on or off as a restart would.
    if setting == "NOTEBOOK_VAULT_ENABLED":
        install()
