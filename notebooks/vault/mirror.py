"""The vault's sweep: every notebook's file brought to exactly its rows, outside appends imported,
anything else refused, kept as evidence and restored, and one commit of what changed."""

import fcntl
import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Container, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from django.conf import settings

from notebooks.log import imports, rowformat, selectors, snapshots
from notebooks.log.errors import NotebookError
from notebooks.models import TITLE_PATTERN, Notebook
from notebooks.vault import alarms

from .git import Git, Person, blob_id, safe_ref_part

SUFFIX = ".jsonl"
REDACT_ROW = b'"op": "redact"'  # exactly once in each redact row of an export (quotes in values are escaped)
STATE_FILE = "notebooks-vault-state.json"
LOCK_FILE = "notebooks-vault.lock"
EVIDENCE_PREFIX = "refs/heads/evidence/"
_HELD = threading.local()  # vault roots whose lock this thread holds, with its depth


@dataclass
class Tracked:
    """What a sweep last left in a file, so the next one knows what is ours and what was added."""

    rows: int
    size: int
    blob: str
    hash: str  # the log's hash of row `rows`
    mtime_ns: int = 0
    ino: int = 0
    seen_ns: int = 0  # when the file was last read and found to be this
    redactions: int = 0  # the notebook's redact rows when the file was written: a new one takes words out of it


# A file's stat is trusted only if it was this much older than the moment it was last verified: a change
# within the filesystem's timestamp granularity could otherwise keep size and mtime (git's "racily clean").
RACY_NS = 2_000_000_000


@dataclass
class FileResult:
    title: str
    appended: int = 0  # database rows written to the file
    imported: tuple[int, ...] = ()  # seqs of rows imported from an outside append
    imported_by: tuple[str, ...] = ()
    problem: str = ""  # rewritten, truncated, deleted, refused_append
    message: str = ""
    evidence_ref: str = ""
    evidence_sha: str = ""
    waiting: str = ""  # why the file was left for the next sweep
    redacted: tuple[int, ...] = ()  # rows written again without words redacted since the vault wrote them

    @property
    def file(self) -> str:
        return self.title + SUFFIX


@dataclass
class SweepResult:
    files: list[FileResult]
    commit: str | None
    head: str
    claimed: frozenset[str] = frozenset()
    ignored: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[FileResult]:
        return [f for f in self.files if f.problem]

    def report(self) -> list[str]:
        """One line per thing that happened, for the command line."""
        out = []
        for f in self.files:
            if f.imported:
                who = ", ".join(sorted(set(f.imported_by)))
                out.append(
                    f"{f.file}: imported {len(f.imported)} appended row(s) (seq {_ranges(f.imported)}, by {who})"
                )
            if f.redacted:
                out.append(f"{f.file}: took redacted words out of {_rows_named(f.redacted)}")
            if f.appended:
                held = " (claimed: written, not committed)" if f.title in self.claimed else ""
                out.append(f"{f.file}: wrote {f.appended} row(s){held}")
            if f.waiting:
                out.append(f"{f.file}: left for the next sweep: {f.waiting}")
        out += [f"ignored {name}: not a notebook title" for name in self.ignored]
        if self.commit:
            out.append(f"committed {self.commit[:12]}")
        return out


def _rows_named(seqs: "tuple[int, ...] | list[int]") -> str:
    return f"row {seqs[0]}" if len(seqs) == 1 else f"rows {_ranges(seqs)}"


def _rows(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


def _ranges(seqs: "tuple[int, ...] | list[int]") -> str:
    """41, 42, 43, 45 → '41-43, 45'."""
    parts: list[str] = []
    items = sorted(seqs)
    i = 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1] == items[j] + 1:
            j += 1
        parts.append(str(items[i]) if i == j else f"{items[i]}-{items[j]}")
        i = j + 1
    return ", ".join(parts)


def canonical_lines(notebook: Notebook | None, *, after: int = 0) -> list[bytes]:
    """The notebook's rows after `after`, each exactly as `notebook export` prints it (without the newline)."""
    if notebook is None:
        return []
    return [rowformat.dumps(row).encode("utf-8") for row in selectors.rows(notebook, after=after)]


