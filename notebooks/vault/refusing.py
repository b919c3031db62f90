"""What the sweep does with a file it will not import: keep it as evidence, restore it from the log, raise the alarm.

A part of Vault (mirror.py), apart for its size: it uses the vault's path, git, file writing and read state.
"""

import os
from pathlib import Path
from typing import TYPE_CHECKING

from notebooks.log.rules.checks import bounded, shown
from notebooks.models import Notebook
from notebooks.vault import alarms

from . import history
from .fileformat import canonical_bytes
from .results import FileResult
from .state import Tracked

if TYPE_CHECKING:
    from .git import Git


class Refusing:
    """The refusals of Vault: a file never imported (_refuse), a link or special file never read (_refuse_special)."""

    root: Path
    git: "Git"
    _partials: dict[str, str]
    _read_stat: dict[str, tuple]

    def path(self, title: str) -> Path:  # Vault's
        raise NotImplementedError

    def _write(self, path: Path, content: bytes, state: dict[str, Tracked], title: str, nb: Notebook) -> None:
        raise NotImplementedError  # Vault's

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

    def _refuse_special(
        self, result: FileResult, nb: Notebook | None, state: dict[str, Tracked], kind: str
    ) -> FileResult:
        """A link or special file in a notebook's place: never read (a link's target could be any secret) and never
        committed; the entry itself is removed (not what it points to) and the notebook's file written again."""
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
        self._partials.pop(result.title, None)
        if nb is not None:
            self._write(path, canonical_bytes(nb), state, result.title, nb)
        else:
            state.pop(result.title, None)
        alarms.record_vault_alarm(title=result.title, problem=result.problem, message=result.message)
        return result

    def keep_evidence(self, title: str, found: bytes | None, problem: str, message: str) -> tuple[str, str]:
        return history.keep_evidence(self.git, title, found, problem, message)
