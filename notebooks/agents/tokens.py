"""API bearer tokens: issued once in clear, kept as the sha256 of the secret, revocable. Writes are keyword-only."""

import hashlib
import secrets
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone

from notebooks.log.identity.roles import Actor, actor_named
from notebooks.log.rules.checks import check_name
from notebooks.log.rules.errors import Forbidden, Invalid, NotFound
from notebooks.models import Role, Token
from notebooks.sessions import leases

PREFIX = "nbk_"
MAX_TOKEN_LENGTH = 200


@dataclass(frozen=True)
class Issued:
    token: Token
    secret: str  # shown once; only its digest is kept


def digest_of(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def issue(*, actor: str, editor: bool = False, by: str = "cli") -> Issued:
    """A new token naming an actor and its role. The editor's role must already be recorded for that actor."""
    check_name(actor)
    if editor and not actor_named(actor).editor:
        raise Forbidden(
            f"{actor} does not hold the human editor's role, so an editor token cannot be issued "
            f"(give it first with: notebook editor {actor})."
        )
    secret = PREFIX + secrets.token_urlsafe(32)
    role = Role.EDITOR if editor else Role.AGENT
    token = Token.objects.create(actor=actor, role=role, digest=digest_of(secret), hint=secret[:12], created_by=by)
    return Issued(token=token, secret=secret)


def revoke(*, token: str | None = None, actor: str | None = None, why: str = "") -> list[Token]:
    """Revoke one token (by its secret, its hint or its id) or every live token of an actor."""
    with transaction.atomic():
        live = Token.objects.select_for_update().filter(revoked_at__isnull=True)
        if actor is not None:
            found = list(live.filter(actor=actor))
        elif token is not None:
            named = token.removesuffix("…").removeprefix("#")  # as `notebook tokens` lists them: "#4 nbk_ZN-JLwD6…"
            found = list(
                live.filter(digest=digest_of(token))
                or live.filter(hint=named)
                or (live.filter(pk=int(named)) if named.isascii() and named.isdecimal() and len(named) < 19 else [])
            )
        else:
            raise Invalid("Name a token (its secret, hint or id) or an actor.")
        if not found:
            raise NotFound("No live token matches.")
        now = timezone.now()
        for t in found:
            t.revoked_at, t.revoked_why = now, why
            t.save(update_fields=["revoked_at", "revoked_why"])
    return found


# The actor a live token's digest names: its own statement, or a column of a read's one lookup (conditional.py).
LIVE_TOKEN = "FROM notebooks_token WHERE digest = %s AND revoked_at IS NULL"
ACTOR_SQL = f"SELECT actor {LIVE_TOKEN}"


def plausible_digest(secret: str) -> str | None:
    """The digest to look a presented secret up by; None for one no token could have (empty, too long, not ASCII)."""
    if not secret or len(secret) > MAX_TOKEN_LENGTH or not secret.isascii():
        return None
    return digest_of(secret)


def authenticate(secret: str) -> Actor | None:
    """The actor a live token speaks for; an editor token acts as editor only while the role is still recorded."""
    digest = plausible_digest(secret)
    if digest is None:
        return None
    # Plain SQL: it runs on every API request, and compiling the ORM query cost more than running it.
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT actor, role {LIVE_TOKEN}", [digest])
        found = cursor.fetchone()
    if found is None:
        return None
    name, role = found
    editor = role == Role.EDITOR and actor_named(name).editor
    return Actor(name=name, editor=editor)


def caller(secret: str) -> Actor | None:
    """The actor an API or MCP call speaks for, or None; any call of a session's holder renews its lease."""
    actor = authenticate(secret.strip())
    if actor is not None:
        leases.renew_calls_of(actor.name)
    return actor
