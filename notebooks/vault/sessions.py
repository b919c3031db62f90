"""Take, checkpoint and land in git, as the take/land seed designs them, for a session on one notebook.

The sessions code calls these with what it knows (title, session id, actor, plan, summary, its rows);
they keep the git side: take records pending drift and returns the base, checkpoint keeps recovery
evidence on a side ref, land commits drift apart from the one semantic commit. The watcher learns what
is claimed from claims.claimed_titles().
"""

import json
from collections.abc import Container
from dataclasses import dataclass

from django.conf import settings

from notebooks.log import selectors
from notebooks.log.errors import Conflict, Invalid

from .claims import claimed_titles
from .git import Person, safe_ref_part
from .mirror import SUFFIX, FileResult, Vault, _ranges, canonical_bytes, carried, split_lines

CHECKPOINT_PREFIX = "refs/checkpoints/"


@dataclass(frozen=True)
class Landed:
    semantic: str | None  # the session's one commit; None for a no-op land
    drift: tuple[str, ...]  # ordinary commits made on the way, in order
    rows: tuple[int, ...]

    @property
    def noop(self) -> bool:
        return self.semantic is None


def vault_enabled() -> bool:
    """Whether sessions should call the vault: NOTEBOOK_VAULT set (or NOTEBOOK_VAULT_ENABLED=1)."""
    return bool(settings.NOTEBOOK_VAULT_ENABLED)


def vault_take(title: str, *, session_id: "str | int | None" = None, vault: Vault | None = None) -> str:
    """Sweep, commit pending drift as an ordinary commit, and return that head: the session's base_sha."""
    selectors.get_notebook(title)
    v = vault or Vault()
    with v.lock():
        trailers = {"Before-Take": title} | ({"Session": str(session_id)} if session_id is not None else {})
        v.sweep_locked(
            claimed=claimed_titles() - {title},
            subject=f"vault: pending drift, recorded before the take of {title}",
            trailers=trailers,
        )
        return v.git.head()


def vault_checkpoint(
    title: str, *, session_id: "str | int", base_sha: str, note: str = "", vault: Vault | None = None
) -> str:
    """A recovery commit of the claimed file as it stands, on refs/checkpoints/<session>. Moves nothing else.

    It is evidence, not a new base: land compares with base_sha, never with a checkpoint.
    """
    selectors.get_notebook(title)
    v = vault or Vault()
    with v.lock():
        base = _commit(v, base_sha)
        state = v.load_state()
        # Rows the log holds are written first; a file that is not an append is kept exactly as found.
        checked = v.reconcile(
            title,
            state,
            by_default=settings.NOTEBOOK_VAULT_DEFAULT_BY,
            head=selectors.heads().get(title),
            repair=False,
        )
        v.save_state(state)
        path = v.path(title)
        found = path.read_bytes() if path.exists() else None
        ref = CHECKPOINT_PREFIX + safe_ref_part(str(session_id))
        warning = f"\n\nWARNING: {checked.message}" if checked.problem else ""
        message = (
            f"checkpoint: {title}{SUFFIX} for session {session_id}\n\n"
            + (note.strip() + "\n\n" if note.strip() else "")
            + "Recovery evidence only: the final gate compares with the take's base, never with a checkpoint."
            + warning
            + f"\n\nSession: {session_id}\nBase: {base}\nNotebook: {title}\n"
        )
        sha = v.git.commit_files(
            parent=v.git.rev(ref) or base, files={title + SUFFIX: found}, message=message, ref=ref, allow_empty=True
        )
        assert sha is not None
        return sha


