"""Checks that a notebook's log is what its writers wrote: how a change behind the triggers' back is found. A chain
rewritten from the changed row onwards is consistent again: only a head hash pinned earlier (`pinned`) catches that."""

from collections.abc import Iterable
from typing import Any

from notebooks.log.files import importing, rowformat
from notebooks.log.identity import wordkeys
from notebooks.log.rules.checks import latest_time, shown_time
from notebooks.log.rules.errors import Invalid
from notebooks.log.store import rows as stored
from notebooks.models import Notebook


def verify_chain(notebook: Notebook, *, pinned: str | None = None) -> list[str]:
    """Every problem found in the notebook's log, as sentences (none: it verifies), its rows replayed too."""
    return check_rows(notebook.title, stored.rows_to_verify(notebook.pk), pinned=pinned)


def check_rows(
    title: str, rows: Iterable[dict[str, Any]], *, pinned: str | None = None, rules: bool = True
) -> list[str]:
    """The checks themselves, on rows in seq order (the stored columns plus `body`, the words or None)."""
    problems: list[str] = []
    prev, expected_seq, last_at = rowformat.GENESIS, 1, 0.0
    carried: dict[int, set[str]] = {}  # digests each line's rows carried so far
    missing: dict[str, int] = {}  # digest -> first seq whose words are gone
    present: set[str] = set()
    redacted: dict[str, int] = {}
    found_pinned = pinned is None
    replay: list[str] = []
    latest, future = latest_time(), False
    for row in rows:
        seq = row["seq"]
        where = f"{title}: seq {seq}"
        if seq != expected_seq:
            problems.append(f"{where}: expected seq {expected_seq} (a row is missing or inserted)")
        if row["prev_hash"] != prev:
            problems.append(f"{where}: does not follow the row before it (chain broken)")
        if rowformat.row_hash(row["prev_hash"], row) != row["hash"]:
            problems.append(f"{where}: content does not match its hash (row changed)")
        if row["at"] < last_at:
            problems.append(f"{where}: recorded before the row ahead of it (time went backwards)")
        if row["at"] > latest and not future:  # the first only: every later row is dated after it
            future = True
            problems.append(
                f"{where}: dated {shown_time(row['at'])}, later than now plus NOTEBOOK_CLOCK_ALLOWANCE "
                "(a poisoned clock): no row can be written after it"
            )
        if row["hash"] == pinned:
            found_pinned = True
        digest = row["digest"]
        if digest:
            carried.setdefault(row["n"], set()).add(digest)
            if row["body"] is None:
                missing.setdefault(digest, seq)
            else:
                present.add(digest)
                salt = row.get("salt")
                if not salt and rowformat.is_keyed(digest):  # lost by a migration back past 0023: derived again
                    salt = wordkeys.salt_of(title, row["body"])
                if rowformat.words_digest(row["body"], salt) != digest:
                    problems.append(f"{where}: words do not match their digest (words changed)")
        if row["op"] == "redact":
            target = row.get("redacts")
            if not target or target not in carried.get(row["n"], ()):
                problems.append(f"{where}: redacts words that no earlier row of line #{row['n']} carried")
            redacted.setdefault(target, seq)
        if rules:
            replay.append(rowformat.dumps(_for_replay(row)))
        prev, expected_seq, last_at = row["hash"], seq + 1, row["at"]
    for digest, seq in sorted(missing.items(), key=lambda item: item[1]):
        if digest not in redacted:
            problems.append(f"{title}: seq {seq}: its words are gone and no redact row names them")
    for digest, seq in sorted(redacted.items(), key=lambda item: item[1]):
        if digest in present:
            problems.append(f"{title}: seq {seq}: redacted words are still in the database")
    if not found_pinned:
        problems.append(f"{title}: the pinned head {pinned} is not in the chain (rows changed or removed since)")
    # Only a chain that holds together is replayed: a broken one's rule breaks are echoes of the break itself.
    if rules and replay and not problems:
        try:
            importing.parse(replay, is_editor=lambda name: True, max_words=10**9, max_reason=10**9)
        except Invalid as exc:
            where = f"row {exc.details['line']} in log order" if "line" in exc.details else "the log"
            problems.append(f"{title}: {where} breaks the notebook's rules: {exc.message.split(': ', 1)[-1]}")
    return problems


def _for_replay(row: dict) -> dict:
    """The row as the importer reads it (words by digest when gone), without seq and hash: those are checked above."""
    gone = "" if row["digest"] and row["body"] is None else None
    out = rowformat.export_row(row, row["body"], redacted_why=gone)
    if gone is not None:
        out["digest"] = row["digest"]  # withheld from exports when plain; the replay is this server's own
    if row["op"] == "redact":
        out["redacts"] = row["redacts"]
    return {key: value for key, value in out.items() if key not in ("seq", "hash")}
