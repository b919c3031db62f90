"""What the vault keeps under .git (what each file held after the last sweep, the lands checked), and how it reads
and writes files: never through a link."""

import errno
import json
import os
import stat
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from django.conf import settings

STATE_FILE = "notebooks-vault-state.json"
LANDS_FILE = "notebooks-vault-lands"

# A file's stat is trusted only if it was this much older than the moment it was last verified: a change
# within the filesystem's timestamp granularity could otherwise keep size and mtime (git's "racily clean").
RACY_NS = 2_000_000_000
# What the log writes into a file: 1 withholds the plain digest of redacted words (older files still name it).
LAYOUT = 1


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
    layout: int = 0  # LAYOUT when written: a file of an older one is compared whole once, and written again


def read_state(git_dir: Path) -> tuple[dict[str, Tracked], dict[str, str]]:
    """Each file's Tracked, and the blobs of files whose last line was unfinished; empty when there is none."""
    try:
        raw = json.loads((git_dir / STATE_FILE).read_text())
    except (OSError, ValueError):
        return {}, {}
    state = {}
    for title, fields in raw.get("files", {}).items():
        try:
            state[title] = Tracked(**fields)
        except TypeError:
            continue  # an older layout: the slow path re-derives it
    return state, dict(raw.get("partial", {}))


def write_state(git_dir: Path, state: dict[str, Tracked], partials: dict[str, str]) -> None:
    data = {"version": 1, "files": {t: asdict(s) for t, s in sorted(state.items())}, "partial": partials}
    write_atomic(git_dir / STATE_FILE, json.dumps(data, indent=1).encode(), mode=0o600)


def read_lands_checked(git_dir: Path) -> int:
    """The id of the last land event whose semantic commit was found or made (0 when none was)."""
    try:
        return int((git_dir / LANDS_FILE).read_text().strip() or 0)
    except (OSError, ValueError):
        return 0


def write_lands_checked(git_dir: Path, event_id: int) -> None:
    write_atomic(git_dir / LANDS_FILE, f"{event_id}\n".encode(), mode=0o600)


def stat_or_none(path: Path) -> "os.stat_result | None":
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def stat_key(stat: "os.stat_result | None") -> tuple[int, int, int] | None:
    return None if stat is None else (stat.st_size, stat.st_mtime_ns, stat.st_ino)


class NotRegular(OSError):
    """A symbolic link, a directory or a special file where a notebook's file should be: never read or written."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(f"{path.name} is {kind}, not a regular file")
        self.path, self.kind = path, kind


KINDS = {
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a named pipe",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFREG: "a regular file",
}


def kind_of(mode: int) -> str:
    return KINDS.get(stat.S_IFMT(mode), "not a regular file")


# No link is followed (a link to var/secret_key would be committed), and a pipe never blocks the open.
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _open_regular(path: Path, flags: int, mode: int = 0o600) -> tuple[int, os.stat_result]:
    """A descriptor of the regular file at `path` (never through a link) and its stat, taken after the open."""
    try:
        fd = os.open(path, flags, mode)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):  # O_NOFOLLOW met a link
            raise NotRegular(path, "a symbolic link") from None
        if exc.errno in (errno.ENXIO, errno.EISDIR, errno.EOPNOTSUPP):  # a pipe with no reader, a directory, a socket
            raise NotRegular(path, kind_of(os.lstat(path).st_mode)) from None
        raise
    found = os.fstat(fd)
    if not stat.S_ISREG(found.st_mode):
        os.close(fd)
        raise NotRegular(path, kind_of(found.st_mode))
    return fd, found


def read_regular(path: Path) -> "tuple[bytes, os.stat_result] | None":
    """A regular file's bytes and its stat after the open, or None when there is none (NotRegular for any other)."""
    before = stat_or_none(path)
    if before is None:
        return None
    if not stat.S_ISREG(before.st_mode):
        raise NotRegular(path, kind_of(before.st_mode))  # not even opened: a device's open may do something
    try:
        fd, found = _open_regular(path, _READ)
    except FileNotFoundError:
        return None
    try:
        chunks = []
        while chunk := os.read(fd, max(found.st_size, 1 << 16)):
            chunks.append(chunk)
        return b"".join(chunks), found
    finally:
        os.close(fd)


def read_bytes_or_none(path: Path) -> bytes | None:
    found = read_regular(path)
    return None if found is None else found[0]


def vault_file_mode() -> int:
    """The mode of every notebook file the vault writes (settings.NOTEBOOK_VAULT_FILE_MODE; docs/DEPLOY.md)."""
    return int(settings.NOTEBOOK_VAULT_FILE_MODE) & 0o7777


def write_atomic(path: Path, content: bytes, *, mode: int | None = None) -> None:
    """`content` as the file at `path` in one rename (a link is replaced, not followed), `mode` or the vault's."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), vault_file_mode() if mode is None else mode)  # as set, whatever the umask
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def append_bytes(path: Path, data: bytes) -> None:
    """Append to a notebook's file (created with the vault's file mode when absent); never through a link."""
    # Appending in place keeps an outside writer's open file (O_APPEND) pointing at the real file.
    mode = vault_file_mode()
    fd, found = _open_regular(path, _APPEND, mode)
    with os.fdopen(fd, "ab") as handle:
        if found.st_uid == os.geteuid() and stat.S_IMODE(found.st_mode) != mode:
            os.fchmod(fd, mode)  # a file the vault created before the setting changed
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
