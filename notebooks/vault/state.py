"""What the vault keeps beside git, under .git: what each file held after the last sweep, and the lands checked
for a semantic commit; and the careful ways it writes files."""

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

STATE_FILE = "notebooks-vault-state.json"
LANDS_FILE = "notebooks-vault-lands"

# A file's stat is trusted only if it was this much older than the moment it was last verified: a change
# within the filesystem's timestamp granularity could otherwise keep size and mtime (git's "racily clean").
RACY_NS = 2_000_000_000


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
    write_atomic(git_dir / STATE_FILE, json.dumps(data, indent=1).encode())


def read_lands_checked(git_dir: Path) -> int:
    """The id of the last land event whose semantic commit was found or made (0 when none was)."""
    try:
        return int((git_dir / LANDS_FILE).read_text().strip() or 0)
    except (OSError, ValueError):
        return 0


def write_lands_checked(git_dir: Path, event_id: int) -> None:
    write_atomic(git_dir / LANDS_FILE, f"{event_id}\n".encode())


def stat_or_none(path: Path) -> "os.stat_result | None":
    try:
        return path.stat()
    except FileNotFoundError:
        return None


def stat_key(stat: "os.stat_result | None") -> tuple[int, int, int] | None:
    return None if stat is None else (stat.st_size, stat.st_mtime_ns, stat.st_ino)


def write_atomic(path: Path, content: bytes) -> None:
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


def append_bytes(path: Path, data: bytes) -> None:
    # Appending in place keeps an outside writer's open file (O_APPEND) pointing at the real file.
    with open(path, "ab") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
