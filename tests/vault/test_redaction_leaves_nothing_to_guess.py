"""Redacted words leave nothing to guess from: no answer an agent gets (GET rows), no vault file and no export holds
a value against which a guess of the words checks, whether the words had a keyed digest (written now) or the plain
sha256 of rows written before keyed digests, whose hashes stay as they were."""

import hashlib
import json
import os
from dataclasses import asdict

import pytest
from django.core.management import call_command

from notebooks.agents import tokens
from notebooks.log import redaction, services
from notebooks.log.files import rowformat
from notebooks.log.files.verify import verify_chain
from notebooks.log.store import append as log_append
from notebooks.log.views import selectors
from notebooks.models import Row, VaultAlarm
from notebooks.vault import vault_land
from notebooks.vault.git import blob_id
from notebooks.vault.state import Tracked, read_state, write_state
from tests.agent_helpers import Api
from tests.vault.vaulttools import add, at, canonical, file_bytes

PIN = "4821"
GUESSES = [f"{i:04d}" for i in range(10_000)]


def _strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*map(_strings, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(_strings, value)) if value else set()
    return set()


def _recovered(rows: list[dict]) -> set[str]:
    """Every guess that checks against a value of the rows: a digest, or the hash of a redacted row recomputed with
    the guess's plain digest (the other fields are all in the row)."""
    values = set().union(*map(_strings, rows))
    found = {g for g in GUESSES if hashlib.sha256(g.encode()).hexdigest() in values}
    prev = rowformat.GENESIS
    for row in rows:
        if row.get("redacted") and not rowformat.is_keyed(row.get("digest")):
            fields = {**row, "into": row.get("restores", row.get("into"))}
            for g in GUESSES:
                if rowformat.row_hash(prev, {**fields, "digest": rowformat.digest_of(g)}) == row["hash"]:
                    found.add(g)  # a row written before keyed digests: see docs/RELIABILITY.md
        prev = row["hash"]
    return found


def _everything_served(vault, nb) -> dict[str, list[dict]]:  # noqa: ANN001
    vault.sweep(claimed=set())
    agent = Api(tokens.issue(actor="bob").secret)
    answer = agent.get("/api/notebooks/zelda/rows?limit=500")
    assert answer.status_code == 200
    return {
        "the agent's rows": answer.json()["rows"],
        "the vault file": [json.loads(line) for line in file_bytes(vault).decode().splitlines()],
        "the export": [json.loads(line) for line in selectors.export(nb)],
    }


def test_words_written_now_and_redacted_cannot_be_guessed_from_rows_vault_or_export(vault, zelda):
    services.add(notebook="zelda", text=PIN, source="seen", by="pippa", why="the shop's code")
    redaction.redact(notebook="zelda", n=4, by="dad", why="a PIN")
    for where, rows in _everything_served(vault, zelda).items():
        assert PIN not in _strings(rows), where  # as a value: four digits turn up inside a hash now and then
        assert _recovered(rows) == set(), where
    assert verify_chain(zelda) == []


def _old_style_add(nb, words: str) -> Row:  # noqa: ANN001
    """A row as the log wrote it before keyed digests: its words under their plain sha256, hashed so."""
    fields = {"op": "add", "n": 4, "words": words, "digest": rowformat.digest_of(words), "source": "seen"}
    (written,) = log_append.append(nb, [{**fields, "by": "pippa", "why": "the shop's code"}])
    return Row.objects.get(notebook=nb, seq=written.seq)


def test_words_redacted_with_their_plain_digest_have_it_withheld_and_the_rows_hash_stays(vault, zelda):
    row = _old_style_add(zelda, PIN)
    pinned = rowformat.row_hash(row.prev_hash, {**row.__dict__, "digest": rowformat.digest_of(PIN)})
    assert (row.digest, row.hash) == (rowformat.digest_of(PIN), pinned)
    redaction.redact(notebook="zelda", n=4, by="dad", why="a PIN")
    plain = rowformat.digest_of(PIN)
    for where, rows in _everything_served(vault, zelda).items():
        assert plain not in json.dumps(rows), where
        redacted = [r for r in rows if r.get("redacted")]
        assert [r["digest"] for r in redacted] == [None], where
        assert [r["redacts"] for r in rows if r["op"] == "redact"] == [None], where
    assert Row.objects.get(pk=row.pk).hash == pinned  # the row and its hash as they were
    assert verify_chain(zelda) == []  # the server keeps the digest and checks every row


def test_words_written_again_after_a_redaction_of_their_plain_digest_are_refused(zelda):
    _old_style_add(zelda, PIN)
    redaction.redact(notebook="zelda", n=4, by="dad", why="a PIN")
    with pytest.raises(Exception, match="Those words were redacted"):
        services.add(notebook="zelda", text=PIN, source="seen", by="pippa", why="again")


