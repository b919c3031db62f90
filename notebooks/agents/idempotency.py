"""Idempotency keys (Stripe's, the IETF draft's): a write sent again with its key answers its first answer and writes
nothing. Kept per actor for NOTEBOOK_IDEMPOTENCY_TTL, successes only, stored in the write's own transaction (a
session's write from inside it: `joins=True`, its body calling `joined()`); a key still running answers 409."""

import functools
import hashlib
import inspect
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar, get_type_hints

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.http import HttpRequest, HttpResponse
from ninja.responses import NinjaJSONEncoder, Status
from pydantic import Field

from notebooks.agents.answers import CONTENT_TYPE, rendered
from notebooks.log.identity.roles import Actor
from notebooks.log.rules.errors import Conflict, Invalid, NotebookError
from notebooks.models import IdempotencyKey
from notebooks.sessions import joined as session_joined
from notebooks.similar import selectors as similar_selectors

HEADER = "Idempotency-Key"
KEY_ARGUMENT = "idempotency_key"  # MCP's name for it
REPLAYED = "Idempotent-Replayed"  # Stripe's name: "true" on an answer sent again
MAX_KEY = 255
KEY_PATTERN = r"^[\x21\x23-\x5b\x5d-\x7e]{1,255}$"
_KEY = re.compile(KEY_PATTERN)
IN_PROGRESS_RETRY = 2  # seconds: the Retry-After of a key still being answered (a write takes far less)
PG_LOCK = "notebooks.idempotency"  # the advisory lock's name space, hashed with the actor and the key
SAID = (
    "Send the same key again with the same request to get its first answer without a second write; a new write "
    "needs a new key. Kept for a day, per actor."
)
KeyArgument = Annotated[
    str | None,
    Field(description=f"An idempotency key for this write (1-{MAX_KEY} visible ASCII characters): {SAID}"),
]
T = TypeVar("T")


class KeyMismatch(NotebookError):
    code, status = "idempotency_mismatch", 422


class KeyInProgress(Conflict):
    code = "idempotency_in_progress"


class _Raced(Exception):
    """Another transaction stored the same key first: this one rolled back."""


@dataclass(frozen=True)
class Answer:
    status: int
    body: str
    replayed: bool = False


@dataclass
class _Call:
    actor: str
    key: str
    what: str  # "POST /api/…" or "mcp add"
    sent: Any  # the body, or the tool's arguments
    render: Callable[[Any], Answer]
    answered: Answer | None = None
    named: str = HEADER  # how the caller's transport names the key: the header, or MCP's idempotency_key argument

    @functools.cached_property
    def fingerprint(self) -> str:
        canonical = json.dumps(
            self.sent, sort_keys=True, separators=(",", ":"), ensure_ascii=False, cls=NinjaJSONEncoder
        )
        return hashlib.sha256(f"{self.what}\n{canonical}".encode()).hexdigest()


_calling: ContextVar["_Call | None"] = ContextVar("notebooks_idempotent_call", default=None)
_busy: set[tuple[str, str, str]] = set()
_busy_lock = threading.Lock()


def key_of(raw: str | None, named: str = HEADER) -> str | None:
    """The key sent, or None when none was; refuses one out of bounds (400) before anything is read or written."""
    if raw is None:
        return None
    value = raw[1:-1] if len(raw) >= 2 and raw[0] == raw[-1] == '"' else raw
    if not _KEY.fullmatch(value):
        raise Invalid(
            f"Bad {named}: give 1 to {MAX_KEY} visible ASCII characters without quotes, backslashes or spaces "
            "(a UUID will do).",
            fields=[named],
        )
    return value


def _cutoff() -> float:
    return time.time() - settings.NOTEBOOK_IDEMPOTENCY_TTL


def _kept(call: _Call) -> Answer | None:
    """The answer kept under the actor's key, if it is young enough; refuses when it answered another request."""
    found = IdempotencyKey.objects.filter(actor=call.actor, key=call.key, at__gte=_cutoff()).first()
    if found is None:
        return None
    if found.fingerprint != call.fingerprint:
        raise KeyMismatch(
            f"{call.named} {call.key!r} was already used for another request ({found.what}, sent with other values); "
            "nothing was written. Send a new key for a new write.",
            fields=[call.named],
        )
    return Answer(found.status, found.answer, replayed=True)


def _store(call: _Call, answer: Answer) -> None:
    """In the write's transaction: the key and its answer (an expired use of the same key goes first)."""
    IdempotencyKey.objects.filter(actor=call.actor, key=call.key, at__lt=_cutoff()).delete()
    try:
        with transaction.atomic():
            IdempotencyKey.objects.create(
                actor=call.actor, key=call.key, what=call.what[:300], fingerprint=call.fingerprint,
                status=answer.status, answer=answer.body, at=time.time(),
            )  # fmt: skip
    except IntegrityError:
        raise _Raced from None


