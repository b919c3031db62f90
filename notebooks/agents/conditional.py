"""Conditional reads: an ETag names the notebook's head, the reader's view and the request, so If-None-Match answers
304 after one lookup of the head; a live answer's bytes are kept per head, view and request. Use: @conditional.read."""

import contextlib
import functools
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from django.db import DatabaseError, connection
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseNotModified
from django.utils.http import parse_etags

from notebooks.agents import tokens
from notebooks.agents.answers import CONTENT_TYPE, rendered, until_of
from notebooks.log.identity.roles import Actor
from notebooks.log.redaction import words_redacted
from notebooks.log.rules.errors import NotebookError
from notebooks.log.rules.lines import Head
from notebooks.log.views import queries, selectors, turn_reads
from notebooks.log.views.lru import LRU, notebook_key
from notebooks.models import Notebook
from notebooks.sessions import leases
from notebooks.sessions import reads as session_reads
from notebooks.version import VERSION

NOTEBOOKS_KEPT = 256  # notebooks whose answers are kept (least recently read dropped first)…
BYTES_KEPT = 64 * 2**20  # …and no more bytes than this in all of them
EVERYONE = ("everyone",)  # the view of every reader but a holder: the log as it is (Dad's too: answers.py)


@dataclass
class Kept:
    """A notebook's answers at one head: (view, request) -> the answer's bytes."""

    seq: int
    hash: str
    answers: dict[tuple, bytes] = field(default_factory=dict)
    size: int = 0

    def put(self, key: tuple, body: bytes) -> None:
        self.size += len(body) - len(self.answers.get(key, b""))
        self.answers[key] = body


# (alias, database name, notebook pk) -> its answers at the head last read
_kept: LRU[Kept] = LRU(most=lambda: NOTEBOOKS_KEPT, weigh=lambda kept: kept.size, heaviest=lambda: BYTES_KEPT)


@dataclass(frozen=True)
class Read:
    """What decides a read's answer: the notebook, the row it stands at, the reader's view; named by `tag`."""

    notebook: Notebook
    head: Head
    view: tuple
    frozen: bool
    tag: str


def view_of(mine: session_reads.Held | None) -> tuple:
    """The view a live read shows: everyone's, or her session's (a renewal moves when it lapses)."""
    if mine is None:
        return EVERYONE
    # A withdrawn proposal leaves her view with no new row: the count of withdrawals is part of the view.
    s = mine.session
    return ("session", s.pk, mine.state, leases.renewed_at(s), session_reads.withdrawals(s))


def stands(request: HttpRequest, title: str, until: str | None = None) -> Read:
    """The read the request makes, found without folding: the notebook, its head and the reader's view."""
    at = until_of(until)
    if at is None:
        notebook, top, mine = session_reads.head_and_held(title, request.auth)
        view = view_of(mine)
    else:
        notebook = selectors.get_notebook(title)
        top, redactions = queries.row_and_redactions(notebook, queries.ALL, at)
        view = ("frozen", redactions)
    return Read(notebook, top, view, at is not None, tag_of(notebook.pk, top, view, request.get_full_path()))


def tag_of(notebook_id: int, top: Head, view: tuple, full_path: str) -> str:
    named = "\x1f".join(map(str, (VERSION, notebook_id, top.seq, top.hash, *view, full_path)))
    return '"' + hashlib.blake2b(named.encode(), digest_size=16).hexdigest() + '"'


def named(if_none_match: str, tag: str) -> bool:
    """Compared weakly (RFC 9110); a `*` is answered in full: no lookup says whether the answer exists."""
    return tag in {t.removeprefix("W/") for t in parse_etags(if_none_match)}


def read(view: Callable | None = None, *, also: Callable[[Notebook, Actor], Any] | None = None) -> Callable:
    """A read view answered conditionally and kept per head; `also` runs when a live read's view does not."""

    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def inner(request: HttpRequest, **kwargs: Any) -> HttpResponseBase:
            found = stands(request, kwargs["notebook"], getattr(kwargs.get("q"), "until", None))
            ran = False
            if named(request.headers.get("If-None-Match", ""), found.tag):
                answer: HttpResponseBase = HttpResponseNotModified()
            else:
                path = request.get_full_path()
                body = None if found.frozen else kept_answer(found, path)
                if body is None:
                    body, ran = rendered(fn(request, **kwargs)).encode(), True
                    if not found.frozen:
                        keep(found, path, body, request.auth)
                answer = HttpResponse(body, content_type=CONTENT_TYPE)
            if also is not None and not ran and not found.frozen:
                also(found.notebook, request.auth)
            answer["ETag"] = found.tag
            return answer

        return inner

    return wrap(view) if view is not None else wrap