def canonical_bytes(notebook: Notebook) -> bytes:
    """The file a notebook is: its export's lines, each ending in a newline."""
    return b"".join(line + b"\n" for line in canonical_lines(notebook))


def split_lines(data: bytes) -> tuple[list[bytes], bytes | None]:
    """Complete lines, and an unfinished last line (no newline yet) when there is one.

    Only b"\\n" ends a line: JSON may carry U+2028 unescaped, which str.splitlines would split on.
    """
    if not data:
        return [], None
    parts = data.split(b"\n")
    last = parts.pop()
    return parts, (last or None)


def _is_json_object(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except (ValueError, RecursionError):
        return False


def carried(old: list[bytes], new: list[bytes], gone: Container[str]) -> tuple[int, list[int]]:
    """How many of the rows `old` holds the lines `new` begin with, each the same or that row with its words
    redacted since (words whose digest is in `gone`, the log's redacted digests); and the positions (from 1) of
    the redacted ones."""
    redacted = []
    for k, (was, now) in enumerate(zip(old, new, strict=False)):
        if was != now:
            if not redacted_since(was, now, gone):
                return k, redacted
            redacted.append(k + 1)
    return min(len(old), len(new)), redacted


def redacted_since(was: bytes, now: bytes, gone: Container[str]) -> bool:
    """Whether export line `now` is row `was` with its words redacted: the same row (its hash covers the words'
    digest, not the words), only the words differ, `was` held the words whose digest `now` names, and a redact
    row of the log names that digest (`gone`)."""
    try:
        before, after = json.loads(was), json.loads(now)
    except (ValueError, RecursionError):
        return False
    if not isinstance(before, dict) or not isinstance(after, dict) or after.get("redacted") is not True:
        return False
    if after.get("digest") not in gone:
        return False
    differ = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)} - {"redacted", "digest"}
    if len(differ) != 1 or "hash" not in after or before.get("hash") != after["hash"]:
        return False
    words = before.get(differ.pop())
    return isinstance(words, str) and rowformat.digest_of(words) == after.get("digest")


