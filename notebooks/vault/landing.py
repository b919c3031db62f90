"""A land's commits in git, made from the log: drift apart, then the session's rows as one semantic commit by its
actor. Also the repair of a land the database holds but git missed (git failed after the land's transaction)."""

import logging
from collections.abc import Container, Sequence
from dataclasses import dataclass
from pathlib import Path

from notebooks.log.rules.checks import MAX_NAME, shown, shown_lines
from notebooks.log.rules.errors import Conflict, Invalid
from notebooks.log.store import view_reads
from notebooks.models import Notebook
from notebooks.sessions import selectors as session_selectors

from .fileformat import SUFFIX, canonical_bytes, rows_kept, seq_and_author, split_lines
from .git import Git, Person
from .history import drift_message
from .results import FileResult, ranges
from .state import read_lands_checked, write_lands_checked

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Landed:
    semantic: str | None  # the session's one commit; None for a no-op land
    drift: tuple[str, ...]  # ordinary commits made on the way, in order
    rows: tuple[int, ...]

    @property
    def noop(self) -> bool:
        return self.semantic is None


def base_commit(git: Git, sha: str) -> str:
    found = git.rev(sha) if isinstance(sha, str) and sha.strip() else None
    if found is None:
        raise Invalid(f"{sha!r} is not a commit of the vault.")
    return found


def landed_already(git: Git, base: str, session_id: "str | int", actor: str) -> Landed | None:
    """The session's semantic commit, when an earlier land of it reached git."""
    out = git.run("log", "--format=%H%x00%an%x00%B%x1e", f"{base}..HEAD").decode("utf-8", "replace")
    for record in out.split("\x1e"):
        if not record.strip():
            continue
        sha, author, body = record.strip("\n").split("\x00", 2)
        trailers = dict(line.split(": ", 1) for line in body.strip().split("\n\n")[-1].splitlines() if ": " in line)
        if trailers.get("Session") == str(session_id) and "Rows" in trailers and author == Person.actor(actor).name:
            spans = [part.partition("-") for part in trailers["Rows"].split(", ")]  # "41-43, 45"
            rows = [seq for first, _, last in spans for seq in range(int(first), int(last or first) + 1)]
            return Landed(sha.strip(), (), tuple(rows))
    return None


def gate(at_base: bytes, candidate: bytes, name: str, base: str, what: str, gone: Container[str]) -> None:
    """The final gate: the file at the take's base is still there, byte for byte but for words redacted since."""
    if candidate.startswith(at_base):
        return
    old, _ = split_lines(at_base)
    new, _ = split_lines(candidate)
    k, _ = rows_kept(old, new, gone)
    if k == len(old):
        return
    how = "is missing (the file was cut short)" if k >= len(new) else "was changed or deleted"
    raise Conflict(
        f"The final gate refuses the land: {name} at the take's base {base[:12]} is not a byte-for-byte prefix of "
        f"{what}: line {k + 1} {how}. A checkpoint does not move the base. Run `notebook vault sync` to keep the "
        "file as evidence and restore it from the log.",
        line=k + 1,
    )


