"""A line's history, folded from its rows: every row with the words the line had after it (fold.py's rule)."""

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from notebooks.log.files.rowformat import redacted_text
from notebooks.log.rules.fold import PROPOSE, RESTORED, RETIRED_INTO, WORDED


@dataclass(frozen=True)
class Entry:
    seq: int
    op: str
    text: str | None
    source: str
    by: str
    at: float
    why: str
    how: str
    into: int | None
    adopted: bool
    was_at: float | None
    was_by: str
    redacts: str | None = None
    redacted: bool = False  # the text is "[redacted: why]"; kept out of as_dict, whose shape the API documents
    puts_back: int | None = None  # an edit back to the words this earlier seq gave the line
    from_n: int | None = None  # RETIRED_INTO: the other line, retired or merged into this one
    merged_from: tuple[int, ...] = ()  # the add of a merged line: the lines merged into it
    moved_to: "Moved | None" = None  # a strike how="moved": the notebook and line it went to
    moved_from: "Moved | None" = None  # an add that moved the line in: the notebook and line it came from
    proposes: str | None = None  # a proposal (op "propose"): the op it proposes; its words are the proposed ones
    session: int | None = None  # a proposal: the session it was proposed in
    lands: int | None = None  # a landed copy: the seq of the proposal it landed
    claimed_at: float | None = None  # a row appended from outside: the time its writer gave (`at` is the log's)

    def as_dict(self) -> dict[str, Any]:
        """The shape the API documents: every field but redacts, redacted and puts_back."""
        shown = {k: v for k, v in asdict(self).items() if k not in ("redacts", "redacted", "puts_back")}
        return {**shown, "merged_from": list(self.merged_from)}


@dataclass(frozen=True)
class Moved:
    notebook: str
    n: int


# A row of one line as history reads it: (seq, op, words, source, by, at, why, how, into, was_at, was_by, redacts,
# redacted_mark), where words are already "[redacted: why]" when redacted_mark is set.
HistoryRow = tuple[
    int, str, "str | None", str, str, float, str, str, "int | None", "float | None", str, "str | None", bool
]


def history(
    rows: Sequence[HistoryRow],
    n: int | None = None,
    moved: Mapping[int, tuple[str, int]] | None = None,
    proposed: Mapping[int, "tuple[str | None, int | None, int | None]"] | None = None,
    claimed: Mapping[int, float] | None = None,
) -> list[Entry]:
    """Every row of line n, adopted ones first, each with the words the line had after it (selectors.history's maps)."""
    adopted = sorted((r for r in rows if r[1] == "adopt"), key=lambda r: (r[9] or 0.0, r[0]))
    entries = [
        Entry(seq, op, words, src, by, at, why, how, into, True, was_at, was_by, None, gone)
        for seq, op, words, src, by, at, why, how, into, was_at, was_by, _redacts, gone in adopted
    ]
    words_now: str | None = None
    source_now, redacted_now = "", False
    said: dict[str, int] = {}  # words the line had -> the first row that gave them
    for seq, op, words, src, by, at, why, how, into, was_at, was_by, redacts, gone in rows:
        if op == "adopt":
            continue
        if op in (RESTORED, RETIRED_INTO):
            entry = Entry(seq, op, words, src, by, at, why, how, into, False, None, "", None, gone)
            entries.append(replace(entry, into=n, from_n=into) if op == RETIRED_INTO else entry)
            continue
        if op == PROPOSE:
            proposes, session, _ = (proposed or {}).get(seq, (None, None, None))
            shown = words if proposes in WORDED else words_now
            entry = Entry(seq, op, shown, src or source_now, by, at, why, how, into, False, was_at, was_by, None, gone)
            entries.append(replace(entry, proposes=proposes, session=session))
            continue
        back = None
        if op in WORDED:
            if op == "edit" and not gone and words is not None and words != words_now:
                back = said.get(words)
            words_now, redacted_now, source_now = words, gone, src
            if not gone and words is not None:
                said.setdefault(words, seq)
        if op == "redact":
            entries.append(
                Entry(seq, op, redacted_text(why), source_now, by, at, why, how, into, False, None, "", redacts, True)
            )
            continue
        entries.append(
            Entry(
                seq, op, words_now, source_now, by, at, why, how, into, False, was_at, was_by, None, redacted_now, back
            )
        )
    merged = tuple(e.from_n for e in entries if e.op == RETIRED_INTO and e.how == "merged" and e.from_n is not None)
    added = next((e.seq for e in entries if e.op == "add" and not e.adopted), None)  # the line's own add
    for i, e in enumerate(entries):
        found: dict[str, Any] = {"merged_from": merged} if merged and e.seq == added else {}
        if (landed := (proposed or {}).get(e.seq)) and landed[2] is not None and not e.adopted and e.op != PROPOSE:
            found["lands"] = landed[2]
        if claimed and e.seq in claimed:
            found["claimed_at"] = claimed[e.seq]
        if (other := (moved or {}).get(e.seq)) and not e.adopted and e.op in ("add", "strike"):
            found["moved_to" if e.op == "strike" else "moved_from"] = Moved(*other)
        if found:
            entries[i] = replace(e, **found)
    return entries