class Vault:
    """A directory that is a git repository holding `<title>.jsonl` for every notebook."""

    def __init__(self, root: "Path | str | None" = None) -> None:
        self.root = Path(root or settings.NOTEBOOK_VAULT).resolve()
        self.git = Git(self.root)
        self._partials: dict[str, str] = {}  # title → the file's blob when its last line was unfinished
        self._read_stat: dict[str, tuple[int, int, int] | None] = {}  # title → the file's stat when it was read

    # ----- the directory and its bookkeeping ------------------------------------------------------

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
        """One sweep, take, checkpoint or land at a time, across processes (the watcher and the web).

        Re-entrant within a thread, so sessions can hold it around their own transaction and call take or land
        inside: the order is always the vault's lock, then the database's, as in a sweep, so the two cannot deadlock.
        """
        self.ensure()
        held = _HELD.__dict__.setdefault("roots", {})
        if held.get(self.root):
            held[self.root] += 1
            try:
                yield
            finally:
                held[self.root] -= 1
            return
        with open(self.root / ".git" / LOCK_FILE, "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            held[self.root] = 1
            try:
                yield
            finally:
                held.pop(self.root, None)
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _state_path(self) -> Path:
        return self.root / ".git" / STATE_FILE

    def load_state(self) -> dict[str, Tracked]:
        try:
            raw = json.loads(self._state_path().read_text())
        except (OSError, ValueError):
            self._partials = {}
            return {}
        state = {}
        for title, fields in raw.get("files", {}).items():
            try:
                state[title] = Tracked(**fields)
            except TypeError:
                continue  # an older layout: the slow path re-derives it
        self._partials = dict(raw.get("partial", {}))
        return state

    def save_state(self, state: dict[str, Tracked]) -> None:
        data = {"version": 1, "files": {t: asdict(s) for t, s in sorted(state.items())}, "partial": self._partials}
        _write_atomic(self._state_path(), json.dumps(data, indent=1).encode())

    def file_titles(self) -> tuple[set[str], list[str]]:
        titles, ignored = set(), []
        for entry in os.scandir(self.root):
            if not entry.name.endswith(SUFFIX) or entry.name.startswith(".") or not entry.is_file():
                continue
            title = entry.name[: -len(SUFFIX)]
            (titles.add(title) if re.fullmatch(TITLE_PATTERN, title) else ignored.append(entry.name))
        return titles, sorted(ignored)

    # ----- one sweep ------------------------------------------------------------------------------

    def sweep(
        self, *, claimed: "set[str] | frozenset[str] | None" = None, by_default: str | None = None
    ) -> SweepResult:
        """Bring every file to its notebook's rows and commit what changed outside the claimed files."""
        from .claims import claimed_titles

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
        state = self.load_state()
        heads = selectors.heads()
        on_disk, ignored = self.file_titles()
        results = [
            self.reconcile(
                title, state, by_default=by_default or settings.NOTEBOOK_VAULT_DEFAULT_BY, head=heads.get(title)
            )
            for title in sorted(set(heads) | on_disk)
        ]
        self.save_state(state)
        commit = self.commit_pending(
            state, exclude=frozenset(claimed), results=results, subject=subject, trailers=trailers
        )
        return SweepResult(
            files=results, commit=commit, head=self.git.head(), claimed=frozenset(claimed), ignored=ignored
        )

    def reconcile(
        self,
        title: str,
        state: dict[str, Tracked],
        *,
        by_default: str,
        head: "selectors.Head | None" = None,
        repair: bool = True,
    ) -> FileResult:
        """One file against its notebook. With repair=False a file that is not an append is only reported."""
        result = FileResult(title)
        try:
            return self._reconcile(result, state, by_default=by_default, head=head, repair=repair)
        except _Moved:
            result.waiting = "the file changed while it was being swept"
            return result
        finally:
            self._read_stat.pop(title, None)

    def _reconcile(
        self,
        result: FileResult,
        state: dict[str, Tracked],
        *,
        by_default: str,
        head: "selectors.Head | None",
        repair: bool,
    ) -> FileResult:
        title = result.title
        path = self.path(title)
        tracked = state.get(title)
        try:
            stat = path.stat()
        except FileNotFoundError:
            stat = None
        if (
            tracked
            and stat
            and head
            and (stat.st_size, stat.st_mtime_ns, stat.st_ino) == (tracked.size, tracked.mtime_ns, tracked.ino)
            and tracked.mtime_ns < tracked.seen_ns - RACY_NS
            and (head.seq, head.hash) == (tracked.rows, tracked.hash)
        ):
            return result  # nothing moved on either side
        found = path.read_bytes() if stat else None
        self._read_stat[title] = _stat_key(stat)
        nb = Notebook.objects.filter(title=title).first()

        # What is already known good: the bytes the last sweep left, while the log still holds those rows.
        trusted_rows, trusted_bytes, written = 0, 0, (tracked.rows if tracked else None)
        if (
            tracked
            and found is not None
            and nb is not None
            and len(found) >= tracked.size
            and blob_id(found[: tracked.size]) == tracked.blob
            and (selectors.row_hash(nb, tracked.rows) if tracked.rows else rowformat.GENESIS) == tracked.hash
            and tracked.redactions == snapshots.count_redactions(nb.pk)  # else rows it wrote may hold words now gone
        ):
            trusted_rows, trusted_bytes, written = tracked.rows, tracked.size, 0

        if found is None:
            if tracked and tracked.rows:
                return self._refuse(
                    result, nb, state, None, "deleted", f"{result.file} was deleted; it held {_rows(tracked.rows)}."
                )
            if nb is None:
                return result
            self._write(path, canonical_bytes(nb), state, title, nb)
            result.appended = selectors.head(nb).seq
            return result

        db_lines = canonical_lines(nb, after=trusted_rows)
        file_lines, partial = split_lines(found[trusted_bytes:])
        if partial is not None and _is_json_object(partial):
            file_lines, partial = [*file_lines, partial], None  # a writer that leaves off the last newline
        gone = selectors.redacted_digests(nb) if nb is not None else frozenset()
        k, redacted = carried(file_lines, db_lines, gone)  # rows the log redacted since are written again below
        line_no = trusted_rows + k + 1  # the file's line number where the two part

        if k == len(file_lines) or k == len(db_lines) or (written is not None and k >= written):
            if written is not None and k == len(file_lines) and trusted_rows + k < written and partial is None:
                message = (
                    f"{result.file} was cut short: it has {_rows(trusted_rows + k)}; the vault had written {written}."
                )
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
            already = 0
            if outside and _already_in_log(outside, db_lines[k:]):
                # Imported by an earlier sweep that could not rewrite the file (moved, or stopped): rewrite it only.
                already, outside = len(outside), []
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
                self._write(path, canonical_bytes(nb), state, title, nb)
                return result
            if nb is None:
                return result  # an empty file with no notebook: nothing to mirror yet
            missing = db_lines[k:]
            result.appended = len(missing) - already
            if len(file_lines) > k or (found and not found.endswith(b"\n")) or redacted:
                self._write(path, canonical_bytes(nb), state, title, nb)  # blank lines, no last newline, or redacted
            elif missing:
                added = b"".join(line + b"\n" for line in missing)
                _append_bytes(path, added)
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

    # ----- writing files ----------------------------------------------------------------------------

    def _track(self, state: dict[str, Tracked], title: str, nb: Notebook | None, content: bytes) -> None:
        stat = self.path(title).stat()
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
        )

    def _write(self, path: Path, content: bytes, state: dict[str, Tracked], title: str, nb: Notebook) -> None:
        if title in self._read_stat and _stat_key(_stat_or_none(path)) != self._read_stat[title]:
            raise _Moved  # an outside writer reached the file after it was read: never replace what was not judged
        _write_atomic(path, content)
        self._track(state, title, nb, content)

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
        result.problem, result.message = problem, message
        if not repair:
            return result
        ref, sha = self.keep_evidence(result.title, found, problem, message)
        result.evidence_ref, result.evidence_sha = ref, sha
        if nb is not None:
            self._write(self.path(result.title), canonical_bytes(nb), state, result.title, nb)
        else:
            self.path(result.title).unlink(missing_ok=True)  # no notebook to restore: the evidence has it all
            state.pop(result.title, None)
        self._partials.pop(result.title, None)
        alarms.record_vault_alarm(
            title=result.title, problem=problem, message=message, evidence_ref=ref, evidence_sha=sha
        )
        return result

    def keep_evidence(self, title: str, found: bytes | None, problem: str, message: str) -> tuple[str, str]:
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        base = f"{EVIDENCE_PREFIX}{safe_ref_part(title)}-{stamp}"
        ref, n = base, 1
        while self.git.rev(ref) is not None:
            n += 1
            ref = f"{base}-{n}"
        body = (
            f"evidence: {title}{SUFFIX} as found ({problem})\n\n{message}\n\n"
            "The vault refused it and restored the file from the log.\n\n"
            f"Notebook: {title}\nProblem: {problem}\n"
        )
        sha = self.git.commit_files(
            parent=self.git.head(), files={title + SUFFIX: found}, message=body, ref=ref, allow_empty=True
        )
        assert sha is not None
        return ref, sha

    # ----- committing ------------------------------------------------------------------------------

    def pending(self, state: dict[str, Tracked], *, exclude: frozenset[str] = frozenset()) -> dict[str, bytes]:
        """Files whose content is not what HEAD holds, outside `exclude`, as the bytes the sweep checked."""
        tree = self.git.ls_tree(self.git.head())
        out = {}
        for title, tracked in state.items():
            name = title + SUFFIX
            if title in exclude or tree.get(name) == tracked.blob:
                continue
            try:
                data = self.path(title).read_bytes()
            except FileNotFoundError:
                continue
            if blob_id(data) == tracked.blob:  # changed since the check: the next sweep judges it
                out[name] = data
        return out

    def commit_pending(
        self,
        state: dict[str, Tracked],
        *,
        exclude: frozenset[str],
        results: list[FileResult] | None = None,
        subject: str | None = None,
        trailers: dict[str, str] | None = None,
        author: Person | None = None,
    ) -> str | None:
        files = self.pending(state, exclude=exclude)
        if not files:
            return None
        head = self.git.head()
        message = self.drift_message(head, files, results or [], subject=subject, trailers=trailers)
        sha = self.git.commit_files(
            parent=head, files=dict(files), message=message, author=author, ref=self.git.branch_ref()
        )
        self.git.sync_index()
        return sha

    def drift_message(
        self,
        head: str,
        files: dict[str, bytes],
        results: list[FileResult],
        *,
        subject: str | None = None,
        trailers: dict[str, str] | None = None,
    ) -> str:
        """Automatic history: which rows reached which file, and who wrote them."""
        imported = {f.file: set(f.imported) for f in results}
        tree = self.git.ls_tree(head)
        details, actors, counts = [], set(), []
        for name, data in sorted(files.items()):
            old = self.git.blob(tree[name]) if name in tree else b""
            redacted = next((f.redacted for f in results if f.file == name and f.redacted), ())
            if data.startswith(old):
                added = split_lines(data[len(old) :])[0]
            elif redacted:
                details.append(
                    f"{name}: words redacted in the log taken out of {_rows_named(redacted)} (earlier commits still "
                    "hold them)"
                )
                added = split_lines(data)[0][old.count(b"\n") :]
            else:
                details.append(f"{name}: replaced by the file the log gives (it was not a prefix of it)")
                counts.append(f"{name[: -len(SUFFIX)]} replaced")
                continue
            rows = [_row_summary(line) for line in added]
            seqs = [seq for seq, _ in rows if seq is not None]
            who = sorted({by for _, by in rows if by})
            actors.update(who)
            outside = [s for s in seqs if s in imported.get(name, set())]
            note = f"; appended outside and imported: {_ranges(outside)}" if outside else ""
            if rows:
                details.append(f"{name}: {_rows_named(seqs)} by {', '.join(who) or 'nobody'}{note}")
            elif not redacted:
                details.append(f"{name}: a new notebook, no rows yet")
            counts.append(f"{name[: -len(SUFFIX)]} +{len(rows)}" + (" redacted" if redacted else ""))
        head_line = subject or "vault: " + ", ".join(counts)
        tail = {"Actors": ", ".join(sorted(actors)) or "none", **(trailers or {})}
        return head_line + "\n\n" + "\n".join(details) + "\n\n" + "".join(f"{k}: {v}\n" for k, v in tail.items())


