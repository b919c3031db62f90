"""The vault: a git repository holding every notebook as its file. A sweep brings each file to exactly its
notebook's rows, imports outside appends, refuses anything else (kept as evidence on a side branch, the file restored
from the log, an alarm raised), and commits what changed outside the claimed files."""

import fcntl
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from stat import S_ISREG

from django.conf import settings

from notebooks.log.files import imports, rowformat
from notebooks.log.rules.checks import bounded, shown
from notebooks.log.rules.errors import NotebookError
from notebooks.log.store import view_reads
from notebooks.log.views import selectors
from notebooks.models import TITLE_PATTERN, Notebook

from . import alarms, history, late
from .claims import claimed_titles
from .fileformat import (
    REDACT_ROW,
    SUFFIX,
    canonical_bytes,
    canonical_lines,
    imported_already,
    json_object,
    rows_kept,
    split_lines,
)
from .git import Git, blob_id
from .landing import repair_lands
from .results import FileResult, SweepResult, row_count
from .state import (
    LAYOUT,
    RACY_NS,
    NotRegular,
    Tracked,
    append_bytes,
    kind_of,
    read_regular,
    read_state,
    stat_key,
    stat_or_none,
    write_atomic,
    write_state,
)

LOCK_FILE = "notebooks-vault.lock"
_HELD = threading.local()  # vault roots whose lock this thread holds, with its depth


