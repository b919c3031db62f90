"""A session's proposals (fold.py): read them, and append their landed copies. The log knows no sessions: a
proposal names its session only by the row's session_id column, which the caller gives."""

from typing import Any

from notebooks.log.rules import decision, fold
from notebooks.log.rules.lines import Line
from notebooks.log.store import session_rows
from notebooks.log.store.append import RowWritten, append
from notebooks.log.store.locked_reads import AnyNotebook, state_of
from notebooks.log.views.queries import words_or_mark


def proposals(notebook: AnyNotebook, session_id: int, *, after: int = 0) -> list[dict[str, Any]]:
    """The session's proposals in log order, with their words and salt and the reason of a redaction that took them."""
    names = (*session_rows.PROPOSAL_COLUMNS, "words", "salt", "redacted_why")
    return [dict(zip(names, row, strict=True)) for row in session_rows.proposal_rows(notebook.pk, session_id, after)]


def land(notebook: AnyNotebook, session_id: int, *, after: int = 0) -> list[RowWritten]:
    """Append the landed copy of each of the session's proposals, each judged (the caller holds the lock)."""
    copies = fold.landed_copies(proposals(notebook, session_id, after=after))
    numbers = [n for copy in copies if copy["op"] != "add" for n in (copy["n"], copy.get("into")) if n is not None]
    state = state_of(notebook, numbers)
    state.proposals = {copy["lands"]: (copy["op"], copy["n"]) for copy in copies}
    decision.decide_all(state, [dict(copy) for copy in copies], editor=False, door=decision.JUDGED)
    return append(notebook, copies) if copies else []


def holder_view(lines: list[Line], notebook: AnyNotebook, session_id: int, *, after: int = 0) -> list[Line]:
    """`lines` with the session's proposals applied (fold.fold_view): the view its holder reads."""
    rows: list[fold.ViewRow] = []
    for p in proposals(notebook, session_id, after=after):
        gone = (p["redacted_why"] or "") if p["words"] is None and p["digest"] else None
        text, redacted = words_or_mark(p["words"], gone)
        rows.append((p["seq"], p["proposes"], p["n"], p["source"], p["by"], p["at"], "", text, redacted))
    return fold.fold_view(rows, lines) if rows else lines
