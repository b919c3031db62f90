"""A session's proposals (fold.py): read them, and append their landed copies. The log knows no sessions: a
proposal names its session only by the row's session_id column, which the caller gives."""

from typing import Any

from django.db import connection

from notebooks.log import fold
from notebooks.log.append import RowWritten, append
from notebooks.log.lines import Line
from notebooks.log.queries import words_or_mark
from notebooks.log.write_state import AnyNotebook

_COLUMNS = (
    "seq", "op", "proposes", "n", "digest", "source", "by", "why", "how", "into", "at", "moved_notebook", "moved_n",
)  # fmt: skip


def proposals(notebook: AnyNotebook, session_id: int, *, after: int = 0) -> list[dict[str, Any]]:
    """The session's proposals in log order, each with its words and salt (None once redacted)."""
    columns = ", ".join(f'r."{c}"' for c in _COLUMNS)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {columns}, w.body, w.salt FROM notebooks_row r LEFT JOIN notebooks_words w "
            "ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
            "WHERE r.notebook_id = %s AND r.seq > %s AND r.session_id = %s AND r.op = %s ORDER BY r.seq",
            [notebook.pk, after, session_id, fold.PROPOSE],
        )
        found = cursor.fetchall()
    return [{**dict(zip(_COLUMNS, row[:-2], strict=True)), "words": row[-2], "salt": row[-1]} for row in found]


def land(notebook: AnyNotebook, session_id: int, *, after: int = 0) -> list[RowWritten]:
    """Append the landed copy of each of the session's proposals, in their order, at the head (the caller holds
    the notebook's lock, in its transaction). A copy of redacted words carries their digest only."""
    copies = fold.landed_copies(proposals(notebook, session_id, after=after))
    return append(notebook, copies) if copies else []


def view_rows(notebook: AnyNotebook, session_id: int, *, after: int = 0) -> list[fold.ViewRow]:
    """The session's proposals as the rows they propose (fold.with_proposals), words marked where redacted."""
    rows: list[fold.ViewRow] = []
    for p in proposals(notebook, session_id, after=after):
        text, redacted = words_or_mark(p["words"], None if p["words"] is not None or not p["digest"] else "")
        rows.append((p["seq"], p["proposes"], p["n"], p["source"], p["by"], p["at"], "", text, redacted))
    return rows


def holder_view(lines: list[Line], notebook: AnyNotebook, session_id: int, *, after: int = 0) -> list[Line]:
    """The view the session's holder reads: `lines` with her session's proposals applied."""
    rows = view_rows(notebook, session_id, after=after)
    return fold.with_proposals(lines, rows) if rows else lines
