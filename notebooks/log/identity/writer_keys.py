"""Writer keys, issued and revoked like API tokens, for the outside writers of vault rows (signing.py). No secret is
stored: a key's is derived from the server's secret and the key's salt, so neither alone gives one."""

import base64
import functools
import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import IntegrityError, transaction
from django.utils import timezone

from notebooks.log.identity import signing
from notebooks.log.identity.roles import Actor, actor_named
from notebooks.log.identity.wordkeys import derived_secret
from notebooks.log.rules.checks import check_name, check_reason, problem_of_name, shown
from notebooks.log.rules.errors import Conflict, Forbidden, NotFound
from notebooks.models import WriterKey

SECRET_PREFIX = "nbw_"
DERIVE_CONTEXT = b"notebooks writer key v1\x00"
UNPROVEN_POLICIES = ("agent", "refuse")


@dataclass(frozen=True)
class Issued:
    key: WriterKey
    secret: str  # shown once; never stored, derived again only to check a row's mac


@dataclass(frozen=True)
class Writer:
    """Whom a live key speaks for now: an editor only while the actor's user still holds the role."""

    key_id: str
    actor: Actor


def server_secret() -> bytes:
    return derived_secret(settings.NOTEBOOK_WRITER_KEY_SECRET, b"notebooks writer keys")


def secret_of(key: WriterKey) -> str:
    """A key's secret, derived again: the same for as long as the server's secret stays the same."""
    raw = hmac.new(
        server_secret(), DERIVE_CONTEXT + key.key_id.encode("ascii") + b"\x00" + bytes.fromhex(key.salt), hashlib.sha256
    ).digest()
    return SECRET_PREFIX + base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def issue(*, actor: str, editor: bool = False, by: str = "cli") -> Issued:
    """A new key for an actor. An editor's key needs the editor's role recorded for that actor now."""
    check_name(actor)
    check_name(by)
    if editor and not actor_named(actor).editor:
        raise Forbidden(
            f"{actor} does not hold the human editor's role, so an editor's writer key cannot be issued "
            f"(give it first with: notebook editor {actor})."
        )
    for _ in range(5):  # a key id is 40 random bits: a collision is rare, and the unique index catches it
        try:
            with transaction.atomic():
                key_id, salt = "wk" + secrets.token_hex(5), secrets.token_hex(16)
                key = WriterKey.objects.create(key_id=key_id, actor=actor, editor=editor, salt=salt, created_by=by)
        except IntegrityError:
            continue
        return Issued(key=key, secret=secret_of(key))
    raise Conflict("Could not find an unused key id; try again.")


def revoke(*, key_id: str, by: str = "cli", why: str = "") -> WriterKey:
    """Revoke a key: from now on the rows it signs prove nothing. A revoke is final."""
    check_name(by)
    why = check_reason(why) if why else ""
    with transaction.atomic():
        key = WriterKey.objects.select_for_update().filter(key_id=key_id).first()
        if key is None:
            raise NotFound(f"No writer key {shown(key_id, 40)}.")
        if key.revoked_at is not None:
            raise Conflict(f"Writer key {key.key_id} was revoked already, at {key.revoked_at:%Y-%m-%d %H:%M} UTC.")
        key.revoked_at, key.revoked_by, key.revoked_why = timezone.now(), by, why
        key.save(update_fields=["revoked_at", "revoked_by", "revoked_why"])
    return key


def keys(*, actor: str | None = None, live_only: bool = False) -> list[WriterKey]:
    """The keys, oldest first (never their secrets)."""
    found = WriterKey.objects.order_by("pk")
    if actor is not None:
        found = found.filter(actor=actor)
    if live_only:
        found = found.filter(revoked_at__isnull=True)
    return list(found)


def actor_for(key_id: str) -> Writer | None:
    """Whom a key speaks for now; None for a revoked key, an unknown one, or one naming no valid actor."""
    if not isinstance(key_id, str) or not signing.KEY_ID.fullmatch(key_id):
        return None
    key = WriterKey.objects.filter(key_id=key_id, revoked_at__isnull=True).first()
    if key is None or problem_of_name(key.actor):
        return None
    editor = key.editor and actor_named(key.actor).editor
    return Writer(key_id=key.key_id, actor=Actor(name=key.actor, editor=editor))


def prover(*, notebook: str) -> Callable[[dict[str, Any]], tuple[Writer | None, str]]:
    """Who proved they wrote a row of the notebook's file: (the writer, "") or (None, why not); lookups shared."""
    writer_of = functools.cache(actor_for)

    @functools.cache
    def secret_for(key_id: str) -> str | None:
        key = WriterKey.objects.filter(key_id=key_id).first()
        return None if key is None else secret_of(key)

    def prove(row: dict[str, Any]) -> tuple[Writer | None, str]:
        key_id, why = signing.verify(row, notebook=notebook, secret_for=secret_for)
        if key_id is None:
            return None, why
        writer = writer_of(key_id)
        return (None, f"writer key {key_id} is revoked") if writer is None else (writer, "")

    return prove


def proven_writer(row: dict[str, Any], *, notebook: str) -> tuple[Writer | None, str]:
    return prover(notebook=notebook)(row)


def unproven_policy() -> tuple[str, str]:
    """What an unproven outside row becomes: ("agent", the outside agent's name) or ("refuse", that name)."""
    policy, name = settings.NOTEBOOK_VAULT_UNPROVEN, settings.NOTEBOOK_VAULT_OUTSIDE_AGENT
    if policy not in UNPROVEN_POLICIES:
        raise ImproperlyConfigured(f"NOTEBOOK_VAULT_UNPROVEN is {policy!r}; it is 'agent' or 'refuse'.")
    problem = problem_of_name(name)
    if problem:
        raise ImproperlyConfigured(f"NOTEBOOK_VAULT_OUTSIDE_AGENT {problem}.")
    if actor_named(name).editor:
        raise ImproperlyConfigured(f"NOTEBOOK_VAULT_OUTSIDE_AGENT is {name!r}, a user holding the editor's role.")
    return policy, name
