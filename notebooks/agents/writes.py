"""Every write of the API and MCP, once: the session it names checked, the core's service called with its keyword
arguments as they are, its answer built (a session's inside its transaction: idempotency.joined)."""

import functools
from collections.abc import Callable
from typing import Any

from notebooks.agents import answers, creation_limit, idempotency, schemas
from notebooks.log import redaction, services
from notebooks.log.identity.roles import Actor
from notebooks.log.rules import checks
from notebooks.log.rules.errors import Invalid, NotFound
from notebooks.sessions import claims as session_claims
from notebooks.sessions import services as session_services
from notebooks.similar import suggestions


def within(title: str, reader: Actor, session: int | None) -> None:
    """A write naming its session goes only into the writer's open session on `title`."""
    if session is not None:
        session_claims.check_named(session_id=session, actor=reader, title=title)


def _of_lines(write: Callable[..., services.Written], answer: Callable = answers.written) -> Callable[..., Any]:
    """A write of lines: `within` its session, then the service, then the answer."""

    def of_lines(*, notebook: str, by: Actor, session: int | None = None, **fields: Any) -> Any:
        within(notebook, by, session)
        return answer(write(notebook=notebook, by=by, **fields), notebook, by)

    return of_lines


retire = _of_lines(services.retire)
restore = _of_lines(services.restore)
put_back = _of_lines(services.put_back)
redact = _of_lines(redaction.redact)
merge = _of_lines(services.merge, answers.merged)
_edit = _of_lines(services.edit)


def edit(*, text: str | None = None, to: str | None = None, **fields: Any) -> schemas.Written:
    """New words as 'text', or as 'to' (its old name, deprecated): one of them, not both, refused before the session
    is looked at."""
    if text is not None and to is not None:
        raise Invalid("'to': send the new words once, as 'text' ('to' is its old name).", fields=["to"])
    if text is None and to is None:
        raise Invalid("'text': Field required (the line's new words).", fields=["text"])
    return _edit(to=text if text is not None else to, **fields)


def add(*, notebook: str, text: str, source: str, why: str, session: int | None = None, by: Actor) -> schemas.Added:
    within(notebook, by, session)
    done = services.add(notebook=notebook, text=text, source=source, by=by, why=why)
    return answers.added(notebook, done.n, done.seq, text, reader=by)


def create(*, title: str, by: Actor) -> schemas.NotebookItem:
    nb = creation_limit.create_notebook(title=title, actor=by)
    return schemas.NotebookItem(title=nb.title, head=0, session=None)


def suggest(*, notebook: str, by: "Actor | str", **fields: Any) -> schemas.Suggested:
    """A suggestion stored, or the one already there ('already'): the same lines and kind pending, or Dad's mark."""
    done = suggestions.suggest(notebook=notebook, by=by, **fields)
    item, mark = done.suggestion, done.mark
    return schemas.Suggested(
        already=done.already,
        suggestion=None if item is None else schemas.SuggestionItem(notebook=notebook, **suggestions.as_dict(item)),
        mark=None if mark is None else schemas.NotAlikeMark(id=mark.pk, lines=mark.lines, by=mark.by, at=mark.at),
    )


def take(*, notebook: str, **arguments: Any) -> schemas.Taken:
    if not isinstance(notebook, str) or not schemas.TITLE.fullmatch(notebook):  # a title no notebook could have
        raise NotFound(f"No notebook is titled {checks.quoted(notebook)}.")
    return idempotency.joined(session_services.take, answers.taken, notebook=notebook, **arguments)


def withdraw(*, seq: int, **arguments: Any) -> schemas.Withdrawn:
    """'seq' names the proposal taken back."""
    return idempotency.joined(session_services.withdraw, answers.withdrawn, proposal=seq, **arguments)


checkpoint = functools.partial(idempotency.joined, session_services.checkpoint, answers.checkpointed)
land = functools.partial(idempotency.joined, session_services.land, answers.landed)
abandon = functools.partial(idempotency.joined, session_services.abandon, answers.abandoned)
