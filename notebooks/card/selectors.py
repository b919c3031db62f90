"""Reads for Dad's pages and his review: counts, lines added per day, the audit, his marks, what is new or retired
(each one query, or from the kept views: never a query per line)."""

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection
from django.db.models import Max

from notebooks.log.rules.errors import NotFound
from notebooks.log.rules.fold import AGENT_SOURCES, DAD, DAD_CORRECTION
from notebooks.log.rules.lines import Line
from notebooks.log.store import rows as stored
from notebooks.log.store.locked_reads import line_state
from notebooks.log.views import kept, selectors, turn_reads
from notebooks.log.views.queries import ALL, words_or_mark
from notebooks.models import ArchiveMark, Notebook, ReviewMark


@dataclass(frozen=True)
class NotebookSummary:
    title: str
    counts: dict[str, int]
    rows: int
    last_at: float | None
    new: int = 0  # live lines added or changed since the reader's last review mark (all of them before his first)
    read_at: float | None = None  # when a play turn last read it (log/views/turn_reads.py); None: never
    read_by: str = ""
    archived: bool = False  # Dad put it off the index (it has no live lines)

    @property
    def live(self) -> int:
        return sum(self.counts.values())

    @property
    def by_source(self) -> list[tuple[str, int]]:
        """The counts in turn order, sources without live lines left out (as the card's tally)."""
        return [(s, self.counts[s]) for s in selectors.TURN_ORDER if self.counts.get(s)]


def notebook_summaries(reviewer: str = "") -> list[NotebookSummary]:
    """Every notebook's live lines by source, last row and lines new to the reviewer, from the kept views."""
    marks = last_marks(reviewer)
    last_turns = turn_reads.last_reads()
    latest = ArchiveMark.objects.values("notebook").annotate(last=Max("id")).values("last")
    shelved = set(ArchiveMark.objects.filter(id__in=latest, archived=True).values_list("notebook_id", flat=True))
    summaries = []
    for nb_id, title, (seq, _hash, at) in selectors.notebook_heads():
        live = kept.live(Notebook.from_db(connection.alias, ["id", "title"], (nb_id, title)))[0] if seq else []
        reviewed = marks.get(nb_id, 0)
        new = sum(1 for line in live if line.seq > reviewed)
        read = last_turns.get(nb_id)
        summaries.append(
            NotebookSummary(
                title=title, counts=dict(Counter(line.source for line in live)), rows=seq, last_at=at if seq else None,
                new=new, read_at=read.at if read else None, read_by=read.by if read else "", archived=nb_id in shelved,
            )
        )  # fmt: skip
    return summaries


@dataclass(frozen=True)
class DayCount:
    day: int  # days since 1970-01-01, UTC
    source: str
    count: int


def added_per_day(notebook: Notebook, cut: int = ALL) -> list[DayCount]:
    """Lines added (add rows, retired ones included) per UTC day and source, up to seq `cut`."""
    return [DayCount(int(d), s, c) for d, s, c in stored.added_per_day(notebook.pk, cut)]


@dataclass(frozen=True)
class AuditRow:
    id: int
    notebook: str
    seq: int
    op: str
    n: int
    text: str | None
    source: str
    by: str
    why: str
    how: str
    into: int | None
    at: float
    was_at: float | None
    was_by: str
    # A strike into another line: what this line said when it was struck, and what that line said then.
    line_words: str | None = None
    into_words: str | None = None
    # A move between notebooks (fold.py): on a strike, the notebook and line it went to; on an add, where it came from.
    moved_notebook: str | None = None
    moved_n: int | None = None


@dataclass(frozen=True)
class AuditPage:
    rows: list[AuditRow]
    total: int
    page: int
    per_page: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))


def audit(
    *,
    notebook: str = "",
    by: str = "",
    op: str = "",
    since: float | None = None,
    until: float | None = None,
    page: int = 1,
    per_page: int = 50,
) -> AuditPage:
    """Rows across every notebook, newest first (by insertion id: seqs are per notebook), filtered and paged."""
    fetched, total, page = stored.audit_page(
        notebook=notebook, by=by, op=op, since=since, until=until, page=page, per_page=per_page
    )
    said = _struck_words([(v[-2], v[1], v[4], v[10], v[2]) for v in fetched if v[3] == "strike" and v[10]])
    found = []
    for *fields, moved_notebook, moved_n, nb_id, gone in fetched:
        fields[5] = words_or_mark(fields[5], gone)[0]
        found.append(AuditRow(*fields, *said.get((nb_id, fields[2]), (None, None)), moved_notebook, moved_n))
    return AuditPage(rows=found, total=total, page=page, per_page=per_page)


