"""A redaction reaches the vault's file: the harness reads the files, so redacted words leave them too (the
commits made before the redaction still hold them; see docs/RELIABILITY.md)."""

import json

import pytest

from notebooks.log import redaction
from notebooks.log.files import rowformat
from notebooks.log.files.verify import verify_chain
from notebooks.log.identity import wordkeys
from notebooks.log.rules.errors import Conflict
from notebooks.models import Row, VaultAlarm
from notebooks.vault import mirror, vault_land, vault_take
from notebooks.vault.state import STATE_FILE
from tests.vault.vaulttools import (
    add,
    append_to,
    at,
    canonical,
    commits,
    file_bytes,
    outside,
    rows_of,
)

SECRET = "the bridge guard swings twice"  # line #2, written by the fixture


def _redact(n: int = 2, why: str = "a password, not a lesson") -> None:
    redaction.redact(notebook="zelda", n=n, by="dad", why=why)


def test_the_next_sweep_takes_the_redacted_words_out_of_the_file(vault, zelda):
    vault.sweep(claimed=set())
    assert SECRET.encode() in file_bytes(vault)
    _redact()
    result = vault.sweep(claimed=set())
    assert SECRET.encode() not in file_bytes(vault)
    assert file_bytes(vault) == canonical()
    assert [f.redacted for f in result.files] == [(2,)]
    assert [f.appended for f in result.files] == [1]  # the redact row
    assert [f.problem for f in result.files] == [""]
    assert not VaultAlarm.objects.exists()
    assert rows_of(file_bytes(vault))[1]["text"] == "[redacted: a password, not a lesson]"


def test_the_commit_says_what_left_the_file_and_head_no_longer_holds_it(vault, zelda):
    vault.sweep(claimed=set())
    _redact()
    result = vault.sweep(claimed=set())
    newest = commits(vault)[0]
    assert newest["sha"] == result.commit
    assert newest["subject"] == "vault: zelda +1 redacted"
    assert (
        "zelda.jsonl: words redacted in the log taken out of row 2 (earlier commits still hold them)"
        in (newest["body"])
    )
    assert "zelda.jsonl: row 4 by dad" in newest["body"]
    assert SECRET.encode() not in at(vault, "HEAD")
    assert SECRET.encode() in at(vault, "HEAD~1")  # history is not rewritten


def test_rows_appended_outside_after_a_redaction_are_still_imported(vault, zelda):
    vault.sweep(claimed=set())
    _redact()
    append_to(vault, "zelda", outside(n=4, text="the raft only runs east", source="seen"))
    result = vault.sweep(claimed=set())
    assert [f.redacted for f in result.files] == [(2,)]
    assert [f.problem for f in result.files] == [""]
    assert len(result.files[0].imported) == 1
    assert file_bytes(vault) == canonical()
    assert SECRET.encode() not in file_bytes(vault)


def test_a_sweep_after_that_changes_nothing(vault, zelda):
    vault.sweep(claimed=set())
    _redact()
    vault.sweep(claimed=set())
    add("one more line")
    result = vault.sweep(claimed=set())
    assert [f.redacted for f in result.files] == [()]
    assert [f.appended for f in result.files] == [1]
    assert "redacted" not in commits(vault)[0]["subject"]


def test_a_notebook_redacted_before_a_take_still_lands(vault, zelda, settings):
    settings.NOTEBOOK_VAULT_CLAIMS = "tests.vault.test_vault_redaction.no_claims"
    vault.sweep()
    _redact()
    base = vault_take("zelda", session_id=7)
    seq = add("roll after the rest")
    landed = vault_land(
        "zelda", actor="pippa", plan="One more", summary="a line", session_id=7, base_sha=base, seqs=[seq]
    )
    assert landed.semantic == commits(vault)[0]["sha"]
    assert at(vault, "HEAD") == canonical()
    assert SECRET.encode() not in at(vault, base)


def test_words_redacted_while_a_session_holds_the_notebook_leave_its_land_too(vault, zelda, settings):
    settings.NOTEBOOK_VAULT_CLAIMS = "tests.vault.test_vault_redaction.no_claims"
    vault.sweep()
    base = vault_take("zelda", session_id=7)
    seq = add("roll after the rest")
    _redact()
    landed = vault_land(
        "zelda", actor="pippa", plan="One more", summary="a line", session_id=7, base_sha=base, seqs=[seq]
    )
    after, semantic, redaction = commits(vault)[:3]
    assert landed.semantic == semantic["sha"] and semantic["author"] == "pippa"
    assert landed.drift == (redaction["sha"], after["sha"])
    assert redaction["subject"] == "vault: words redacted in zelda while session 7 held it"
    assert "zelda.jsonl: words redacted in the log taken out of row 2" in redaction["body"]
    assert at(vault, redaction["sha"]) == b"".join(canonical().splitlines(keepends=True)[:3])
    assert at(vault, semantic["sha"]) == b"".join(canonical().splitlines(keepends=True)[:4])  # + the session's row
    assert at(vault, "HEAD") == canonical()
    assert SECRET.encode() not in at(vault, "HEAD")