class _Moved(Exception):
    """The file changed between the sweep's read and its write."""


def _stat_or_none(path: Path) -> "os.stat_result | None":
    try:
        return path.stat()
    except FileNotFoundError:
        return None


def _stat_key(stat: "os.stat_result | None") -> tuple[int, int, int] | None:
    return None if stat is None else (stat.st_size, stat.st_mtime_ns, stat.st_ino)


def _already_in_log(outside: list[bytes], tail: list[bytes]) -> bool:
    """Whether these outside rows are the log's last rows already: every field they give matches (seq, hash aside)."""
    if not outside or len(outside) > len(tail):
        return False
    for raw, logged in zip(outside, tail[len(tail) - len(outside) :], strict=True):
        try:
            mine, theirs = json.loads(raw), json.loads(logged)
        except ValueError:
            return False
        if not isinstance(mine, dict) or any(theirs.get(k) != v for k, v in mine.items() if k not in ("seq", "hash")):
            return False
    return True


def _row_summary(line: bytes) -> tuple[int | None, str]:
    try:
        obj = json.loads(line)
    except ValueError:
        return None, ""
    if not isinstance(obj, dict):
        return None, ""
    seq = obj.get("seq")
    return (seq if isinstance(seq, int) else None), str(obj.get("by") or "")


def _hash_of_row(nb: Notebook | None, rows: int) -> str:
    if nb is None or rows == 0:
        return rowformat.GENESIS
    return selectors.row_hash(nb, rows) or rowformat.GENESIS


def _write_atomic(path: Path, content: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _append_bytes(path: Path, data: bytes) -> None:
    # Appending in place keeps an outside writer's open file (O_APPEND) pointing at the real file.
    with open(path, "ab") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
