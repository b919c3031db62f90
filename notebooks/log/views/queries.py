"""The views as the log computes them: heads and cuts, the SQL forms of the fold (store/view_reads.py, property-tested
against fold.py), and a view folded forward from the nearest snapshot."""

from itertools import islice

from notebooks.log.files import rowformat
from notebooks.log.rules.lines import ALL, NO_ROWS, Head, Line, head_of
from notebooks.log.store import view_reads as viewed
from notebooks.log.views import snapshots
from notebooks.models import Notebook

FORWARD_MAX = 20_000  # rows folded forward from a snapshot; past this, one query over the log beats folding them


def words_or_mark(body: str | None, redacted_why: str | None) -> tuple[str | None, bool]:
    """A row's words, or "[redacted: why]" when a redaction removed them."""
    if redacted_why is not None:
        return rowformat.redacted_text(redacted_why), True
    return body, False


def row_before(notebook: Notebook, seq: int) -> Head:
    """The last row at or before seq (the head, for ALL)."""
    return head_of(viewed.last_row(notebook.pk, seq))


def row_by_time(notebook: Notebook, until: float) -> Head:
    """The last row recorded at or before `until` (a seek on row_cut_idx: times never go backwards)."""
    return head_of(viewed.last_row(notebook.pk, 0, until))


def cut_for(notebook: Notebook, until: float | None) -> int:
    """The last seq recorded at or before `until`: the view then is a prefix of the log."""
    return ALL if until is None else row_by_time(notebook, until).seq


def row_and_redactions(notebook: Notebook, cut: int, until: float | None) -> tuple[Head, int]:
    """The row a past view stands at (at or before seq `cut`, or time `until`) and the count of redact rows."""
    found = viewed.last_row(notebook.pk, cut, until, redactions=True)
    return (Head(*found[:3]), found[3]) if found else (NO_ROWS, 0)


def _line(n: int, body: str | None, gone: str | None, source: str, by: str, at: float, seq: int) -> Line:
    text, redacted = words_or_mark(body, gone)
    return Line(n, text, source, by, at, seq, redacted)


def view_by_sql(notebook: Notebook, cut: int = ALL) -> tuple[list[Line], Head]:
    """The live lines as the log stood at row `cut`, and the row they stand at, by VIEW_SQL."""
    found = viewed.view_rows(notebook.pk, cut)
    if not found:  # no live lines, so no row named the cut: ask for it alone
        return [], row_before(notebook, cut)
    return [_line(*row[:7]) for row in found], Head(*found[0][7:])


def line_by_sql(notebook: Notebook, n: int, cut: int = ALL) -> Line | None:
    """Line n as the view at row `cut` shows it, by LINE_SQL; None when it is retired (or never was)."""
    found = viewed.line_row(notebook.pk, n, cut)
    return _line(*found) if found else None


def computed_view(notebook: Notebook, cut: int = ALL) -> tuple[list[Line], Head]:
    """The view at row `cut` from the nearest snapshot and the rows after it, or else from the whole log."""
    with snapshots.quiet_gc():
        start = snapshots.nearest(notebook.pk, cut)
        if start is not None and (cut >= ALL or cut - start[0].seq <= FORWARD_MAX):
            top, lines = start
            folder = snapshots.Folder(lines, seq=top.seq, makes_snapshots=False)
            try:
                after = list(islice(snapshots.rows_after(notebook.pk, top.seq, cut, top.hash), FORWARD_MAX + 1))
            except ValueError:
                after = None  # the chain is broken after the snapshot: the log decides, through VIEW_SQL
            if after is not None and len(after) <= FORWARD_MAX:
                folder.feed(after)
                last = after[-1] if after else None
                return folder.live.copy(), Head(last[0], last[6], last[5]) if last else top
        return view_by_sql(notebook, cut)
