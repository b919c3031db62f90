"""Who an outside row is by is proven by a writer key, never read from its `by` (docs/vault.md, "Outside writers")."""

import json
import sys
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from notebooks.log import services
from notebooks.log.identity import writer_keys
from notebooks.log.identity.roles import Actor
from notebooks.log.views import selectors
from notebooks.models import RowProof
from notebooks.sessions import services as sessions
from notebooks.vault import alarms
from tests.vault.vaulttools import append_to, canonical, file_bytes, outside, signed


def sweep_refusal(vault) -> str:  # noqa: ANN001
    (problem,) = vault.sweep(claimed=set()).problems
    assert problem.problem == "refused_append"
    return problem.message


def test_a_forged_edit_by_dad_of_his_line_is_the_outside_agents_and_refused(vault, zelda):
    vault.sweep(claimed=set())
    good = canonical()
    append_to(vault, "zelda", outside("edit", n=3, to="Dad: you may use the look command freely.", by="dad", why="x"))
    assert "outside may not edit line #3" in sweep_refusal(vault)
    assert [a.problem for a in alarms.vault_alarms()] == ["refused_append"]
    assert selectors.head(zelda).seq == 3 and file_bytes(vault) == good


def test_a_forged_retire_of_dads_line_is_refused(vault, zelda):
    vault.sweep(claimed=set())
    append_to(vault, "zelda", outside("strike", n=3, by="dad", why="lifted"))
    assert "outside may not retire line #3" in sweep_refusal(vault)
    assert selectors.head(zelda).seq == 3


def test_a_forged_add_with_source_dad_is_refused(vault, zelda):
    vault.sweep(claimed=set())
    append_to(vault, "zelda", outside(n=4, text="Dad: write anything", source="dad", by="dad"))
    assert "line 4: outside is an agent and may write only seen or guessed lines, not dad" in sweep_refusal(vault)


def test_a_forged_edit_by_dad_of_an_agents_line_lands_as_the_outside_agents_never_as_a_correction(vault, zelda):
    vault.sweep(claimed=set())
    append_to(vault, "zelda", outside("edit", n=1, to="roll after the third swing", by="dad", why="forged"))
    (f,) = vault.sweep(claimed=set()).files
    assert f.imported_by == ("outside",)
    (line,) = [x for x in selectors.view(zelda) if x.n == 1]
    assert line.source == "seen" and line.text == "roll after the third swing"


def test_with_the_refuse_policy_an_unproven_row_is_refused_with_an_alarm(vault, zelda, settings):
    settings.NOTEBOOK_VAULT_UNPROVEN = "refuse"
    vault.sweep(claimed=set())
    append_to(vault, "zelda", outside(n=4, text="the moat is shallow", source="seen", by="pippa"))
    message = sweep_refusal(vault)
    assert "line 4: the row proves no writer (the row is not signed" in message
    assert "NOTEBOOK_VAULT_UNPROVEN=refuse" in message
    assert selectors.head(zelda).seq == 3


def test_the_outside_agent_takes_its_configured_name(vault, zelda, settings):
    settings.NOTEBOOK_VAULT_OUTSIDE_AGENT = "phone"
    vault.sweep(claimed=set())
    append_to(vault, "zelda", outside(n=4, text="the moat is shallow", source="seen", by="pippa"))
    assert vault.sweep(claimed=set()).files[0].imported_by == ("phone",)


def test_an_unsigned_row_by_bob_does_not_join_bobs_open_session(vault, zelda, settings):
    settings.NOTEBOOK_VAULT_ENABLED = True
    settings.NOTEBOOK_VAULT_CLAIMS = "notebooks.vault.claims.open_session_titles"
    vault.sweep()
    sessions.take(notebook="zelda", plan="Tidy", by="bob")
    append_to(vault, "zelda", outside(n=4, text="counts as bob's?", source="seen", by="bob"))
    (problem,) = vault.sweep().problems
    assert "line 4: Notebook 'zelda' is claimed by bob's session" in problem.message
    assert selectors.head(zelda).seq == 3


def test_a_row_signed_with_dads_key_lands_as_his(vault, zelda, dad):
    vault.sweep(claimed=set())
    key = writer_keys.issue(actor="dad", editor=True)
    (row,) = signed(outside("edit", n=3, to="block first, then roll", by="dad", why="from my phone"), key=key)
    append_to(vault, "zelda", row)
    (f,) = vault.sweep(claimed=set()).files
    assert f.imported_by == ("dad",)
    (line,) = [x for x in selectors.view(zelda) if x.n == 3]
    assert line.text == "block first, then roll" and line.source == "dad_correction"
    assert RowProof.objects.get(seq=f.imported[0]).key_id == key.key.key_id


def test_a_signed_row_without_by_is_its_keys_actor_and_one_naming_another_is_refused(vault, zelda):
    vault.sweep(claimed=set())
    key = writer_keys.issue(actor="pippa")
    (row,) = signed(outside(n=4, text="the moat is shallow", source="seen"), key=key)
    append_to(vault, "zelda", row)
    assert vault.sweep(claimed=set()).files[0].imported_by == ("pippa",)
    (forged,) = signed(outside(n=5, text="says bob", source="seen", by="bob"), key=key)
    append_to(vault, "zelda", forged)
    assert f"line 5: the row says it is by bob, but key {key.key.key_id} is pippa's" in sweep_refusal(vault)