def test_a_redaction_takes_the_same_words_under_either_digest(zelda):
    _old_style_add(zelda, PIN)
    services.add(notebook="zelda", text="x", source="seen", by="pippa", why="filler")
    services.edit(notebook="zelda", n=5, to=PIN, by="pippa", why="the same words, written now")
    redaction.redact(notebook="zelda", n=5, by="dad", why="a PIN")
    assert PIN not in _strings([json.loads(line) for line in selectors.export(zelda)])
    assert verify_chain(zelda) == []


def test_an_export_of_keyed_redactions_imports_and_verifies(zelda, tmp_path):
    services.add(notebook="zelda", text=PIN, source="seen", by="pippa", why="the shop's code")
    redaction.redact(notebook="zelda", n=4, by="dad", why="a PIN")
    path = tmp_path / "zelda.jsonl"
    path.write_text("".join(line + "\n" for line in selectors.export(zelda)), encoding="utf-8")
    call_command("notebook", "import", str(path), "--title", "zelda copy", "--by", "dad")
    copy = selectors.get_notebook("zelda copy")
    assert verify_chain(copy) == []
    assert list(selectors.export(copy)) == list(selectors.export(zelda))


def test_the_hash_of_a_row_from_before_keyed_digests_still_checks_a_guess_as_documented(vault, zelda):
    """What keyed digests cannot mend (docs/RELIABILITY.md): that row's hash covers the plain digest, and its other
    fields are served, so a guess still checks against the hash; only rewriting the chain would end it."""
    _old_style_add(zelda, PIN)
    redaction.redact(notebook="zelda", n=4, by="dad", why="a PIN")
    assert _recovered(_everything_served(vault, zelda)["the export"]) == {PIN}


def no_claims() -> set[str]:
    return set()


def _as_an_older_release_left_it(vault, plain: str) -> str:  # noqa: ANN001
    """The vault's file as a release before the plain digest was withheld wrote, committed and tracked it; its
    commit."""
    lines = file_bytes(vault).split(b"\n")
    named = f'"digest": "{plain}"'.encode()
    lines = [
        line.replace(b'"digest": null', named) if b'"redacted": true' in line else
        line.replace(b'"redacts": null', f'"redacts": "{plain}"'.encode())
        for line in lines
    ]  # fmt: skip
    old = b"\n".join(lines)
    assert old.count(plain.encode()) == 2
    sha = vault.git.commit_files(
        parent=vault.git.head(), files={"zelda.jsonl": old}, message="an older release", ref=vault.git.branch_ref()
    )
    vault.path("zelda").write_bytes(old)
    git_dir = vault.root / ".git"
    files, partials = read_state(git_dir)
    stat = os.lstat(vault.path("zelda"))
    files["zelda"] = Tracked(**{**asdict(files["zelda"]), "layout": 0, "blob": blob_id(old), "size": len(old),
                                "mtime_ns": stat.st_mtime_ns, "ino": stat.st_ino})  # fmt: skip
    write_state(git_dir, files, partials)
    return sha


def test_a_file_that_still_names_a_plain_digest_loses_it_at_the_next_sweep(vault, zelda):
    _old_style_add(zelda, PIN)
    redaction.redact(notebook="zelda", n=4, by="dad", why="a PIN")
    vault.sweep(claimed=set())
    _as_an_older_release_left_it(vault, rowformat.digest_of(PIN))
    result = vault.sweep(claimed=set())
    assert [f.problem for f in result.files] == [""] and not VaultAlarm.objects.exists()
    assert file_bytes(vault) == canonical() and rowformat.digest_of(PIN).encode() not in file_bytes(vault)


def test_a_session_taken_on_such_a_file_lands(vault, zelda, settings):
    settings.NOTEBOOK_VAULT_CLAIMS = "tests.vault.test_redaction_leaves_nothing_to_guess.no_claims"
    _old_style_add(zelda, PIN)
    redaction.redact(notebook="zelda", n=4, by="dad", why="a PIN")
    vault.sweep(claimed=set())
    base = _as_an_older_release_left_it(vault, rowformat.digest_of(PIN))  # the session was taken then
    seq = add("roll after the rest")
    landed = vault_land("zelda", actor="pippa", plan="One more", summary="a line", session_id=7, base_sha=base,
                        seqs=[seq])  # fmt: skip
    assert landed.semantic and at(vault, "HEAD") == canonical()


def test_a_plain_digest_written_onto_another_row_is_a_rewrite(vault, zelda):
    _old_style_add(zelda, PIN)
    redaction.redact(notebook="zelda", n=4, by="dad", why="a PIN")
    vault.sweep(claimed=set())
    plain = rowformat.digest_of(PIN)
    lines = file_bytes(vault).split(b"\n")
    lines[0] = rowformat.dumps({**json.loads(lines[0]), "redacts": plain}).encode()  # a row no redaction touched
    vault.path("zelda").write_bytes(b"\n".join(lines))
    result = vault.sweep(claimed=set())
    assert [f.problem for f in result.files] == ["rewritten"] and VaultAlarm.objects.count() == 1
    assert file_bytes(vault) == canonical()
