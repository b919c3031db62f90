"""Helpers for the vault's tests: rows written from outside, git read back (the fixtures are in conftest.py)."""

import json
import time
from pathlib import Path

from notebooks.log import services
from notebooks.log.identity import signing, writer_keys
from notebooks.log.identity.roles import actor_named
from notebooks.log.views import selectors
from notebooks.vault import Vault, canonical_bytes


def add(text: str, *, title: str = "zelda", by: str = "pippa", source: str = "seen") -> int:
    return services.add(notebook=title, text=text, source=source, by=by, why="seen it").seq


def outside(op: str = "add", **fields: object) -> str:
    """A row as the older harness writes it: no seq, no hash, `at` after everything so far."""
    return json.dumps({"op": op, **fields, "at": fields.get("at", time.time() + 60)})


def signed(*lines: str, title: str = "zelda", key: writer_keys.Issued | None = None) -> list[str]:
    """Rows signed for `title`'s file as a proven writer signs them: with `key`, else with a key issued now to each
    row's `by` (an editor's key when that actor's user holds the role)."""
    out = []
    for line in lines:
        row = json.loads(line)
        issued = key or writer_keys.issue(actor=row["by"], editor=actor_named(row["by"]).editor)
        out.append(json.dumps(signing.sign(row, issued.key.key_id, issued.secret, notebook=title)))
    return out


def append_to(vault: Vault, title: str, *lines: str) -> None:
    with open(vault.path(title), "a", encoding="utf-8") as f:
        f.writelines(line + "\n" for line in lines)


def file_bytes(vault: Vault, title: str = "zelda") -> bytes:
    return Path(vault.path(title)).read_bytes()


def canonical(title: str = "zelda") -> bytes:
    return canonical_bytes(selectors.get_notebook(title))


def commits(vault: Vault, ref: str = "HEAD") -> list[dict[str, str]]:
    """Newest first: sha, author, subject, body."""
    out = vault.git.run("log", "--format=%H%x00%an%x00%s%x00%B%x1e", ref).decode()
    entries = []
    for record in out.split("\x1e"):
        if record.strip():
            sha, author, subject, body = record.strip("\n").split("\x00")
            entries.append({"sha": sha, "author": author, "subject": subject, "body": body})
    return entries


def at(vault: Vault, ref: str, title: str = "zelda") -> bytes | None:
    return vault.git.file_at(ref, title + ".jsonl")


def rows_of(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.splitlines()]
