"""What the API's operations declare alike: the refusals each kind may answer, paging, and a write's shape."""

from collections.abc import Callable
from typing import Any

from ninja import Router

from notebooks.agents import idempotency, paging, problems


def declared(*statuses: int) -> dict[int, Any]:
    return {status: problems.Error for status in statuses}


# Every write may also find the disk full, or a take or land the vault unusable (503, Retry-After).
LISTED = declared(400, 401, 405)  # a list of notebooks or sessions names none of them
READ = declared(400, 401, 404, 405)
UNCHANGED = {304: None}  # a conditional read's answer when its If-None-Match still stands (conditional.py)
WRITE = declared(400, 401, 403, 404, 405, 409, 413, 503)
TAKE = declared(400, 401, 404, 405, 409, 413, 503)  # anyone may take
CREATE = declared(400, 401, 405, 409, 413, 429, 503)
SUGGEST = declared(400, 401, 403, 404, 405, 409, 413, 429, 503)

PAGING = (
    f"Every list pages alike: 'limit' items a page ({paging.PAGE} when not given, at most {paging.PAGE_MAX}; more is "
    "a 400 naming 'limit'), after the cursor 'after' (none for the first page); the answer's 'next' is the cursor of "
    "the following page, null when nothing is left. A cursor is opaque: send it back as it came. Deprecated: a plain "
    "position as 'after' (a number, or a title for the notebooks) is still read as before; any other 'after' is a "
    "400 naming it."
)


class Routes(Router):
    """One resource's operations, a tag of the document, mounted on the one API (api/__init__.py)."""

    def write(
        self, path: str, answer: dict[int, Any], *, refusals: dict[int, Any] = WRITE, joins: bool = False, **said: Any
    ) -> Callable[[Callable], Callable]:
        """A POST answering `answer` (a plain answer with its first status) or `refusals`, taking an Idempotency-Key."""

        def register(view: Callable) -> Callable:
            keyed = idempotency.http(view, joins=joins, status=next(iter(answer)))
            return self.post(path, response={**answer, **refusals}, **said)(keyed)

        return register