def kept_answer(found: Read, request: str) -> bytes | None:
    kept = _kept.get(notebook_key(found.notebook))
    if kept is None or (kept.seq, kept.hash) != (found.head.seq, found.head.hash):
        return None
    return kept.answers.get((found.view, request))


def keep(found: Read, request: str, body: bytes, reader: Actor) -> None:
    """Keep the answer at the head it was looked up at: made after it, it never stands for a later head's."""
    if found.view == EVERYONE and session_reads.held(found.notebook, reader) is not None:
        return  # she took a session while her read ran: the answer may be her own view, not everyone's
    top = found.head

    def put(old: Kept | None) -> Kept:
        if old is not None and (old.seq, old.hash) != (top.seq, top.hash) and old.seq > top.seq:
            return old  # a later head's answers came first: this one is already out of date
        kept = old if old is not None and (old.seq, old.hash) == (top.seq, top.hash) else Kept(top.seq, top.hash)
        kept.put((found.view, request), body)
        return kept

    _kept.keep(notebook_key(found.notebook), put)


def forget(notebook: Notebook | None = None) -> None:
    """Drop the kept answers of a notebook (or of every notebook)."""
    if notebook is None:
        _kept.clear()
    else:
        key = notebook_key(notebook)
        _kept.drop(lambda found: found == key)


def kept_count() -> int:
    """How many answers are kept, in every notebook."""
    return sum(len(kept.answers) for kept in _kept.values())


@receiver(words_redacted)
def _redacted(sender: object, notebook: Notebook, **kwargs: object) -> None:
    forget(notebook)  # no answer kept here may still hold the redacted words


# The live reads answered 304 before the URL is resolved, and what each does beside its answer (as `read(also=…)`).
UNCHANGED_READS = re.compile(r"/api/notebooks/(?P<title>[^/]+)/(?P<kind>turn|lines|rows)")
ALSO = {"turn": turn_reads.note_turn_read}


class UnchangedMiddleware:
    """A live turn, lines or rows read whose If-None-Match still stands is answered 304 before the URL is resolved;
    anything else goes on to the API. `make serve` answers later ones earlier still (notebook_site/wsgi.unchanged)."""

    # bench/NOTES.md: a 304 turn read 0.59 -> 0.45 ms of app CPU in process, side by side.
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        early = unchanged(request)
        return early if early is not None else self.get_response(request)


def unchanged(request: HttpRequest) -> HttpResponseBase | None:
    """The 304 of a live read (see UnchangedMiddleware), or None when the API must answer it."""
    headers = request.headers
    if request.method != "GET" or "If-None-Match" not in headers or asks_until(request.META.get("QUERY_STRING", "")):
        return None
    tag = unchanged_tag(
        request.path_info, headers.get("Authorization", ""), headers.get("If-None-Match"), request.get_full_path()
    )
    if tag is None:
        return None
    answer = HttpResponseNotModified()
    answer["ETag"] = tag
    return answer


def asks_until(query: str) -> bool:
    """Whether a query string names `until` (read raw: Django's request.GET refuses too many fields by raising)."""
    return bool(query) and any(name == "until" for name, _ in parse_qsl(query, keep_blank_values=True))


def unchanged_tag(path: str, authorization: str, if_none_match: str | None, full_path: str) -> str | None:
    """The ETag a live GET of `path` still answers to If-None-Match for a reader holding no session, else None."""
    found = UNCHANGED_READS.fullmatch(path)
    scheme, _, secret = authorization.partition(" ")
    if found is None or scheme.lower() != "bearer" or not if_none_match:
        return None
    digest = tokens.plausible_digest(secret.strip())
    if digest is None:
        return None
    # The head's statement checks the connection itself (bench/NOTES.md: a third of a 304's database CPU): one it
    # finds dead is closed below, and the API, answering instead, opens another.
    connection.health_check_done = True
    try:
        # bench/NOTES.md: the token in the head's statement, a round trip fewer: 0.44 -> 0.35 ms of app CPU a 304.
        notebook, top, reader, holds = session_reads.head_and_held_by(found["title"], (tokens.ACTOR_SQL, [digest]))
        if reader is None:
            return None  # the API refuses it
        leases.renew_calls_of(reader)  # any call of hers renews her lease, as tokens.caller does
        if holds is not None:
            return None  # a holder's view: `read` asks her session what decides its tag
        tag = tag_of(notebook.pk, top, EVERYONE, full_path)
        if not named(if_none_match, tag):
            return None
        if found["kind"] in ALSO:
            ALSO[found["kind"]](notebook, reader)
    except NotebookError:
        return None  # the API answers it: a 404 with "did you mean"
    except DatabaseError:
        with contextlib.suppress(DatabaseError):
            if not connection.in_atomic_block and not connection.is_usable():
                connection.close()
        return None  # the API answers it, on a new connection: a 503 if the database still cannot take it
    return tag
