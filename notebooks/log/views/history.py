"""A line's history, folded from its rows: every row with the words the line had after it (the rule of the log is
fold.py's; this is its projection for one line)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from notebooks.log.files.rowformat import redacted_text
from notebooks.log.rules.fold import PROPOSE, RESTORED, RETIRED_INTO, WORDED


@dataclass(frozen=True)
class Entry:
    """One row of a line's history, with the words the line had after it."""

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
        return {
            "seq": self.seq, "op": self.op, "text": self.text, "source": self.source, "by": self.by, "at": self.at,
            "why": self.why, "how": self.how, "into": self.into, "adopted": self.adopted, "was_at": self.was_at,
            "was_by": self.was_by, "from_n": self.from_n, "merged_from": list(self.merged_from),
            "moved_to": self.moved_to and self.moved_to.as_dict(),
            "moved_from": self.moved_from and self.moved_from.as_dict(),
            "proposes": self.proposes, "session": self.session, "lands": self.lands, "claimed_at": self.claimed_at,
        }  # fmt: skip


@dataclass(frozen=True)
class Moved:
    """The other end of a move: a notebook's title and a line of it."""

    notebook: str
    n: int

    def as_dict(self) -> dict[str, Any]:
        return {"notebook": self.notebook, "n": self.n}


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
    """Every row of one line: adopted rows first by their own time, then the line's rows in log order, each with the
    words the line had after it. A redact row's text is its own mark, "[redacted: why]".

    An add with `into` set restores that line (restored from #into). A row of op RESTORED is another line's add that
    restored this one: its words are what was brought back and its `into` the new line's number. A row of op
    RETIRED_INTO is another line's strike into this one (line n): its `into` is that other line's number (its entry's
    `from_n`; the entry's `into` is n), its words and source what that line had when it was struck, its how, by, why
    and at the strike's. The add of a line names the lines merged into it (`merged_from`). An edit back to words an
    earlier row of the line gave it names that row (`puts_back`). `moved` maps the seq of a row of the line that
    moved it (a strike how="moved", or an add naming where it came from) to the other notebook and line: the
    strike's entry names where it went (`moved_to`), the add's where it came from (`moved_from`). `proposed` maps the
    seq of a proposal or a landed copy to (the op proposed, the session, the proposal a copy lands): a proposal's
    entry carries the words it proposes and changes the words the line has after it in no entry; it never counts.
    `claimed` maps the seq of a row appended from outside to the time its writer gave (its entry's `claimed_at`)."""
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
        if op == RESTORED:
            entries.append(Entry(seq, op, words, src, by, at, why, how, into, False, None, "", None, gone))
            continue
        if op == RETIRED_INTO:
            entries.append(Entry(seq, op, words, src, by, at, why, how, n, False, None, "", None, gone, from_n=into))
            continue
        if op == PROPOSE:
            proposes, session, _ = (proposed or {}).get(seq, (None, None, None))
            shown = words if proposes in WORDED else words_now
            entries.append(
                Entry(seq, op, shown, src or source_now, by, at, why, how, into, False, was_at, was_by, None, gone)
            )
            entries[-1] = replace(entries[-1], proposes=proposes, session=session)
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
    if merged:
        i = next((i for i, e in enumerate(entries) if e.op == "add" and not e.adopted), None)
        if i is not None:
            entries[i] = replace(entries[i], merged_from=merged)
    if proposed:
        for i, e in enumerate(entries):
            landed = proposed.get(e.seq)
            if landed is not None and landed[2] is not None and not e.adopted and e.op != PROPOSE:
                entries[i] = replace(e, lands=landed[2])
    if claimed:
        entries = [replace(e, claimed_at=claimed[e.seq]) if e.seq in claimed else e for e in entries]
    if moved:
        for i, e in enumerate(entries):
            other = moved.get(e.seq) if not e.adopted and e.op in ("add", "strike") else None
            if other is not None:
                end = Moved(*other)
                entries[i] = replace(entries[i], **{"moved_to" if e.op == "strike" else "moved_from": end})
    return entries