def land_commits(
    git: Git,
    nb: Notebook,
    *,
    actor: str,
    plan: str,
    summary: str,
    session_id: "str | int",
    base: str,
    seqs: Sequence[int],
    check_only: bool = False,
    after_lapse: bool = False,
) -> Landed | None:
    """The land's commits from the log as it is now (check_only: every check, no commit); Conflict or Invalid when it
    cannot be one semantic commit. A lapsed session's rows may be history already: its land then only names them."""
    title = nb.title
    name = title + SUFFIX
    at_base = git.file_at(base, name) or b""
    content = canonical_bytes(nb)
    gone = view_reads.redacted_digests(nb.pk)  # read after the content: a redaction since is in both or in neither
    gate(at_base, content, name, base, "the file being landed", gone)

    lines, _ = split_lines(content)
    base_rows = at_base.count(b"\n")
    by_of = {seq: seq_and_author(lines[seq - 1])[1] for seq in range(base_rows + 1, len(lines) + 1)}
    rows = _check_rows(seqs, base_rows, len(lines), by_of, actor)
    branch = git.branch_ref()
    head = git.head()
    at_head = git.file_at(head, name) or b""
    head_rows = at_head.count(b"\n")
    kept, redacted = rows_kept(split_lines(at_head)[0], lines, gone)
    if kept < head_rows:
        raise Conflict(f"{name} at the vault's HEAD is not a prefix of the log: someone committed it by hand.")
    # A lapsed session's proposals the sweep committed as history: its land's copies (fold.py) come after them.
    committed = bool(rows) and head_rows >= (rows[0] if after_lapse else rows[-1])
    if committed and not after_lapse:
        raise Conflict(
            f"The session's rows in {name} were already committed as automatic history: the watcher did not "
            "see the claim (check NOTEBOOK_VAULT_CLAIMS)."
        )
    if check_only:
        return None

    drift: list[str] = []

    def drift_commit(parent: str, n: int, subject: str, results: Sequence[FileResult] = ()) -> str:
        """The file's first `n` rows as drift on `parent`; the branch's head after it."""
        files = {name: b"".join(line + b"\n" for line in lines[:n])}
        trailers = {"Session": str(session_id)}
        message = drift_message(git, parent, files, list(results), subject=subject, trailers=trailers)
        sha = git.commit_files(parent=parent, files=files, message=message, ref=branch)
        drift.extend([sha] if sha else [])
        return sha or parent

    if redacted:  # words redacted in the log since HEAD was written leave it first, as drift of their own
        subject = f"vault: words redacted in {title} while session {session_id} held it"
        head = drift_commit(head, head_rows, subject, [FileResult(title, redacted=tuple(redacted))])
    semantic, end = None, -1  # the semantic commit, and the rows it holds
    tail = f"vault: drift in {title} while session {session_id} held it"
    if rows:
        if not committed and head_rows < rows[0] - 1:
            head = drift_commit(head, rows[0] - 1, f"vault: drift in {title} before session {session_id}'s rows")
        end = max(head_rows, rows[-1])
        parts = [shown_lines(plan) or f"Session {session_id} on {title}"]
        if summary.strip():
            parts.append(shown_lines(summary))
        if committed:
            parts.append(
                "The session lapsed and its rows were committed as automatic history since: this land names them."
            )
        trailers = [f"Notebook: {title}", f"Session: {session_id}", f"Base: {base}", f"Rows: {ranges(rows)}"]
        # Rows of others between the session's first and last row cannot be cut out of an append-only file.
        others = [] if committed else [s for s in range(max(head_rows, rows[0] - 1) + 1, end + 1) if s not in rows]
        if others:
            trailers.append("Others: " + ", ".join(f"{s} by {shown(by_of[s], MAX_NAME) or 'nobody'}" for s in others))
        semantic = git.commit_files(
            parent=head,
            files={name: b"".join(line + b"\n" for line in lines[:end])},
            message="\n\n".join([*parts, "\n".join(trailers)]) + "\n",
            author=Person.actor(actor),
            ref=branch,
            allow_empty=committed,
        )
        assert semantic is not None  # allow_empty, or the rows after head_rows change the file
        head = semantic
        tail = f"vault: drift in {title} after session {session_id}'s " + ("land" if committed else "rows")
    if len(lines) > end:
        drift_commit(head, len(lines), tail)
    git.sync_index()
    return Landed(semantic, tuple(drift), tuple(rows))


def repair_lands(git: Git, git_dir: Path) -> list[str]:
    """The semantic commits (shas) of lands the database holds and git missed, made by each sweep before all else."""
    made = []
    for event in session_selectors.lands_after(read_lands_checked(git_dir)):
        s = event.session
        base = git.rev(s.vault_base) if s.vault_base else None
        if base is not None and landed_already(git, base, s.pk, s.actor) is None:
            try:
                landed = land_commits(
                    git, s.notebook, actor=s.actor, plan=s.plan, summary=session_selectors.land_summary(event),
                    session_id=s.pk, base=base, seqs=session_selectors.own_seqs(s),
                    after_lapse=session_selectors.lapsed_before_land(s),
                )  # fmt: skip
            except (Conflict, Invalid) as exc:  # git failures propagate: the next sweep tries again
                log.warning("the land of session %s cannot be committed in the vault: %s", s.pk, exc.message)
            else:
                made += [landed.semantic] if landed and landed.semantic else []
        write_lands_checked(git_dir, event.pk)
    return made


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
