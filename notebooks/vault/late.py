"""Rows appended to a file being replaced are never lost: the old file is linked under .git/notebooks-vault-retired/
with the offset read up to, and each sweep appends the whole lines that grew past it to the live file, where they are
judged as any outside append. A link goes once its file has had no write for GRACE_NS."""

import os
import time
from pathlib import Path
from stat import S_ISREG

from .fileformat import SUFFIX
from .state import append_bytes

RETIRED_DIR = "notebooks-vault-retired"
GRACE_NS = 60_000_000_000  # a writer's handle to a replaced file is watched this long after its last write


def retire(path: Path, title: str, *, ino: int, offset: int) -> Path | None:
    """Link the file about to be replaced; None when it is gone or is no longer the inode that was read."""
    where = path.parent / ".git" / RETIRED_DIR
    where.mkdir(exist_ok=True)
    link = where / f"{title}.{ino}.{offset}"
    link.unlink(missing_ok=True)
    try:
        os.link(path, link, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if link.stat().st_ino != ino:
        link.unlink()
        return None
    return link


def drain(root: Path) -> None:
    """Append to each live file the whole lines its replaced files received late."""
    where = root / ".git" / RETIRED_DIR
    if not where.is_dir():
        return
    for link in sorted(where.iterdir()):
        title, ino, offset = _parse(link.name)
        if title is not None:
            _drain_one(link, root / (title + SUFFIX), ino, offset)


def _drain_one(link: Path, live: Path, ino: int, offset: int) -> None:
    try:
        stat, live_stat = link.stat(), os.lstat(live)
    except FileNotFoundError:
        return  # the live file is restored first (a deleted file is the sweep's to judge); the link waits
    if not S_ISREG(live_stat.st_mode):
        return  # a link or special file in its place: the sweep refuses it and writes the file again first
    if live_stat.st_ino == ino:  # not replaced after all (it failed): the sweep reads these bytes in place
        link.unlink(missing_ok=True)
        return
    if live_stat.st_size and not _ends_with_newline(live, live_stat.st_size):
        return  # another writer's line is half written there: never splice into it
    with open(link, "rb") as handle:
        handle.seek(offset)
        extra = handle.read()
    idle = time.time_ns() - stat.st_ctime_ns > GRACE_NS  # ctime moves with every write and with the link itself
    take = extra if idle else extra[: extra.rfind(b"\n") + 1]  # a half-written line waits for its end
    if take:
        append_bytes(live, take if take.endswith(b"\n") else take + b"\n")
    if idle and offset + len(take) >= stat.st_size:
        link.unlink(missing_ok=True)
    elif take:
        link.rename(link.with_name(f"{link.name.rsplit('.', 2)[0]}.{ino}.{offset + len(take)}"))


def _ends_with_newline(path: Path, size: int) -> bool:
    with open(path, "rb") as handle:
        handle.seek(size - 1)
        return handle.read(1) == b"\n"


def _parse(name: str) -> tuple[str | None, int, int]:
    parts = name.rsplit(".", 2)
    if len(parts) != 3 or not (parts[1] + parts[2]).isascii() or not parts[1].isdigit() or not parts[2].isdigit():
        return None, 0, 0
    return parts[0], int(parts[1]), int(parts[2])
