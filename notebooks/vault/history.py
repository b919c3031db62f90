"""The vault's automatic history: commits of files that changed, evidence kept on side branches, and the
messages that say which rows reached which file and who wrote them."""

import time
from pathlib import Path

from notebooks.log.rules.checks import MAX_NAME, shown

from .fileformat import SUFFIX, seq_and_author, split_lines
from .git import Git, blob_id, safe_ref_part
from .results import FileResult, ranges, rows_named
from .state import NotRegular, Tracked, read_bytes_or_none

EVIDENCE_PREFIX = "refs/heads/evidence/"


def commit_pending(
    git: Git,
    root: Path,
    state: dict[str, Tracked],
    *,
    exclude: frozenset[str],
    results: list[FileResult] | None = None,
    subject: str | None = None,
    trailers: dict[str, str] | None = None,
) -> str | None:
    """One commit of the files outside `exclude` whose checked bytes HEAD does not hold; None when there are none."""
    head = git.head()
    tree = git.ls_tree(head)
    files = {}
    for title, tracked in state.items():
        name = title + SUFFIX
        if title in exclude or tree.get(name) == tracked.blob:
            continue
        try:
            data = read_bytes_or_none(root / name)
        except NotRegular:
            continue  # replaced by a link since the sweep judged it: the next sweep refuses it
        if data is not None and blob_id(data) == tracked.blob:  # else changed since the check: the next sweep judges it
            files[name] = data
    if not files:
        return None
    message = drift_message(git, head, files, results or [], subject=subject, trailers=trailers)
    sha = git.commit_files(parent=head, files=files, message=message, ref=git.branch_ref())
    git.sync_index()
    return sha


def drift_message(
    git: Git,
    head: str,
    files: dict[str, bytes],
    results: list[FileResult],
    *,
    subject: str | None = None,
    trailers: dict[str, str] | None = None,
) -> str:
    """Automatic history: which rows reached which file, and who wrote them."""
    imported = {f.file: set(f.imported) for f in results}
    tree = git.ls_tree(head)
    details, actors, counts = [], set(), []
    for name, data in sorted(files.items()):
        old = git.blob(tree[name]) if name in tree else b""
        redacted = next((f.redacted for f in results if f.file == name and f.redacted), ())
        if data.startswith(old):
            added = split_lines(data[len(old) :])[0]
        elif redacted:
            details.append(
                f"{name}: words redacted in the log taken out of {rows_named(redacted)} (earlier commits still "
                "hold them)"
            )
            added = split_lines(data)[0][old.count(b"\n") :]
        else:
            details.append(f"{name}: replaced by the file the log gives (it was not a prefix of it)")
            counts.append(f"{name[: -len(SUFFIX)]} replaced")
            continue
        rows = [seq_and_author(line) for line in added]
        seqs = [seq for seq, _ in rows if seq is not None]
        who = sorted({shown(by, MAX_NAME) for _, by in rows if by})  # one line each: a name never forges a trailer
        actors.update(who)
        outside = [s for s in seqs if s in imported.get(name, set())]
        note = f"; appended outside and imported: {ranges(outside)}" if outside else ""
        if rows:
            details.append(f"{name}: {rows_named(seqs)} by {', '.join(who) or 'nobody'}{note}")
        elif not redacted:
            details.append(f"{name}: a new notebook, no rows yet")
        counts.append(f"{name[: -len(SUFFIX)]} +{len(rows)}" + (" redacted" if redacted else ""))
    head_line = subject or "vault: " + ", ".join(counts)
    tail = {"Actors": ", ".join(sorted(actors)) or "none", **{k: shown(v) for k, v in (trailers or {}).items()}}
    return head_line + "\n\n" + "\n".join(details) + "\n\n" + "".join(f"{k}: {v}\n" for k, v in tail.items())


def keep_evidence(git: Git, title: str, found: bytes | None, problem: str, message: str) -> tuple[str, str]:
    """The file as found, committed on a new evidence branch off HEAD: its ref and commit."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    base = f"{EVIDENCE_PREFIX}{safe_ref_part(title)}-{stamp}"
    ref, n = base, 1
    while git.rev(ref) is not None:
        n += 1
        ref = f"{base}-{n}"
    body = (
        f"evidence: {title}{SUFFIX} as found ({problem})\n\n{message}\n\n"
        "The vault refused it and restored the file from the log.\n\n"
        f"Notebook: {title}\nProblem: {problem}\n"
    )
    sha = git.commit_files(parent=git.head(), files={title + SUFFIX: found}, message=body, ref=ref, allow_empty=True)
    assert sha is not None
    return ref, sha
