"""Snapshots of the live view, so that a first read folds only the rows after the nearest one. A reader uses one only
while its row keeps the hash it names, the count of redact rows is the one it was made with and its MAC matches."""

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from django.db import connection
from django.utils.crypto import constant_time_compare

from notebooks.log.files import rowformat
from notebooks.log.rules.fold import LiveLines
from notebooks.log.rules.fold import ViewRow as FoldRow
from notebooks.log.rules.lines import NO_ROWS, Head, Line
from notebooks.log.store import view_reads as viewed
from notebooks.log.views.snapshot_format import decode, encode, mac

EVERY = 250  # rows: snapshots stand only at multiples of this seq (and the first at 250: small notebooks too)
SPACING = 2  # a snapshot of L lines is followed by the next after L / SPACING rows (or EVERY, if more)
IMPORT_SPACING = 1  # an import makes half as many (it writes them all at once), and one at its last row


def due(seq: int, last_seq: int, last_live: int, spacing: int = SPACING) -> bool:
    """Whether a snapshot belongs at row `seq`, after one at `last_seq` holding `last_live` lines."""
    return seq % EVERY == 0 and seq - last_seq >= max(EVERY, last_live // spacing)


@contextmanager
def quiet_gc() -> Iterator[None]:
    """No cyclic GC while a view's 15k lines are made: they hold no cycles, and its passes cost a third of a read."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Folder:
    """Folds rows in seq order into the live lines (fold.LiveLines), and makes a snapshot wherever one is due."""

    def __init__(
        self,
        lines: Iterable[Line] = (),
        *,
        seq: int = 0,
        last_seq: int = 0,
        last_live: int = 0,
        makes_snapshots: bool = True,
        spacing: int = SPACING,
    ) -> None:
        self.live = LiveLines(lines)
        self.seq, self.last_seq, self.last_live = seq, last_seq, last_live
        self.makes_snapshots, self.spacing = makes_snapshots, spacing
        self.last: tuple[int, str, float] | None = None  # the last row applied
        self.made: list[tuple[Head, list[Line]]] = []
        self.words_missing = False  # set by a feeder whose rows lack words they carried: its snapshots are not used

    def feed(self, rows: Iterable[FoldRow]) -> None:
        apply = self.apply
        for row in rows:
            apply(*row)

    def apply(
        self, seq: int, op: str, n: int, source: str, by: str, at: float, hash_: str, text: str | None, redacted: bool
    ) -> None:
        self.live.apply(seq, op, n, source, by, at, text, redacted)
        self.seq = seq
        if not self.makes_snapshots:
            return
        if due(seq, self.last_seq, self.last_live, self.spacing):
            self.made.append((Head(seq, hash_, at), self.live.copy()))
            self.last_seq, self.last_live = seq, len(self.live)
        else:
            self.last = (seq, hash_, at)

    def finish(self) -> None:
        """A snapshot at the last row applied too (an import's first read starts from it)."""
        if self.last is not None and self.last[0] > self.last_seq:
            self.made.append((Head(*self.last), self.live.copy()))
            self.last_seq, self.last_live = self.last[0], len(self.live)


TRIES = 3  # snapshots tried before folding from the whole log (after a SECRET_KEY change every one fails)


def nearest(notebook_id: int, cut: int) -> tuple[Head, list[Line]] | None:
    """The snapshot nearest at or before row `cut` that the log still backs, with its lines; None if there is none."""
    for _ in range(TRIES):
        found = viewed.nearest_snapshot(notebook_id, cut)
        if found is None:
            return None
        seq, hash_, at, redactions, blob, their_mac = found
        if constant_time_compare(mac(notebook_id, seq, hash_, redactions, blob), their_mac):
            try:
                return Head(seq, hash_, at), decode(blob)
            except (ValueError, KeyError, TypeError, IndexError):
                pass
        cut = seq - 1  # altered, or made under another SECRET_KEY: try the one before
    return None


def store(notebook_id: int, made: list[tuple[Head, list[Line]]], redactions: int | None = None) -> int:
    """Write snapshots; one already standing at the same row is kept. Returns how many were given."""
    if not made:
        return 0
    if redactions is None:
        redactions = viewed.count_redactions(notebook_id)
    values = []
    for top, lines in made:
        blob = encode(lines)
        values.append(
            (notebook_id, top.seq, top.hash, top.at, len(lines), redactions, blob,
             mac(notebook_id, top.seq, top.hash, redactions, blob))
        )  # fmt: skip
    with connection.cursor() as cursor:
        cursor.executemany(
            'INSERT INTO notebooks_snapshot (notebook_id, seq, "hash", "at", live, redactions, lines, mac) '
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            values,
        )
    return len(values)


CHUNK = 20_000  # rows read at once while rebuilding


def rows_after(notebook_id: int, after: int, upto: int, prev_hash: str) -> Iterator[FoldRow]:
    """The rows in (after, upto] as FoldRows, each checked to link to the one before (ValueError if one does not)."""
    expect = after + 1
    whys: dict[str, str] | None = None
    while expect <= upto:
        end = min(upto, expect - 1 + CHUNK)
        chunk = viewed.fold_rows(notebook_id, expect - 1, end)
        if not chunk:
            return
        if len(chunk) < end - expect + 1:  # seqs are dense: fewer rows than asked for means the head is in
            upto = chunk[-1][0]
        for seq, op, n, source, by, at, row_prev, row_hash, digest, body in chunk:
            if seq != expect or row_prev != prev_hash:
                raise ValueError(f"row {seq} does not follow row {expect - 1} in the chain")
            redacted = False
            if body is None and digest and op in ("add", "edit"):
                if whys is None:  # words gone: the reason of the redaction that removed them (the first one)
                    whys = viewed.redaction_whys(notebook_id)
                if (why := whys.get(digest)) is not None:
                    body, redacted = rowformat.redacted_text(why), True
            yield seq, op, n, source, by, at, row_hash, body, redacted
            expect, prev_hash = seq + 1, row_hash


def catch_up(notebook_id: int, head_seq: int) -> int:
    """How many snapshots were due up to row `head_seq`, made inside the write that reached it."""
    last_seq, last_live = viewed.fetch_one(  # the last snapshot's seq and lines, checked or not: it only paces
        "SELECT seq, live FROM notebooks_snapshot WHERE notebook_id = %s ORDER BY seq DESC LIMIT 1", [notebook_id]
    ) or (0, 0)
    if not any(due(s, last_seq, last_live) for s in range(last_seq + EVERY - last_seq % EVERY, head_seq + 1, EVERY)):
        return 0
    top, lines = nearest(notebook_id, head_seq) or (NO_ROWS, [])
    folder = Folder(lines, seq=top.seq, last_seq=max(top.seq, last_seq), last_live=last_live)
    folder.feed(rows_after(notebook_id, top.seq, head_seq, top.hash))
    return store(notebook_id, folder.made)


def rebuild(notebook_id: int) -> int:
    """Delete the notebook's snapshots and make them again from the log (after a redaction, or on request)."""
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM notebooks_snapshot WHERE notebook_id = %s", [notebook_id])
    folder = Folder()
    folder.feed(rows_after(notebook_id, 0, viewed.top_seq(notebook_id), rowformat.GENESIS))
    return store(notebook_id, folder.made)


def problems(notebook_id: int) -> list[str]:
    """Every snapshot readers would pass over or that says other than the log, in one fold of the whole log."""
    taken = viewed.fetch_all(
        'SELECT seq, "hash", redactions, lines, mac FROM notebooks_snapshot WHERE notebook_id = %s ORDER BY seq',
        [notebook_id],
    )
    hashes = viewed.seq_hashes(notebook_id)
    if not taken:
        return []
    redactions = viewed.count_redactions(notebook_id)
    found: list[str] = []
    folder = Folder(makes_snapshots=False)
    rows = rows_after(notebook_id, 0, max(hashes, default=0), rowformat.GENESIS)
    with quiet_gc():
        for seq, hash_, their_redactions, blob, their_mac in taken:
            where = f"snapshot at seq {seq}"
            if hashes.get(seq) != hash_:
                found.append(f"{where}: the log's row {seq} does not carry the hash it names")
                continue
            if not constant_time_compare(mac(notebook_id, seq, hash_, their_redactions, blob), their_mac):
                found.append(f"{where}: its MAC does not match (altered, or made under another SECRET_KEY)")
                continue
            if their_redactions != redactions:
                found.append(f"{where}: made before a redaction (readers pass it over)")
                continue
            while folder.seq < seq and (row := next(rows, None)) is not None:
                folder.apply(*row)
            if decode(blob) != folder.live.copy():
                found.append(f"{where}: its lines differ from the log's view at that row")
    return found
