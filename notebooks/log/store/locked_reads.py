"""What a write reads in its transaction, under the notebook's lock: the notebook, its head and next number, a line's
state, and for an add all of it in one statement. The views read a notebook and its head through here too."""

import difflib
import logging
from collections.abc import Iterable
from typing import NamedTuple

from django.db import connection

from notebooks.log.identity.roles import Actor
from notebooks.log.rules import decision, fold, guards
from notebooks.log.rules.checks import MAX_QUOTED, is_storable, quoted
from notebooks.log.rules.errors import NotFound, Redacted
from notebooks.log.rules.fold import LineState
from notebooks.log.rules.lines import ALL, NO_ROWS, Head, head_of
from notebooks.log.store import rows as stored
from notebooks.log.store import view_reads as viewed
from notebooks.log.store.locks import lock_notebook
from notebooks.models import Notebook

logger = logging.getLogger(__name__)


class NotebookRef(NamedTuple):
    """What a write needs of its notebook: an add builds this, not a model instance (which cost more to make)."""

    pk: int
    title: str


AnyNotebook = Notebook | NotebookRef


def check_comparable(title: str) -> None:
    """Refuses a title the databases cannot even compare: such a title was never created."""
    if not isinstance(title, str) or "\x00" in title or not is_storable(title):
        raise NotFound(f"No notebook is titled {quoted(title)}.")


def get_notebook(title: str) -> Notebook:
    check_comparable(title)
    # Plain SQL: compiling the ORM query cost more than the rest of a warm turn. Other fields load when read.
    found = viewed.fetch_one("SELECT id, title FROM notebooks_notebook WHERE title = %s", [title])
    if found is not None:
        return Notebook.from_db(connection.alias, ["id", "title"], found)
    raise not_found(title)


def not_found(title: str) -> NotFound:
    """No notebook has this title: the refusal, naming the closest title there is."""
    titles = list(Notebook.objects.values_list("title", flat=True)) if len(title) <= MAX_QUOTED else []
    close = difflib.get_close_matches(title, titles, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return NotFound(f"No notebook is titled {quoted(title)}.{hint}")


def head(notebook: AnyNotebook) -> Head:
    """The notebook's last row; NO_ROWS before its first."""
    return head_of(viewed.last_row(notebook.pk, ALL))


def locked_notebook(title: str) -> Notebook:
    """The notebook, locked for this transaction (an advisory lock: FOR UPDATE would need UPDATE privilege)."""
    return lock_notebook(get_notebook(title))


def line_state(notebook: AnyNotebook, n: int) -> LineState:
    state = line_or_none(notebook, n)
    if state is None:
        raise NotFound(f"Notebook {notebook.title!r} has no line #{n}.")
    return state


def line_or_none(notebook: AnyNotebook, n: int, *, session: int | None = None) -> LineState | None:
    """Line n as a write of `session`'s holder judges it, her proposals as the ops they propose; None if never added."""
    return fold.line_state(n, stored.line_rows(notebook.pk, n, session))


def state_of(
    notebook: AnyNotebook, numbers: Iterable[int], *, session: int | None = None, top: bool = False
) -> decision.State:
    """What a service's decision reads: the lines it concerns as the writer's session sees them, and (`top`) the
    highest number given."""
    lines = {n: line for n in dict.fromkeys(numbers) if (line := line_or_none(notebook, n, session=session))}
    return decision.State(title=notebook.title, lines=lines, top_n=(stored.top_number(notebook.pk) or 0) if top else 0)


def add_state(title: str, actor: Actor, digests: tuple[str, str]) -> tuple[AnyNotebook, Head, int, int | None]:
    """The notebook, locked, its head and next number and the write's session, for an add of words with `digests`
    (keyed, and plain: what a redaction from before keyed digests named them by)."""
    found = stored.add_state(title, guards.current().may_claim_sql, actor.name, digests)
    return state_of_add(found, title, actor, digests)


def state_of_add(
    found: tuple | None, title: str, actor: Actor, digests: tuple[str, str]
) -> tuple[AnyNotebook, Head, int, int | None]:
    """add_state's answer from its statement's row (None: no notebook of that title), the notebook locked."""
    if found is None:
        # No notebook of that title: every write's refusals, in their order (a session held elsewhere, NotFound).
        claim = guards.current().claim(title=title, actor=actor)
        nb = locked_notebook(title)  # raises NotFound, unless it was created meanwhile (then the general path goes on)
        found = stored.head_and_top_number(nb.pk)  # one query: an add needs both
        top, top_n = (NO_ROWS, None) if found is None else (Head(*found[:3]), found[3])
        gone = redacted_digests_of(nb, digests)
        return nb, top, _numbered(nb, actor, top_n, gone, digests), claim
    pk, seq, hash_, at, top_n, redact_seq, may_claim = found
    nb = NotebookRef(pk, title)
    claim = guards.current().claim(title=title, actor=actor) if may_claim else None
    top = head_of((seq, hash_, at))
    gone = {digests[0]: redact_seq} if redact_seq is not None else {}
    return nb, top, _numbered(nb, actor, top_n, gone, digests), claim


def _numbered(
    notebook: AnyNotebook, actor: Actor, top_n: int | None, redacted: dict[str, int], digests: tuple[str, str]
) -> int:
    """The number of an add whose author was judged already (decision.precheck), or its refusal."""
    state = decision.State(title=notebook.title, top_n=top_n or 0, redacted=redacted)
    row = {"op": "add", "by": actor.name, "words": "", "digest": digests[0], "plain": digests[1]}
    try:
        decision.decide(state, row, editor=actor.editor, door=decision.JUDGED)
    except Redacted as exc:
        _log_redacted(notebook, exc.details["redact_seq"])
        raise
    return row["n"]


def _log_redacted(notebook: AnyNotebook, redact_seq: int) -> None:
    # Logged, since the refusal tells the writer a guess was right.
    logger.warning(
        "A write of words redacted from notebook %r (redact row seq %s) was refused.", notebook.title, redact_seq
    )


def refuse_redacted(notebook: AnyNotebook, redact_seq: int) -> None:
    """decision.py's refusal of redacted words, for append.py's own guard."""
    _log_redacted(notebook, redact_seq)
    state = decision.State(title=notebook.title, redacted={"named": redact_seq})
    decision.decide(state, {"op": "add", "by": "", "words": "", "digest": "named"}, editor=True, door=decision.JUDGED)


def redacted_digests_of(notebook: AnyNotebook, digests: Iterable[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    wanted = sorted(set(digests))
    for i in range(0, len(wanted), 500):
        found.update(stored.redact_rows_naming(notebook.pk, wanted[i : i + 500]))
    return found