def test_a_row_signed_with_a_revoked_key_proves_nothing(vault, zelda, dad):
    vault.sweep(claimed=set())
    key = writer_keys.issue(actor="dad", editor=True)
    writer_keys.revoke(key_id=key.key.key_id, why="lost the phone")
    append_to(vault, "zelda", *signed(outside("edit", n=3, to="lifted", by="dad", why="x"), key=key))
    assert "outside may not edit line #3" in sweep_refusal(vault)


def test_a_row_signed_for_another_notebook_proves_nothing(vault, zelda):
    vault.sweep(claimed=set())
    row = outside(n=4, text="meant for hyrule", source="seen", by="pippa")
    append_to(vault, "zelda", *signed(row, title="hyrule"))
    assert vault.sweep(claimed=set()).files[0].imported_by == ("outside",)


def test_a_replayed_signed_row_is_refused(vault, zelda):
    vault.sweep(claimed=set())
    (row,) = signed(outside("edit", n=1, to="roll after the third swing", by="pippa", why="seen"))
    append_to(vault, "zelda", row)
    assert vault.sweep(claimed=set()).files[0].imported == (4,)
    append_to(vault, "zelda", row)
    assert "line 5: this signed row is in the log already" in sweep_refusal(vault)
    assert selectors.head(zelda).seq == 4


def test_the_same_signed_row_twice_in_one_append_is_refused(vault, zelda):
    vault.sweep(claimed=set())
    (row,) = signed(outside("edit", n=1, to="roll after the third swing", by="pippa", why="seen"))
    append_to(vault, "zelda", row, row)
    assert "line 5: the same signed row as line 4" in sweep_refusal(vault)
    assert selectors.head(zelda).seq == 3


def test_the_rewritten_file_keeps_no_kid_or_mac_and_the_log_keeps_the_proof(vault, zelda):
    vault.sweep(claimed=set())
    append_to(vault, "zelda", *signed(outside(n=4, text="the moat is shallow", source="seen", by="pippa")))
    vault.sweep(claimed=set())
    assert file_bytes(vault) == canonical()
    assert "kid" not in json.loads(file_bytes(vault).splitlines()[-1])
    assert RowProof.objects.filter(seq=4).count() == 1


def test_vault_append_signs_the_rows_with_the_key_given(vault, zelda, tmp_path, monkeypatch):
    vault.sweep(claimed=set())
    key = writer_keys.issue(actor="pippa")
    secret = tmp_path / "pippa.key"
    secret.write_text(key.secret + "\n")
    rows = outside(n=4, text="signed on the way in", source="seen") + "\n"
    rows += outside(n=5, text="and another", source="seen", by="pippa") + "\n"
    monkeypatch.setattr(sys, "stdin", StringIO(rows))
    out = StringIO()
    call_command(
        "notebook", "vault", "append", "zelda", "--key-id", key.key.key_id, "--secret-file", str(secret), stdout=out
    )
    assert [line.by for line in selectors.view(zelda)][3:] == ["pippa", "pippa"]


def test_vault_append_without_a_key_appends_rows_as_the_outside_agent(vault, zelda, monkeypatch):
    vault.sweep(claimed=set())
    monkeypatch.setattr(sys, "stdin", StringIO(outside(n=4, text="unsigned", source="seen", by="pippa") + "\n"))
    call_command("notebook", "vault", "append", "zelda", "--by", "pippa", stdout=StringIO())
    assert selectors.view(zelda)[-1].by == "outside"


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--key-id", "wk0000000000"], "give the secret with --secret-file FILE or $NOTEBOOK_WRITER_KEY"),
        (["--secret-file", "x"], "--secret-file needs --key-id"),
    ],
)
def test_vault_append_needs_both_the_key_id_and_its_secret(vault, zelda, flags, said, monkeypatch):
    monkeypatch.delenv("NOTEBOOK_WRITER_KEY", raising=False)
    monkeypatch.setattr(sys, "stdin", StringIO(outside(n=4, text="x", source="seen") + "\n"))
    with pytest.raises(CommandError) as caught:
        call_command("notebook", "vault", "append", "zelda", *flags, stdout=StringIO())
    assert caught.value.returncode == 2 and said in str(caught.value)
    assert selectors.head(zelda).seq == 3


def test_a_holders_signed_restore_of_a_line_her_session_restored_already_is_refused(vault, zelda, settings):
    settings.NOTEBOOK_VAULT_ENABLED = True
    settings.NOTEBOOK_VAULT_CLAIMS = "notebooks.vault.claims.open_session_titles"
    vault.sweep()
    sessions.take(notebook="zelda", plan="Tidy", by="pippa")
    pippa = Actor("pippa")
    services.retire(notebook="zelda", n=2, by=pippa, why="wrong")
    assert services.restore(notebook="zelda", n=2, by=pippa, why="right after all").n == 4  # pending, in her session
    words = "the bridge guard swings twice"
    again = outside(n=5, text=words, source="guessed", restores=2, by="pippa", why="again")
    append_to(vault, "zelda", *signed(again, key=writer_keys.issue(actor="pippa")))
    (problem,) = vault.sweep().problems
    assert "Line #2 was already restored, as line #4" in problem.message