@contextmanager
def _in_flight(call: _Call) -> Iterator[None]:
    """Held while the key's request runs; a second request with the key meanwhile is refused (409)."""
    mine = (str(connection.settings_dict.get("NAME")), call.actor, call.key)
    with _busy_lock:
        taken = mine in _busy
        _busy.add(mine)
    if taken:
        raise _in_progress(call)
    name = f"{PG_LOCK}\n{call.actor}\n{call.key}"
    locked = False
    try:
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", [name])
                locked = cursor.fetchone()[0]
            if not locked:
                raise _in_progress(call)
        yield
    finally:
        if locked:
            with suppress(DatabaseError), connection.cursor() as cursor:  # a connection gone took its lock with it
                cursor.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", [name])
        with _busy_lock:
            _busy.discard(mine)


def _in_progress(call: _Call) -> KeyInProgress:
    return KeyInProgress(
        f"A request with {call.named} {call.key!r} is still being answered; send it again in a moment.",
        fields=[call.named],
    ).retrying_after(IN_PROGRESS_RETRY)


def _run(call: _Call, body: Callable[[], Any], *, joins: bool) -> Answer:
    """The kept answer, or the write done once with its answer stored in its own transaction."""
    with _in_flight(call):
        try:
            answered = _joined(call, body) if joins else _outer(call, body)
        except _Raced:
            answered = _kept(call)
            if answered is None:
                raise _in_progress(call) from None
        except NotebookError:
            # Refused after another request stored the key (its rows now in the way): that one's answer stands.
            answered = _kept(call)
            if answered is None:
                raise
    if not answered.replayed:  # the keys older than the TTL go after each keyed write's commit (or the next's)
        with suppress(DatabaseError):
            IdempotencyKey.objects.filter(at__lt=_cutoff()).delete()
    return answered


def _outer(call: _Call, body: Callable[[], Any]) -> Answer:
    wrote = False
    try:
        with transaction.atomic():
            found = _kept(call)
            if found is not None:
                return found
            result = body()
            wrote = True
            answered = call.render(result)
            _store(call, answered)
            return answered
    except BaseException:
        if wrote:  # an index of nearest lines may hold the rolled-back rows: made again at the next read
            similar_selectors.forget()
        raise


def _joined(call: _Call, body: Callable[[], Any]) -> Answer:
    found = _kept(call)
    if found is not None:
        return found
    token = _calling.set(call)
    try:
        body()
    finally:
        _calling.reset(token)
    if call.answered is None:
        raise RuntimeError(f"{call.what} stored no answer: its body must call idempotency.joined()")
    return call.answered


def joined(write: Callable[..., T], answer: Callable[[T], Any], **arguments: Any) -> Any:
    """A session's write and its answer; under a key the answer is stored inside the write's transaction."""
    call = _calling.get()
    if call is None:
        return answer(write(**arguments))
    made: list[Any] = []

    def store(result: T) -> None:
        made.append(answer(result))
        call.answered = call.render(made[0])
        _store(call, call.answered)

    with session_joined.joining(store):
        write(**arguments)
    if not made:
        raise RuntimeError(f"{call.what}: the service did not join its transaction")
    return made[0]


def _rendered(result: Any, status: int = 200) -> Answer:
    """What a view returned, as the JSON ninja would render it: a plain answer with `status`."""
    status, value = (result.status_code, result.value) if isinstance(result, Status) else (status, result)
    return Answer(status, rendered(value))


def http(view: Callable, *, joins: bool = False, status: int = 200) -> Callable:
    """A write view taking an Idempotency-Key header; a plain answer (not a Status) is sent with `status`."""

    @functools.wraps(view)
    def inner(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        key = key_of(request.headers.get(HEADER))
        if key is None:
            result = view(request, *args, **kwargs)
            return result if isinstance(result, Status | HttpResponse) else Status(status, result)
        sent = json.loads(request.body) if request.body else None
        render = functools.partial(_rendered, status=status)
        call = _Call(request.auth.name, key, f"{request.method} {request.get_full_path()}", sent, render)
        answered = _run(call, lambda: view(request, *args, **kwargs), joins=joins)
        response = HttpResponse(answered.body, status=answered.status, content_type=CONTENT_TYPE)
        if answered.replayed:
            response[REPLAYED] = "true"
        return response

    return inner


def tool(fn: Callable, actor: Actor, *, joins: bool = False) -> Callable:
    """A write tool taking an optional idempotency_key argument (added to its signature), as the header does."""
    model = get_type_hints(fn, include_extras=True)["return"]

    @functools.wraps(fn)
    def inner(*args: Any, idempotency_key: str | None = None, **kwargs: Any) -> Any:
        key = key_of(idempotency_key, KEY_ARGUMENT)
        if key is None:
            return fn(*args, **kwargs)
        render = lambda value: Answer(200, value.model_dump_json())  # noqa: E731
        call = _Call(actor.name, key, f"mcp {fn.__name__}", kwargs, render, named=KEY_ARGUMENT)
        return model.model_validate_json(_run(call, lambda: fn(*args, **kwargs), joins=joins).body)

    signature = inspect.signature(fn)
    extra = inspect.Parameter(KEY_ARGUMENT, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=KeyArgument)
    inner.__signature__ = signature.replace(parameters=[*signature.parameters.values(), extra])  # type: ignore
    inner.__annotations__ = {**fn.__annotations__, KEY_ARGUMENT: KeyArgument}
    return inner
