"""The row table's other questions (what views read is view_reads.py's), each one statement, asked from here:
a notebook's head and numbers (heads.py), a line's rows (lines.py), a session's rows (sessions.py), a whole log or
every log (whole_logs.py). Besides this package, view_reads.py and append.py, only the fast path, the triggers, the
privileges and the system check name the table. Each function returns the database's tuples as they come; the
callers give them their meaning.
"""

from notebooks.log.store.rows.heads import add_state, head_and_top_number, top_number
from notebooks.log.store.rows.lines import (
    first_line_keeping,
    last_strike_moved,
    last_worded,
    line_digests,
    line_rows,
    merged_into,
    redact_rows_naming,
    restoring_line,
    retired_rows,
    row_lines,
    version_words,
)
from notebooks.log.store.rows.sessions import (
    PROPOSAL_COLUMNS,
    brought_counts,
    changed_by_others,
    count_outside_sessions,
    proposal_rows,
    rows_by_others,
    session_ops,
    session_rows,
    worded_sources,
)
from notebooks.log.store.rows.whole_logs import (
    added_per_day,
    analyze,
    audit_page,
    rows_to_judge,
    rows_to_verify,
    writers,
)

__all__ = (
    "add_state", "head_and_top_number", "top_number",
    "first_line_keeping", "last_strike_moved", "last_worded", "line_digests", "line_rows", "merged_into",
    "redact_rows_naming", "restoring_line", "retired_rows", "row_lines", "version_words",
    "PROPOSAL_COLUMNS", "brought_counts", "changed_by_others", "count_outside_sessions", "proposal_rows",
    "rows_by_others", "session_ops", "session_rows", "worded_sources",
    "added_per_day", "analyze", "audit_page", "rows_to_judge", "rows_to_verify", "writers",
)  # fmt: skip