class Vault:
    def __init__(self, root: "Path | str | None" = None) -> None:
        self.root = Path(root or settings.NOTEBOOK_VAULT).resolve()
        self.git = Git(self.root)
        self._partials: dict[str, str] = {}  # title → the file's blob when its last line was unfinished
        self._read_stat: dict[str, tuple[int, int, int] | None] = {}  # title → the file's stat when it was read

    def ensure(self) -> "Vault":
        if not self.git.exists():
            self.git.init()
        elif self.git.rev("HEAD") is None:
            root = self.git.commit_tree(self.git.make_tree({}), [], "vault: every notebook mirrored as its file\n")
            self.git.update_ref(self.git.branch_ref(), root, "0" * 40)
        return self

    def path(self, title: str) -> Path:
        return self.root / (title + SUFFIX)

    @contextmanager
    def lock(self) -> Iterator[None]:
        """One sweep, take, checkpoint or land at a time; re-entrant in a thread; always taken before the database's."""
        self.ensure()
        held = _HELD.__dict__.setdefault("roots", {})
        with ExitStack() as outermost:
            if not held.get(self.root):
                handle = outermost.enter_context(open(self.root / ".git" / LOCK_FILE, "a+b"))
                fcntl.flock(handle, fcntl.LOCK_EX)
                outermost.callback(fcntl.flock, handle, fcntl.LOCK_UN)
            held[self.root] = held.get(self.root, 0) + 1
            try:
                yield
            finally:
                held[self.root] -= 1

    def load_state(self) -> dict[str, Tracked]:
        state, self._partials = read_state(self.root / ".git")
        return state

    def save_state(self, state: dict[str, Tracked]) -> None:
        write_state(self.root / ".git", state, self._partials)

    def file_titles(self) -> tuple[set[str], list[str]]:
        titles, ignored = set(), []
        for entry in os.scandir(self.root):
            # Links and special files are titles too, so a sweep refuses them; a real directory is not one.
            if not entry.name.endswith(SUFFIX) or entry.name.startswith(".") or entry.is_dir(follow_symlinks=False):
                continue
            title = entry.name[: -len(SUFFIX)]
            (titles.add(title) if re.fullmatch(TITLE_PATTERN, title) else ignored.append(entry.name))
        return titles, sorted(ignored)

    def sweep(
        self, *, claimed: "set[str] | frozenset[str] | None" = None, by_default: str | None = None
    ) -> SweepResult:
        with self.lock():
            return self.sweep_locked(claimed=claimed_titles() if claimed is None else claimed, by_default=by_default)

    def sweep_locked(
        self,
        *,
        claimed: "set[str] | frozenset[str]",
        by_default: str | None = None,
        subject: str | None = None,
        trailers: dict[str, str] | None = None,
    ) -> SweepResult:
        repaired = repair_lands(self.git, self.root / ".git")  # first: else a missed land's rows go in as drift
        late.drain(self.root)  # rows appended to files replaced earlier
        state = self.load_state()
        heads = selectors.heads()
        on_disk, ignored = self.file_titles()
        results = [
            self.reconcile(title, state, by_default=by_default, head=heads.get(title))
            for title in sorted(set(heads) | on_disk)
        ]
        self.save_state(state)
        commit = history.commit_pending(
            self.git, self.root, state, exclude=frozenset(claimed), results=results, subject=subject, trailers=trailers
        )
        return SweepResult(results, commit, self.git.head(), frozenset(claimed), ignored, repaired)

    def reconcile(
        self,
        title: str,
        state: dict[str, Tracked],
        *,
        by_default: str | None = None,
        head: "selectors.Head | None" = None,
        repair: bool = True,
    ) -> FileResult:
        """One file against its notebook. With repair=False a file that is not an append is only reported."""
        result = FileResult(title)
        try:
            return self._reconcile(result, state, by_default or settings.NOTEBOOK_VAULT_DEFAULT_BY, head, repair)
        except _Moved:
            result.waiting = "the file changed while it was being swept"
            return result
        finally:
            self._read_stat.pop(title, None)

    def _reconcile(
        self, result: FileResult, state: dict[str, Tracked], by_default: str, head: selectors.Head | None, repair: bool
    ) -> FileResult:
        title = result.title
        path = self.path(title)
        tracked = state.get(title)
        stat = stat_or_none(path)
        if stat is not None and not S_ISREG(stat.st_mode):
            return self._refuse_special(result, state, kind_of(stat.st_mode))
        if (
            tracked
            and head
            and stat_key(stat) == (tracked.size, tracked.mtime_ns, tracked.ino)
            and tracked.mtime_ns < tracked.seen_ns - RACY_NS
            and (head.seq, head.hash) == (tracked.rows, tracked.hash)
            and tracked.layout == LAYOUT
        ):
            return result  # nothing moved on either side
        try:
            found, stat = read_regular(path) or (None, None)
        except NotRegular as exc:  # it became one since the lstat
            return self._refuse_special(result, state, exc.kind)
        self._read_stat[title] = stat_key(stat)
        nb = nb_of(title)

        # What is already known good: the bytes the last sweep left, while the log still holds those rows.
        trusted_rows, trusted_bytes, written = 0, 0, (tracked.rows if tracked else None)
        if (
            tracked
            and found is not None
            and nb is not None
            and len(found) >= tracked.size
            and blob_id(found[: tracked.size]) == tracked.blob
            and (selectors.row_hash(nb, tracked.rows) if tracked.rows else rowformat.GENESIS) == tracked.hash
            and tracked.redactions == view_reads.count_redactions(nb.pk)  # else rows it wrote may hold words now gone
            and tracked.layout == LAYOUT
        ):
            trusted_rows, trusted_bytes, written = tracked.rows, tracked.size, 0

        if found is None:
            if tracked and tracked.rows:
                return self._refuse(
                    result, nb, state, None, "deleted", f"{result.file} was deleted; it held {row_count(tracked.rows)}."
                )
            if nb is None:
                return result
            self._write(state, title, nb)
            result.appended = selectors.head(nb).seq
            return result

        db_lines = canonical_lines(nb, after=trusted_rows)
        file_lines, partial = split_lines(found[trusted_bytes:])
        if partial is not None and json_object(partial) is not None:
            file_lines, partial = [*file_lines, partial], None  # a writer that leaves off the last newline
        gone = view_reads.redacted_digests(nb.pk) if nb is not None else frozenset()
        k, redacted = rows_kept(file_lines, db_lines, gone)  # rows the log redacted since are written again below
        line_no = trusted_rows + k + 1  # the file's line number where the two part

        if (
            k == len(file_lines)
            or k == len(db_lines)
            or (written is not None and k >= written)
            or (written is None and imported_already(file_lines[k : k + 1], db_lines[k : k + 1]))
        ):  # the last: a file the vault never wrote, whose rows it imported before it could rewrite it
            if written is not None and k == len(file_lines) and trusted_rows + k < written and partial is None:
                has = row_count(trusted_rows + k)
                message = f"{result.file} was cut short: it has {has}; the vault had written {written}."
                return self._refuse(result, nb, state, found, "truncated", message, repair=repair)
            if partial is not None:
                key = blob_id(found)
                if self._partials.get(title) != key:
                    self._partials[title] = key
                    result.waiting = (
                        f"line {trusted_rows + len(file_lines) + 1} has no newline yet (still being written?)"
                    )
                    return result
                file_lines = [*file_lines, partial]  # unchanged since the last sweep: judge it as it is
            self._partials.pop(title, None)
            if redacted:
                result.redacted = tuple(sorted({*result.redacted, *(trusted_rows + i for i in redacted)}))
            outside = file_lines[k:]
            if outside and not any(line.strip() for line in outside):
                outside = []  # only blank lines were added: nothing to import, the file is rewritten clean
            # Rows an earlier sweep imported but could not rewrite (the file moved, or it stopped): not imported again.
            already = imported_already(outside, db_lines[k:]) if outside else 0
            outside, line_no = outside[already:], line_no + already
            if outside:
                try:
                    appended = imports.append_rows(
                        notebook=title,
                        lines=[line.decode("utf-8") for line in outside],
                        by_default=by_default,
                        first_line=line_no,
                    )
                except UnicodeDecodeError as exc:
                    message = f"{result.file} line {line_no}: not UTF-8 text ({exc.reason})"
                    return self._refuse(result, nb, state, found, "refused_append", message, repair=repair)
                except NotebookError as exc:
                    message = f"{result.file}: rows appended outside the log were refused: {exc.message}"
                    return self._refuse(result, nb, state, found, "refused_append", message, repair=repair)
                nb = appended.notebook
                result.imported, result.imported_by = appended.seqs, appended.by
                self._write(state, title, nb)
                return result
            if nb is None:
                return result  # an empty file with no notebook: nothing to mirror yet
            missing = db_lines[k:]
            result.appended = len(missing) - already
            if len(file_lines) > k or (found and not found.endswith(b"\n")) or redacted:
                self._write(state, title, nb)  # blank lines, no last newline, or redacted
            elif missing:
                added = b"".join(line + b"\n" for line in missing)
                append_bytes(path, added)
                self._track(state, title, nb, found + added)
            else:
                self._track(state, title, nb, found)
            return result

        lines, rows = trusted_rows + len(file_lines), trusted_rows + len(db_lines)
        message = (
            f"{result.file} is not an append of the log: line {line_no} differs from the log's row {line_no} "
            f"(the file has {lines} complete lines, the log {rows} rows)."
        )
        return self._refuse(result, nb, state, found, "rewritten", message, repair=repair)

    def _track(self, state: dict[str, Tracked], title: str, nb: Notebook | None, content: bytes) -> None:
        stat = os.lstat(self.path(title))
        rows = content.count(b"\n")  # every file the vault leaves ends each row with a newline
        state[title] = Tracked(
            rows=rows,
            size=len(content),
            blob=blob_id(content),
            hash=_hash_of_row(nb, rows),
            mtime_ns=stat.st_mtime_ns,
            ino=stat.st_ino,
            seen_ns=time.time_ns(),
            redactions=content.count(REDACT_ROW),  # in what was written: a redaction since is not counted
            layout=LAYOUT,
        )

    def _write(self, state: dict[str, Tracked], title: str, nb: Notebook) -> None:
        """The file as the log gives it, in place of one the sweep read unless it changed since."""
        content, path = canonical_bytes(nb), self.path(title)
        read = self._read_stat.get(title)
        if title in self._read_stat and stat_key(stat_or_none(path)) != read:
            raise _Moved  # an outside writer reached the file after it was read: never replace what was not judged
        # A writer ignoring the lock may still append to the file being replaced: keep it reachable, drain it after.
        link = late.retire(path, title, ino=read[2], offset=read[0]) if read else None
        if read and link is None:
            raise _Moved
        try:
            write_atomic(path, content)
        except BaseException:
            if link is not None:
                link.unlink(missing_ok=True)  # not replaced: the link names the live file, which the sweep still reads
            raise
        self._track(state, title, nb, content)
        if link is not None:
            late.drain(self.root)

    def _refuse(
        self,
        result: FileResult,
        nb: Notebook | None,
        state: dict[str, Tracked],
        found: bytes | None,
        problem: str,
        message: str,
        *,
        repair: bool = True,
    ) -> FileResult:
        """Never import it: keep the file as found on a side branch, restore it from the log, raise the alarm."""
        message = bounded(message, alarms.MAX_MESSAGE)
        result.problem, result.message = problem, message
        if not repair:
            return result
        result.evidence_ref, result.evidence_sha = history.keep_evidence(
            self.git, result.title, found, problem, message
        )
        return self._restore(result, nb, state)

    def _refuse_special(self, result: FileResult, state: dict[str, Tracked], kind: str) -> FileResult:
        """A link or special file in a notebook's place: never read (a link could reach any secret), only removed."""
        path = self.path(result.title)
        if kind == "a directory":
            result.waiting = f"{result.file} is a directory, not a file: move it away"
            return result
        try:
            target = f" (pointing to {shown(os.readlink(path), 200)})" if kind == "a symbolic link" else ""
        except OSError:
            target = ""
        result.problem = "not_a_file"
        result.message = (
            f"{result.file} was {kind}{target}, not a regular file: the vault reads no link or special file. "
            "Nothing of it was read or committed; it was removed and the file written again from the log."
        )
        path.unlink(missing_ok=True)  # the entry: a link's target is untouched
        self._read_stat.pop(result.title, None)
        return self._restore(result, nb_of(result.title), state)

    def _restore(self, result: FileResult, nb: Notebook | None, state: dict[str, Tracked]) -> FileResult:
        """A refused file written again from the log (gone with no notebook), and the alarm raised for Dad."""
        if nb is not None:
            self._write(state, result.title, nb)
        else:
            self.path(result.title).unlink(missing_ok=True)  # no notebook to restore: the evidence has it all
            state.pop(result.title, None)
        self._partials.pop(result.title, None)
        alarms.record_vault_alarm(result)
        return result


class _Moved(Exception):
    """The file changed between the sweep's read and its write."""


def nb_of(title: str) -> Notebook | None:
    return Notebook.objects.filter(title=title).first()


def _hash_of_row(nb: Notebook | None, rows: int) -> str:
    return (selectors.row_hash(nb, rows) if nb is not None and rows else None) or rowformat.GENESIS
