"""A session's take, checkpoint, land and abandon in git: take commits pending drift and returns the base, checkpoint
keeps recovery evidence on a side ref, land commits drift apart from the one semantic commit."""

from collections.abc import Sequence

from django.conf import settings

from notebooks.log.rules.checks import shown, shown_lines
from notebooks.log.rules.errors import Conflict
from notebooks.log.store import view_reads
from notebooks.log.views import selectors

from . import history
from .claims import claimed_titles
from .fileformat import SUFFIX
from .git import safe_ref_part
from .landing import Landed, base_commit, gate, land_commits, landed_already
from .mirror import Vault
from .state import NotRegular, read_bytes_or_none

CHECKPOINT_PREFIX = "refs/checkpoints/"


def vault_enabled() -> bool:
    """Whether sessions should call the vault: NOTEBOOK_VAULT set (or NOTEBOOK_VAULT_ENABLED=1)."""
    return bool(settings.NOTEBOOK_VAULT_ENABLED)


def vault_take(title: str, *, session_id: "str | int | None" = None) -> str:
    """Sweep, commit pending drift as an ordinary commit, and return that head: the session's base_sha."""
    selectors.get_notebook(title)
    v = Vault()
    with v.lock():
        trailers = {"Before-Take": title} | ({"Session": str(session_id)} if session_id is not None else {})
        v.sweep_locked(
            claimed=claimed_titles() - {title},
            subject=f"vault: pending drift, recorded before the take of {title}",
            trailers=trailers,
        )
        return v.git.head()


def vault_checkpoint(title: str, *, session_id: "str | int", base_sha: str, note: str = "") -> str:
    """A recovery commit of the claimed file on refs/checkpoints/<session>: evidence, never a new base."""
    selectors.get_notebook(title)
    v = Vault()
    with v.lock():
        base = base_commit(v.git, base_sha)
        state = v.load_state()
        # Rows the log holds are written first; a file that is not an append is kept exactly as found.
        checked = v.reconcile(title, state, head=selectors.heads().get(title), repair=False)
        v.save_state(state)
        found = read_bytes_or_none(v.path(title))  # the sweep above replaced any link or special file
        ref = CHECKPOINT_PREFIX + safe_ref_part(str(session_id))
        warning = f"\n\nWARNING: {checked.message}" if checked.problem else ""
        message = (
            f"checkpoint: {title}{SUFFIX} for session {session_id}\n\n"
            + (shown_lines(note) + "\n\n" if note.strip() else "")
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
    title: str, *, actor: str, plan: str, summary: str, session_id: "str | int", base_sha: str, seqs: Sequence[int]
) -> Landed:
    """Drift as ordinary commits, then the session's rows as one semantic commit by its actor (none: a no-op)."""
    with Vault().lock():
        done, swept = vault_land_check(title, actor=actor, session_id=session_id, base_sha=base_sha, seqs=seqs)
        if done is not None:
            return done
        landed = vault_land_commit(
            title, actor=actor, plan=plan, summary=summary, session_id=session_id, base_sha=base_sha, seqs=seqs
        )
        return Landed(landed.semantic, (*swept, *landed.drift), landed.rows)


def vault_land_check(
    title: str, *, actor: str, session_id: "str | int", base_sha: str, seqs: Sequence[int], after_lapse: bool = False
) -> tuple[Landed | None, tuple[str, ...]]:
    """Before the database's land, all that may refuse it (Conflict, Invalid) and the drift committed; the Landed when
    git holds it already (a retry), and the drift commit made."""
    nb = selectors.get_notebook(title)
    name = title + SUFFIX
    v = Vault()
    with v.lock():
        base = base_commit(v.git, base_sha)
        done = landed_already(v.git, base, session_id, actor)
        if done is not None:
            return done, ()  # a retry after the database's side failed: git already holds the land
        at_base = v.git.file_at(base, name) or b""
        gone = view_reads.redacted_digests(nb.pk)
        try:
            found = read_bytes_or_none(v.path(title)) or b""
        except NotRegular as exc:
            raise Conflict(f"Land refused: {exc}. Run `notebook vault sync` to write the file again.") from None
        gate(at_base, found, name, base, "the file as found", gone)
        sweep = v.sweep_locked(
            claimed=claimed_titles() | {title},
            subject=f"vault: drift, recorded before the land of {title} (session {session_id})",
            trailers={"Before-Land": title, "Session": str(session_id)},
        )
        mine = next((f for f in sweep.files if f.title == title), None)
        if mine is not None and mine.problem:
            raise Conflict(
                f"Land refused: {mine.message} The file as found is kept on {mine.evidence_ref} and was restored "
                "from the log; land again to land the restored file."
            )
        land_commits(
            v.git, nb, actor=actor, plan="", summary="", session_id=session_id, base=base, seqs=seqs, check_only=True,
            after_lapse=after_lapse,
        )  # fmt: skip
        return None, ((sweep.commit,) if sweep.commit else ())


def vault_land_commit(
    title: str,
    *,
    actor: str,
    plan: str,
    summary: str,
    session_id: "str | int",
    base_sha: str,
    seqs: Sequence[int],
    after_lapse: bool = False,
) -> Landed:
    """The land's commits once the database's land stands: from the log, no file read (the check judged it)."""
    nb = selectors.get_notebook(title)
    v = Vault()
    with v.lock():
        base = base_commit(v.git, base_sha)
        done = landed_already(v.git, base, session_id, actor)
        if done is not None:
            return done
        landed = land_commits(
            v.git, nb, actor=actor, plan=plan, summary=summary, session_id=session_id, base=base, seqs=seqs,
            after_lapse=after_lapse,
        )  # fmt: skip
        assert landed is not None  # not a check_only call
        # The land appended its landed copies after the check swept the file: the file takes them now.
        state = v.load_state()
        v.reconcile(title, state)
        v.save_state(state)
        return landed


def vault_abandon(title: str, *, session_id: "str | int", why: str = "") -> "str | None":
    """The claim ends without a land: other drift first, then the claimed file's change as ordinary drift."""
    selectors.get_notebook(title)
    v = Vault()
    with v.lock():
        v.sweep_locked(claimed=claimed_titles() | {title})
        state = v.load_state()
        trailers = {"Session": str(session_id), "Abandoned": shown(" ".join(why.split())) or "(no reason given)"}
        return history.commit_pending(
            v.git,
            v.root,
            state,
            exclude=frozenset(state) - {title},
            subject=f"vault: drift in {title}, left by abandoned session {session_id}",
            trailers=trailers,
        )