def vault_land(
    title: str,
    *,
    actor: str,
    plan: str,
    summary: str,
    session_id: "str | int",
    base_sha: str,
    seqs: "list[int] | tuple[int, ...]",
    vault: Vault | None = None,
) -> Landed:
    """Drift first as ordinary commits, then the session's rows as one semantic commit by its actor.

    The final gate: the claimed file at base_sha must be a byte-for-byte prefix of the file as found and
    of the file being landed. No rows of the session: a no-op (no semantic commit, never an empty one).
    """
    nb = selectors.get_notebook(title)
    v = vault or Vault()
    name = title + SUFFIX
    with v.lock():
        base = _commit(v, base_sha)
        done = _landed_already(v, base, session_id, actor)
        if done is not None:
            return done  # a retry after the database's side failed: git already holds the land
        at_base = v.git.file_at(base, name) or b""
        path = v.path(title)
        gone = selectors.redacted_digests(nb)
        _gate(at_base, path.read_bytes() if path.exists() else b"", name, base, "the file as found", gone)

        sweep = v.sweep_locked(
            claimed=claimed_titles() | {title},
            subject=f"vault: drift, recorded before the land of {title} (session {session_id})",
            trailers={"Before-Land": title, "Session": str(session_id)},
        )
        drift = [sweep.commit] if sweep.commit else []
        mine = next((f for f in sweep.files if f.title == title), None)
        if mine is not None and mine.problem:
            raise Conflict(
                f"Land refused: {mine.message} The file as found is kept on {mine.evidence_ref} and was restored "
                "from the log; land again to land the restored file."
            )
        content = canonical_bytes(nb)
        gone = selectors.redacted_digests(nb)  # read again: a redaction may have come while the sweep ran
        _gate(at_base, content, name, base, "the file being landed", gone)

        lines, _ = split_lines(content)
        base_rows = at_base.count(b"\n")
        by_of = {seq: _by(lines[seq - 1]) for seq in range(base_rows + 1, len(lines) + 1)}
        rows = _check_rows(seqs, base_rows, len(lines), by_of, actor)
        branch = v.git.branch_ref()
        head = v.git.head()
        at_head = v.git.file_at(head, name) or b""
        head_rows = at_head.count(b"\n")
        kept, redacted = carried(split_lines(at_head)[0], lines, gone)
        if kept < head_rows:
            raise Conflict(f"{name} at the vault's HEAD is not a prefix of the log: someone committed it by hand.")

        def upto(n: int) -> bytes:
            return b"".join(line + b"\n" for line in lines[:n])

        def drift_commit(parent: str, n: int, subject: str) -> str | None:
            files = {name: upto(n)}
            message = v.drift_message(parent, files, [], subject=subject, trailers={"Session": str(session_id)})
            return v.git.commit_files(parent=parent, files=files, message=message, ref=branch)

        if redacted:  # words redacted in the log since HEAD was written leave it first, as drift of their own
            files = {name: upto(head_rows)}
            subject = f"vault: words redacted in {title} while session {session_id} held it"
            message = v.drift_message(
                head, files, [FileResult(title, redacted=tuple(redacted))], subject=subject,
                trailers={"Session": str(session_id)},
            )  # fmt: skip
            head = v.git.commit_files(parent=head, files=files, message=message, ref=branch)
            drift.append(head)

        if not rows:
            sha = drift_commit(head, len(lines), f"vault: drift in {title} while session {session_id} held it")
            drift += [sha] if sha else []
            v.git.sync_index()
            return Landed(None, tuple(drift), ())

        first, last = rows[0], rows[-1]
        if head_rows >= last:
            raise Conflict(
                f"The session's rows in {name} were already committed as automatic history: the watcher did not "
                "see the claim (check NOTEBOOK_VAULT_CLAIMS)."
            )
        if head_rows < first - 1:
            sha = drift_commit(head, first - 1, f"vault: drift in {title} before session {session_id}'s rows")
            if sha:
                drift.append(sha)
                head = sha
        others = [s for s in range(max(head_rows, first - 1) + 1, last + 1) if s not in set(rows)]
        message = _semantic_message(title, plan, summary, session_id, base, rows, others, by_of)
        semantic = v.git.commit_files(
            parent=head, files={name: upto(last)}, message=message, author=Person.actor(actor), ref=branch
        )
        assert semantic is not None  # the rows after head_rows change the file
        if len(lines) > last:
            sha = drift_commit(semantic, len(lines), f"vault: drift in {title} after session {session_id}'s rows")
            drift += [sha] if sha else []
        v.git.sync_index()
        return Landed(semantic, tuple(drift), tuple(rows))


