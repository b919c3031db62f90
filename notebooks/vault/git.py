"""The git CLI, driven with plumbing so a commit holds exactly the bytes we checked, never what a file
happens to contain a moment later. No global git configuration is needed or read for identity."""

import hashlib
import os
import re
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from notebooks.log.rules.errors import NotebookError

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


class GitError(NotebookError):
    code = "vault_git"
    status = 500


class VaultUnavailable(NotebookError):
    """Git failing or the vault's directory unwritable: the take or land was refused whole and may be retried."""

    code = "vault_unavailable"
    status = 503
    retry_after = 5  # whole seconds before the same call is sent again


@dataclass(frozen=True)
class Person:
    name: str
    email: str

    @classmethod
    def actor(cls, name: str) -> "Person":
        """A session's actor as a git identity; git refuses '<', '>' and newlines in either part."""
        # Control characters too: an escape code in a name would colour whatever shows the log.
        clean = re.sub(r"[<>]+", " ", "".join(ch if ch.isprintable() else " " for ch in name)).strip() or "unknown"
        local = re.sub(r"[^A-Za-z0-9._+-]+", "-", clean).strip("-.") or "actor"
        return cls(clean, f"{local}@notebooks.invalid")


VAULT = Person("notebooks vault", "vault@notebooks.invalid")