def _struck_words(strikes: list[tuple[int, str, int, int, int]]) -> dict[tuple[int, int], tuple[str | None, ...]]:
    """By (notebook id, seq) of a strike into another line: what the line and the one it went into said just before."""
    by_notebook: dict[int, list[tuple[str, int, int, int]]] = {}
    for nb_id, title, n, into, seq in strikes:
        by_notebook.setdefault(nb_id, []).append((title, n, into, seq))
    found = {}
    for nb_id, rows in by_notebook.items():
        notebook = Notebook.from_db(connection.alias, ["id", "title"], (nb_id, rows[0][0]))
        said = selectors.words_before(notebook, [pair for _t, n, into, seq in rows for pair in ((n, seq), (into, seq))])
        for _title, n, into, seq in rows:
            found[nb_id, seq] = (said[n, seq].text, said[into, seq].text)
    return found


def titles() -> list[str]:
    return list(Notebook.objects.order_by("title").values_list("title", flat=True))


def actors() -> list[str]:
    return stored.writers()


def last_words(notebook: Notebook, n: int) -> str | None:
    """Line n's last words, live or retired, as services.restore reads them; None when redacted or never a line."""
    try:
        return line_state(notebook, n).words
    except NotFound:
        return None


def merge_preview(notebook: Notebook, numbers: list[int], words: str) -> str:
    """The source the editor's merge of these lines into these words gives (log.selectors.merge_source), said."""
    if len(set(numbers)) < 2 or not words.strip():
        return "Tick at least two lines and write the merged words to see which source the merged line will have."
    result = selectors.merge_source(notebook, numbers, words, editor=True)
    if result.kept is not None:
        kept = selectors.live_line(notebook, result.kept)
        if result.source in AGENT_SOURCES:
            what = f"{kept.by if kept is not None else 'her'}'s {result.source} line"
        else:
            what = "Dad's correction" if result.source == DAD_CORRECTION else "Dad's line"
        return f"Saved as they are, these are #{result.kept}'s words unchanged: this stays {what}."
    if result.source == DAD:
        return "Saved as they are, this stays Dad's line: every merged line was his."
    return "Saved as they are, this becomes Dad's correction: these words are not one merged line's, unchanged."


@dataclass(frozen=True)
class Mark:
    """His last review of a notebook: up to row `seq`, at time `at`; `top_n` is the highest number used then."""

    seq: int
    at: float | None
    top_n: int

    @property
    def never(self) -> bool:
        return self.at is None


NEVER = Mark(seq=0, at=None, top_n=0)


def last_mark(notebook: Notebook, reviewer: str) -> Mark:
    """The reviewer's latest mark on the notebook (NEVER before his first: everything is new), in one query."""
    marks = ReviewMark.objects.filter(notebook_id=notebook.pk, by=reviewer).order_by("-seq", "-id")
    found = marks.values_list("seq", "at", "top_n").first()
    return Mark(*found) if found else NEVER


def last_marks(reviewer: str) -> dict[int, int]:
    """The reviewer's latest reviewed seq per notebook id, in one query (the index page)."""
    found = ReviewMark.objects.filter(by=reviewer).values("notebook_id").annotate(top=Max("seq"))
    return {mark["notebook_id"]: mark["top"] for mark in found}


def new_since(lines: Iterable[Line], mark: Mark) -> dict[int, str]:
    """The lines added ("new": numbers are never reused) or "changed" after the mark, by number."""
    return {line.n: ("new" if line.n > mark.top_n else "changed") for line in lines if line.seq > mark.seq}


@dataclass(frozen=True)
class Retired:
    """A retired or merged line: its last words, who took it out, when and why, and what says it now."""

    n: int
    text: str | None
    source: str
    seq: int
    by: str
    at: float
    why: str
    how: str
    into: int | None  # the line that now says it (merged into, or named when retired)
    restored_as: int | None  # the line that brought its words back
    moved_notebook: str | None = None  # moved to another notebook (fold.py): its title and the line it became
    moved_n: int | None = None


def retired_lines(notebook: Notebook, cut: int = ALL) -> list[Retired]:
    """Every retired or merged line at row `cut`, most recently retired first, in one query."""
    found = stored.retired_rows(notebook.pk, cut)  # each row: n, words, redacted why, then Retired's other fields
    return [Retired(n, words_or_mark(body, gone)[0], *rest) for n, body, gone, *rest in found]


@dataclass(frozen=True)
class Changes:
    """What changed between a past view and now: lines added, changed (then and now) and retired since."""

    added: list[Line]
    changed: list[tuple[Line, Line]]
    retired: list[Line]

    @property
    def count(self) -> int:
        return len(self.added) + len(self.changed) + len(self.retired)


def changes_since(notebook: Notebook, cut: int) -> Changes:
    then = {line.n: line for line in selectors.view_at_seq(notebook, cut)}
    now = {line.n: line for line in selectors.view_at_seq(notebook)}
    return Changes(
        added=[line for n, line in now.items() if n not in then],
        changed=[(then[n], line) for n, line in now.items() if n in then and then[n].seq != line.seq],
        retired=[line for n, line in then.items() if n not in now],
    )
