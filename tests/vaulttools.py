"""Helpers for the vault's tests: a temporary vault, rows written from outside, git read back."""

import json
import time
from pathlib import Path

import pytest

from notebooks.log import selectors, services
from notebooks.vault import Vault, canonical_bytes


@pytest.fixture(name="vault")
def vault_fixture(db, tmp_path, settings):  # noqa: ANN001, ANN201
    settings.NOTEBOOK_VAULT = str(tmp_path / "vault")
    return Vault().ensure()


@pytest.fixture(name="zelda")
def zelda_fixture(notebook, dad):  # noqa: ANN001, ANN201
    """Two of Pippa's lines and one of Dad's."""
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="died twice")
    services.add(notebook="zelda", text="the bridge guard swings twice", source="guessed", by="pippa", why="a guess")
    services.add(notebook="zelda", text="block first", source="dad", by="dad", why="his rule")
    return notebook


def add(text: str, *, title: str = "zelda", by: str = "pippa", source: str = "seen") -> int:
    return services.add(notebook=title, text=text, source=source, by=by, why="seen it").seq


def outside(op: str = "add", **fields: object) -> str:
    """A row as the older harness writes it: no seq, no hash, `at` after everything so far."""
    return json.dumps({"op": op, **fields, "at": fields.get("at", time.time() + 60)})


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