def blob_id(data: bytes) -> str:
    """The id git gives these bytes as a blob (SHA-1 repositories, which is what init makes)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # noqa: S324 - git's object id, not security


def safe_ref_part(text: str) -> str:
    """A title as one component of a ref name (git refuses spaces, '..', a leading '.', …)."""
    part = re.sub(r"[^A-Za-z0-9._+-]+", "_", text)
    part = re.sub(r"\.{2,}", ".", part).strip(".") or "notebook"
    return part.removesuffix(".lock")


class Git:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _env(self, author: Person | None = None) -> dict[str, str]:
        # Inherited GIT_* variables (a hook, another repository's GIT_DIR) must not redirect us.
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        who = author or VAULT
        env.update(
            GIT_DIR=str(self.root / ".git"),
            GIT_WORK_TREE=str(self.root),
            GIT_AUTHOR_NAME=who.name,
            GIT_AUTHOR_EMAIL=who.email,
            GIT_COMMITTER_NAME=VAULT.name,
            GIT_COMMITTER_EMAIL=VAULT.email,
            GIT_TERMINAL_PROMPT="0",
        )
        return env

    def run(self, *args: str, input: bytes | None = None, author: Person | None = None, check: bool = True) -> bytes:
        # Never safe.directory: git's own check on who owns the repository stays on.
        config = (f"user.name={VAULT.name}", f"user.email={VAULT.email}", "core.autocrlf=false", "commit.gpgsign=false")
        command = ["git", *(part for setting in config for part in ("-c", setting)), *args]
        self.check_owner()
        try:
            done = subprocess.run(
                command, input=input, capture_output=True, env=self._env(author), cwd=self.root, check=False
            )
        except FileNotFoundError:
            raise GitError("git is not installed: the vault needs the git command line") from None
        if check and done.returncode != 0:
            detail = done.stderr.decode("utf-8", "replace").strip() or f"exit status {done.returncode}"
            raise GitError(f"git {args[0]} failed in {self.root}: {detail}")
        return done.stdout

    def text(self, *args: str, **kwargs: object) -> str:
        return self.run(*args, **kwargs).decode("utf-8").strip()  # type: ignore[arg-type]

    def check_owner(self) -> None:
        """Refuse a repository we do not own (another user's .git runs its hooks as ours), plainly, before git does."""
        me = os.geteuid()
        for where in (self.root, self.root / ".git"):
            try:
                found = os.lstat(where)
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(found.st_mode) or found.st_uid != me:
                what = "a symbolic link" if stat.S_ISLNK(found.st_mode) else f"owned by uid {found.st_uid}"
                raise GitError(
                    f"the vault refuses {where}: it is {what}, not a directory owned by this service's user "
                    f"(uid {me}); another user could have planted its hooks and config. Make the vault's directory "
                    "and its .git the service user's (chown -R), or point NOTEBOOK_VAULT at one that is."
                )

    def exists(self) -> bool:
        return (self.root / ".git").is_dir()

    def init(self) -> None:
        """A repository with one empty root commit on main, so take always has a base."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.run("init", "-q")
        self.run("symbolic-ref", "HEAD", "refs/heads/main")
        root = self.commit_tree(EMPTY_TREE, [], "vault: every notebook mirrored as its append-only JSONL file\n")
        self.update_ref("refs/heads/main", root, None)

    def branch_ref(self) -> str:
        ref = self.text("symbolic-ref", "-q", "HEAD")
        if not ref.startswith("refs/heads/"):
            raise GitError(f"the vault's HEAD is detached in {self.root}; check out its branch again")
        return ref

    def rev(self, name: str) -> str | None:
        out = self.run("rev-parse", "-q", "--verify", f"{name}^{{commit}}", check=False)
        return out.decode().strip() or None

    def head(self) -> str:
        sha = self.rev("HEAD")
        if sha is None:
            raise GitError(f"the vault at {self.root} has no commit yet")
        return sha

    def ls_tree(self, commit: str) -> dict[str, str]:
        """Path → blob id of the commit's top-level files."""
        out = self.run("ls-tree", "-z", commit)
        entries = {}
        for item in out.split(b"\0"):
            if not item:
                continue
            meta, path = item.split(b"\t", 1)
            _mode, kind, sha = meta.decode().split()
            if kind == "blob":
                entries[path.decode("utf-8", "surrogateescape")] = sha
        return entries

    def blob(self, sha: str) -> bytes:
        return self.run("cat-file", "blob", sha)

    def file_at(self, commit: str, path: str) -> bytes | None:
        sha = self.ls_tree(commit).get(path)
        return None if sha is None else self.blob(sha)

    def make_tree(self, entries: dict[str, str]) -> str:
        if not entries:
            return EMPTY_TREE
        listing = b"".join(
            b"100644 blob %s\t%s\0" % (sha.encode(), path.encode("utf-8", "surrogateescape"))
            for path, sha in sorted(entries.items())
        )
        return self.text("mktree", "-z", input=listing)

    def commit_tree(self, tree: str, parents: list[str], message: str, author: Person | None = None) -> str:
        args = ["commit-tree", tree]
        for parent in parents:
            args += ["-p", parent]
        return self.text(*args, input=message.encode("utf-8"), author=author)

    def update_ref(self, ref: str, new: str, old: str | None) -> None:
        # With old given, git refuses the move unless the ref still points there: no lost update.
        args = ["update-ref", "-m", "vault", ref, new]
        if old is not None:
            args.append(old)
        self.run(*args)

    def refs(self, prefix: str) -> list[tuple[str, str]]:
        out = self.text("for-each-ref", "--format=%(refname) %(objectname)", prefix)
        return [tuple(line.split(" ", 1)) for line in out.splitlines() if line]  # type: ignore[misc]

    def sync_index(self) -> None:
        """Keep the real index at HEAD so `git status` in the vault shows only what is not committed."""
        self.run("reset", "-q")

    def commit_files(
        self,
        *,
        parent: str,
        files: dict[str, bytes | None],
        message: str,
        author: Person | None = None,
        ref: str | None = None,
        allow_empty: bool = False,
    ) -> str | None:
        """Commit `parent` with `files` replaced (None drops one), `ref` moved from `parent`; None if no change."""
        entries = self.ls_tree(parent)
        for path, data in files.items():
            if data is None:
                entries.pop(path, None)
            else:
                entries[path] = self.text("hash-object", "-w", "--no-filters", "--stdin", input=data)
        tree = self.make_tree(entries)
        if tree == self.text("rev-parse", f"{parent}^{{tree}}") and not allow_empty:
            return None
        sha = self.commit_tree(tree, [parent], message, author)
        if ref is not None:
            # A new ref must not exist yet (all zeros); an existing one must still be at parent.
            self.update_ref(ref, sha, parent if self.rev(ref) else "0" * 40)
        return sha