def vault_abandon(title: str, *, session_id: "str | int", why: str = "", vault: Vault | None = None) -> "str | None":
    """The claim ends without a land: other drift first, then the claimed file's change as ordinary drift."""
    selectors.get_notebook(title)
    v = vault or Vault()
    with v.lock():
        v.sweep_locked(claimed=claimed_titles() | {title})
        state = v.load_state()
        others = frozenset(state) - {title}
        trailers = {"Session": str(session_id), "Abandoned": " ".join(why.split()) or "(no reason given)"}
        return v.commit_pending(
            state,
            exclude=others,
            subject=f"vault: drift in {title}, left by abandoned session {session_id}",
            trailers=trailers,
        )


# ----- helpers ------------------------------------------------------------------------------------


def _commit(v: Vault, sha: str) -> str:
    found = v.git.rev(sha) if isinstance(sha, str) and sha.strip() else None
    if found is None:
        raise Invalid(f"{sha!r} is not a commit of the vault.")
    return found


def _landed_already(v: Vault, base: str, session_id: "str | int", actor: str) -> Landed | None:
    """The session's semantic commit, when an earlier land of it reached git."""
    out = v.git.run("log", "--format=%H%x00%an%x00%B%x1e", f"{base}..HEAD").decode("utf-8", "replace")
    for record in out.split("\x1e"):
        if not record.strip():
            continue
        sha, author, body = record.strip("\n").split("\x00", 2)
        trailers = dict(line.split(": ", 1) for line in body.strip().split("\n\n")[-1].splitlines() if ": " in line)
        if trailers.get("Session") == str(session_id) and "Rows" in trailers and author == Person.actor(actor).name:
            rows = [int(x) for part in trailers["Rows"].split(", ") for x in _expand(part)]
            return Landed(sha.strip(), (), tuple(rows))
    return None


def _expand(part: str) -> range:
    first, _, last = part.partition("-")
    return range(int(first), int(last or first) + 1)


def _gate(at_base: bytes, candidate: bytes, name: str, base: str, what: str, gone: Container[str]) -> None:
    """The final gate: what the file held at the take's base is still there, byte for byte (but for words the
    log redacted since, `gone`, which read "[redacted: why]" in the same row)."""
    if candidate.startswith(at_base):
        return
    old, _ = split_lines(at_base)
    new, _ = split_lines(candidate)
    k, _ = carried(old, new, gone)
    if k == len(old):
        return
    how = "is missing (the file was cut short)" if k >= len(new) else "was changed or deleted"
    raise Conflict(
        f"The final gate refuses the land: {name} at the take's base {base[:12]} is not a byte-for-byte prefix of "
        f"{what}: line {k + 1} {how}. A checkpoint does not move the base. Run `notebook vault sync` to keep the "
        "file as evidence and restore it from the log.",
        line=k + 1,
    )


def _by(line: bytes) -> str:
    try:
        return str(json.loads(line).get("by") or "")
    except (ValueError, AttributeError):
        return ""


def _check_rows(seqs: object, base_rows: int, top: int, by_of: dict[int, str], actor: str) -> list[int]:
    if not isinstance(seqs, list | tuple) or any(isinstance(s, bool) or not isinstance(s, int) for s in seqs):
        raise Invalid("The session's rows are a list of seqs.")
    rows = sorted(set(seqs))
    for seq in rows:
        if not base_rows < seq <= top:
            raise Invalid(f"Row {seq} is not one of the rows written since the take (seqs {base_rows + 1}-{top}).")
        if by_of[seq] != actor:
            raise Invalid(f"Row {seq} is by {by_of[seq] or 'nobody'}, not by the session's actor {actor}.")
    return rows


def _semantic_message(
    title: str,
    plan: str,
    summary: str,
    session_id: "str | int",
    base: str,
    rows: list[int],
    others: list[int],
    by_of: dict[int, str],
) -> str:
    parts = [plan.strip() or f"Session {session_id} on {title}"]
    if summary.strip():
        parts.append(summary.strip())
    trailers = [f"Notebook: {title}", f"Session: {session_id}", f"Base: {base}", f"Rows: {_ranges(rows)}"]
    if others:
        # Rows of others between the session's first and last row cannot be cut out of an append-only file.
        trailers.append("Others: " + ", ".join(f"{s} by {by_of[s] or 'nobody'}" for s in others))
    parts.append("\n".join(trailers))
    return "\n\n".join(parts) + "\n"