def no_claims() -> set[str]:
    return set()


def _fake_mark_on_line_2(vault, digest: str = "0" * 64) -> None:  # noqa: ANN001
    lines = file_bytes(vault).splitlines()
    row = json.loads(lines[1])
    faked = {**row, "text": "[redacted: hidden by hand]", "redacted": True, "digest": digest}
    lines[1] = json.dumps(faked, separators=(",", ":")).encode()
    vault.path("zelda").write_bytes(b"\n".join(lines) + b"\n")


def test_a_hand_made_redaction_mark_is_a_rewrite(vault, zelda):
    vault.sweep(claimed=set())
    _fake_mark_on_line_2(vault)
    result = vault.sweep(claimed=set())
    assert [f.problem for f in result.files] == ["rewritten"]
    assert file_bytes(vault) == canonical()  # restored; the hand-made file is kept as evidence
    assert VaultAlarm.objects.count() == 1


def test_a_land_refuses_a_hand_made_redaction_mark(vault, zelda, settings):
    settings.NOTEBOOK_VAULT_CLAIMS = "tests.vault.test_vault_redaction.no_claims"
    vault.sweep()
    base = vault_take("zelda", session_id=7)
    seq = add("roll after the rest")
    _fake_mark_on_line_2(vault)
    with pytest.raises(Conflict, match="The final gate refuses the land: .* line 2 was changed"):
        vault_land("zelda", actor="pippa", plan="One more", summary="a line", session_id=7, base_sha=base, seqs=[seq])


def test_the_vault_state_lost_after_a_redaction_is_no_alarm(vault, zelda):
    vault.sweep(claimed=set())
    _redact()
    (vault.root / ".git" / STATE_FILE).unlink()  # a new clone of the vault, or its state file removed
    result = vault.sweep(claimed=set())
    assert [f.problem for f in result.files] == [""]
    assert [f.redacted for f in result.files] == [(2,)]
    assert file_bytes(vault) == canonical()
    assert not VaultAlarm.objects.exists()


def test_a_redaction_committed_while_a_sweep_writes_is_taken_out_by_the_next(vault, zelda, monkeypatch):
    vault.sweep(claimed=set())
    add("one more line")  # the head moves: the next sweep reads the rows after the file's
    read = mirror.canonical_lines

    def then_redact(nb, *, after=0):  # noqa: ANN001, ANN202
        rows = read(nb, after=after)
        monkeypatch.setattr(mirror, "canonical_lines", read)
        _redact()  # another process commits a redaction right after the sweep read the rows
        return rows

    monkeypatch.setattr(mirror, "canonical_lines", then_redact)
    vault.sweep(claimed=set())
    assert SECRET.encode() in file_bytes(vault)  # the sweep wrote what it read
    result = vault.sweep(claimed=set())
    assert [f.redacted for f in result.files] == [(2,)]
    assert SECRET.encode() not in file_bytes(vault)
    assert file_bytes(vault) == canonical()


def test_a_mark_with_the_words_real_digest_but_no_redaction_in_the_log_is_a_rewrite(vault, zelda, settings):
    settings.NOTEBOOK_VAULT_CLAIMS = "tests.vault.test_vault_redaction.no_claims"
    vault.sweep()
    base = vault_take("zelda", session_id=7)
    seq = add("roll after the rest")
    _fake_mark_on_line_2(vault, digest=wordkeys.keyed("zelda", SECRET)[1])
    with pytest.raises(Conflict, match="The final gate refuses the land: .* line 2 was changed"):
        vault_land("zelda", actor="pippa", plan="One more", summary="a line", session_id=7, base_sha=base, seqs=[seq])
    result = vault.sweep(claimed=set())
    assert [f.problem for f in result.files] == ["rewritten"]
    assert file_bytes(vault) == canonical() and SECRET.encode() in file_bytes(vault)  # never redacted: restored


def test_a_redact_row_appended_to_the_file_is_refused_with_an_alarm_and_nothing_written(vault, zelda):
    vault.sweep(claimed=set())
    good = canonical()
    redact = outside("redact", n=2, redacts=rowformat.digest_of(SECRET), by="dad", why="a password")
    append_to(vault, "zelda", redact)
    result = vault.sweep(claimed=set())
    assert [f.problem for f in result.files] == ["refused_append"]
    assert "line 4: a redact row cannot be appended to a notebook's file: redaction is the human editor's act" in (
        result.files[0].message
    )
    assert VaultAlarm.objects.get().problem == "refused_append"
    assert file_bytes(vault) == good  # restored from the log; the appended file is kept as evidence
    assert not Row.objects.filter(op="redact").exists()
    assert verify_chain(zelda) == []  # before, the row went in and its words stayed: verify failed
