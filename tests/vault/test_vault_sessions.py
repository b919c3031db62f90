"""Take, checkpoint and land in git: drift apart from the one semantic commit, the base never laundered."""

import signal
from io import StringIO
from types import SimpleNamespace

import pytest
from django.core.management import call_command

from notebooks.log import services
from notebooks.log.rules.errors import Conflict, Invalid
from notebooks.sessions import hooks as session_hooks
from notebooks.sessions import services as sessions
from notebooks.vault import alarms, vault_abandon, vault_checkpoint, vault_enabled, vault_land, vault_take, wiring
from tests.vault.vaulttools import (
    add,
    append_to,
    at,
    canonical,
    commits,
    file_bytes,
    rows_of,
)

CLAIMED: set[str] = set()


def claimed_for_tests() -> set[str]:
    return set(CLAIMED)


@pytest.fixture
def claims(settings):  # noqa: ANN001, ANN201
    """Open sessions' titles, as the sessions model will give them."""
    settings.NOTEBOOK_VAULT_CLAIMS = "tests.vault.test_vault_sessions.claimed_for_tests"
    CLAIMED.clear()
    yield CLAIMED
    CLAIMED.clear()


@pytest.fixture
def mario(db):  # noqa: ANN001, ANN201
    return services.create_notebook(title="mario", by="test")


@pytest.fixture
def taken(vault, zelda, mario, claims):  # noqa: ANN001, ANN201
    """Session 7 holds zelda from a clean base."""
    vault.sweep()
    base = vault_take("zelda", session_id=7)
    claims.add("zelda")
    return base


def land(base: str, seqs: list[int], **kwargs: object):  # noqa: ANN201
    fields = {"actor": "pippa", "plan": "Tidy the guard lines", "summary": "Two lines about the guard."}
    return vault_land("zelda", session_id=7, base_sha=base, seqs=seqs, **(fields | kwargs))


# ----- take --------------------------------------------------------------------------------------


def test_take_commits_pending_drift_first_and_returns_that_head_as_base(vault, zelda, mario, claims):
    vault.sweep()
    add("Dad's page wrote this before the take", by="dad", source="dad")
    add("and this, in another notebook", title="mario")
    before = commits(vault)[0]["sha"]
    base = vault_take("zelda", session_id=7)
    drift = commits(vault)[0]
    assert base == drift["sha"] != before
    assert drift["subject"] == "vault: pending drift, recorded before the take of zelda"
    assert drift["author"] == "notebooks vault"
    assert "Actors: dad, pippa" in drift["body"] and "Session: 7" in drift["body"]
    assert at(vault, base) == canonical()
    assert at(vault, base, "mario") == canonical("mario")


def test_take_with_nothing_pending_makes_no_commit(vault, zelda, claims):
    vault.sweep()
    head = commits(vault)[0]["sha"]
    assert vault_take("zelda", session_id=7) == head
    assert commits(vault)[0]["sha"] == head


def test_take_records_the_claimed_files_own_drift_even_while_it_counts_as_claimed(vault, zelda, claims):
    vault.sweep()
    claims.add("zelda")  # the session row exists before the vault is asked for a base
    add("written just before the take", by="dad", source="dad")
    base = vault_take("zelda", session_id=7)
    assert at(vault, base) == canonical()


def test_take_of_an_unknown_notebook_is_refused(vault, claims):
    with pytest.raises(Exception, match="No notebook is titled 'zeldaa'"):
        vault_take("zeldaa")


# ----- the watcher yields on the claimed file only -----------------------------------------------------


def test_the_watcher_writes_the_claimed_file_but_commits_only_the_others(vault, taken):
    add("the session's line")
    add("another notebook's line", title="mario")
    out = StringIO()
    call_command("notebook", "vault", "watch", "--interval", "0", "--sweeps", "2", stdout=out)
    assert file_bytes(vault) == canonical()  # live source stays written
    assert at(vault, "HEAD") == at(vault, taken)  # but its automatic history yields
    assert at(vault, "HEAD", "mario") == canonical("mario")  # quiescence is as narrow as the claim
    assert "zelda.jsonl: wrote 1 row(s) (claimed: written, not committed)" in out.getvalue()
    assert len(commits(vault)) == len(commits(vault, taken)) + 1


def test_once_the_claim_ends_the_watcher_commits_the_file_again(vault, taken, claims):
    add("the session's line")
    vault.sweep()
    claims.clear()
    vault.sweep()
    assert at(vault, "HEAD") == canonical()


# ----- land --------------------------------------------------------------------------------------


def test_land_commits_drift_first_then_one_semantic_commit_by_the_actor(vault, taken):
    add("another notebook's line", title="mario", by="reflector")
    s1 = add("the guard swings twice, then rests")
    s2 = add("roll after the rest")
    vault.sweep()  # the watcher ran meanwhile: mario committed, zelda written only
    add("and a later one in mario", title="mario", by="reflector")

    landed = land(taken, [s1, s2])
    semantic, drift = commits(vault)[0], commits(vault)[1]
    assert landed.semantic == semantic["sha"] and not landed.noop
    assert landed.drift == (drift["sha"],)
    assert drift["author"] == "notebooks vault" and "before the land of zelda" in drift["subject"]
    assert at(vault, drift["sha"], "mario") == canonical("mario")
    assert at(vault, drift["sha"]) == at(vault, taken)  # the drift commit holds none of the session's bytes

    assert semantic["author"] == "pippa"
    assert semantic["subject"] == "Tidy the guard lines"
    assert "Two lines about the guard." in semantic["body"]
    assert f"Session: 7\nBase: {taken}\nRows: {s1}-{s2}" in semantic["body"]
    changed = vault.git.text("diff-tree", "--no-commit-id", "--name-only", "-r", semantic["sha"])
    assert changed == "zelda.jsonl"
    assert at(vault, semantic["sha"]) == canonical()
    assert [r["seq"] for r in rows_of(canonical())[-2:]] == [s1, s2]


def test_rows_of_others_before_and_after_the_sessions_rows_are_committed_apart(vault, taken):
    d1 = add("Dad's word, before the session wrote", by="dad", source="dad")
    s1 = add("the session's line")
    d2 = add("Dad's word, after", by="dad", source="dad")
    landed = land(taken, [s1])
    pre, semantic, post = (commits(vault)[i] for i in (2, 1, 0))
    assert landed.drift == (pre["sha"], post["sha"]) and landed.semantic == semantic["sha"]
    assert [r["seq"] for r in rows_of(at(vault, pre["sha"]))][-1] == d1
    assert "row 4 by dad" in pre["body"]
    assert [r["seq"] for r in rows_of(at(vault, semantic["sha"]))][-1] == s1
    assert semantic["author"] == "pippa" and "Others" not in semantic["body"]
    assert [r["seq"] for r in rows_of(at(vault, post["sha"]))][-1] == d2
    assert post["author"] == "notebooks vault"


def test_a_row_of_others_between_the_sessions_rows_is_named_in_the_semantic_commit(vault, taken):
    s1 = add("first")
    d = add("Dad's word in between", by="dad", source="dad")
    s2 = add("second")
    land(taken, [s1, s2])
    body = commits(vault)[0]["body"]
    assert f"Rows: {s1}, {s2}" in body
    assert f"Others: {d} by dad" in body


def test_a_land_with_no_rows_of_the_session_is_a_no_op(vault, taken):
    head = commits(vault)[0]["sha"]
    landed = land(taken, [])
    assert landed.noop and landed.semantic is None and landed.drift == ()
    assert commits(vault)[0]["sha"] == head  # no empty commit


def test_a_no_op_land_still_records_others_rows_as_drift(vault, taken):
    add("Dad's word while the session held the notebook", by="dad", source="dad")
    landed = land(taken, [])
    assert landed.noop and len(landed.drift) == 1
    assert commits(vault)[0]["author"] == "notebooks vault"
    assert at(vault, "HEAD") == canonical()


def test_land_refuses_rows_that_are_not_the_actors(vault, taken):
    d = add("Dad's word", by="dad", source="dad")
    with pytest.raises(Invalid, match=f"Row {d} is by dad, not by the session's actor pippa"):
        land(taken, [d])


def test_land_refuses_rows_from_before_the_take(vault, taken):
    with pytest.raises(Invalid, match="Row 1 is not one of the rows written since the take"):
        land(taken, [1])


def test_land_refuses_a_base_that_is_not_a_commit(vault, taken):
    with pytest.raises(Invalid, match="is not a commit of the vault"):
        land("0" * 40, [])


# ----- checkpoint --------------------------------------------------------------------------------


def test_a_checkpoint_is_a_side_commit_that_moves_nothing(vault, taken):
    s1 = add("the session's line")
    head = commits(vault)[0]["sha"]
    first = vault_checkpoint("zelda", session_id=7, base_sha=taken, note="halfway")
    assert commits(vault)[0]["sha"] == head
    assert vault.git.rev("refs/checkpoints/7") == first
    assert commits(vault, first)[1]["sha"] == taken  # built on the base
    assert rows_of(at(vault, first))[-1]["seq"] == s1  # the session's rows so far
    assert "halfway" in commits(vault, first)[0]["body"]
    second = vault_checkpoint("zelda", session_id=7, base_sha=taken)
    assert commits(vault, second)[1]["sha"] == first
    landed = land(taken, [s1])
    assert commits(vault, landed.semantic)[1]["sha"] == head  # the land never builds on a checkpoint


def test_a_checkpoint_cannot_launder_a_deletion_made_before_it(vault, taken):
    s1 = add("the session's line")
    vault.sweep()
    lines = file_bytes(vault).splitlines(keepends=True)
    deleted = b"".join(lines[:1] + lines[2:])  # line 2, by hand
    vault.path("zelda").write_bytes(deleted)
    checkpoint = vault_checkpoint("zelda", session_id=7, base_sha=taken)
    assert at(vault, checkpoint) == deleted  # the checkpoint keeps the file exactly as found
    head = commits(vault)[0]["sha"]

    with pytest.raises(Conflict, match="final gate refuses the land: zelda.jsonl at the take's base .* line 2 was"):
        land(taken, [s1])
    assert commits(vault)[0]["sha"] == head  # nothing committed
    assert vault.git.rev("refs/checkpoints/7") == checkpoint


def test_after_the_vault_restores_the_file_the_land_carries_every_line(vault, taken):
    s1 = add("the session's line")
    vault.sweep()
    lines = file_bytes(vault).splitlines(keepends=True)
    vault.path("zelda").write_bytes(b"".join(lines[:1] + lines[2:]))
    vault_checkpoint("zelda", session_id=7, base_sha=taken)
    with pytest.raises(Conflict):
        land(taken, [s1])
    result = vault.sweep()  # the watcher: evidence kept, file restored
    assert result.problems[0].problem == "rewritten"
    landed = land(taken, [s1])
    assert at(vault, landed.semantic).startswith(at(vault, taken))


def test_land_refuses_when_its_own_file_held_a_bad_append_then_lands_the_restored_file(vault, taken):
    s1 = add("the session's line")
    append_to(vault, "zelda", "{not json")
    with pytest.raises(Conflict, match="Land refused: .* land again"):
        land(taken, [s1])
    assert alarms.vault_alarms()[0].problem == "refused_append"
    landed = land(taken, [s1])
    assert at(vault, landed.semantic) == canonical()


# ----- abandon, and the setting ----------------------------------------------------------------------


def test_abandon_commits_the_claimed_files_change_as_drift(vault, taken):
    add("the session's line")
    add("another notebook's line", title="mario")
    sha = vault_abandon("zelda", session_id=7, why="wrong plan")
    assert commits(vault)[0]["sha"] == sha
    assert "abandoned session 7" in commits(vault)[0]["subject"]
    assert "Abandoned: wrong plan" in commits(vault)[0]["body"]
    assert commits(vault)[0]["author"] == "notebooks vault"
    assert at(vault, "HEAD") == canonical() and at(vault, "HEAD", "mario") == canonical("mario")


def test_the_vault_is_enabled_by_its_setting(settings):
    settings.NOTEBOOK_VAULT_ENABLED = False
    assert not vault_enabled()
    settings.NOTEBOOK_VAULT_ENABLED = True
    assert vault_enabled()


# ----- for the sessions code: its own lock around take and land, and a land retried ------------------


def _bounded(seconds: int):  # noqa: ANN202
    """Fail instead of hanging if the vault's lock were not re-entrant."""

    def expired(*_: object) -> None:
        raise TimeoutError("the vault's lock deadlocked against itself")

    signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)


def test_take_and_land_run_inside_the_vaults_lock_held_by_the_caller(vault, zelda, claims):
    vault.sweep()
    _bounded(20)
    try:
        with vault.lock():  # what sessions.take does around its transaction
            base = vault_take("zelda", session_id=7)
            claims.add("zelda")
            s1 = add("the session's line")
            landed = land(base, [s1])
    finally:
        signal.alarm(0)
    assert commits(vault)[0]["sha"] == landed.semantic


def test_a_land_retried_after_it_reached_git_returns_the_same_commit(vault, taken):
    s1 = add("the session's line")
    first = land(taken, [s1])
    head = commits(vault)[0]["sha"]
    again = land(taken, [s1])
    assert again.semantic == first.semantic and again.rows == (s1,)
    assert commits(vault)[0]["sha"] == head


def test_open_sessions_are_the_default_claims(vault, settings):
    from notebooks.vault import claimed_titles

    settings.NOTEBOOK_VAULT_CLAIMS = "notebooks.vault.claims.open_session_titles"
    assert claimed_titles() == frozenset()  # no open session yet; test_vault_wiring covers an open one


# ----- the hooks sessions.py calls (notebooks.vault.wiring), with a stand-in for its Session -------------


def _session(base: str) -> SimpleNamespace:
    return SimpleNamespace(pk=7, notebook=SimpleNamespace(title="zelda"), actor="pippa", plan="Tidy", vault_base=base)


def test_the_vaults_hooks_are_registered_only_while_a_vault_is_configured(vault, zelda, settings):
    settings.NOTEBOOK_VAULT_ENABLED = False
    assert session_hooks.current() is session_hooks.NO_HOOKS
    head = commits(vault)[0]["sha"]
    taken = sessions.take(notebook="zelda", plan="Tidy", by="pippa")
    add("the session's line")
    assert sessions.land(session=taken.id, by="pippa", summary="One line.").result == "landed"
    assert sessions.Session.objects.get(pk=taken.id).vault_base == ""
    assert commits(vault)[0]["sha"] == head  # nothing reached git
    settings.NOTEBOOK_VAULT_ENABLED = True
    assert session_hooks.current() is wiring.HOOKS


def test_a_session_taken_without_a_vault_has_hooks_that_do_nothing(vault, zelda, settings):
    settings.NOTEBOOK_VAULT_ENABLED = True
    head = commits(vault)[0]["sha"]
    wiring.check_land(_session(""), [])
    assert wiring.after_checkpoint(_session(""), "n") is None
    assert wiring.land_in_git(_session(""), "s", []) is None
    assert wiring.after_abandon(_session(""), "w") is None
    assert commits(vault)[0]["sha"] == head


def test_the_hooks_take_checkpoint_and_land_through_the_vault(vault, zelda, claims, settings):
    settings.NOTEBOOK_VAULT_ENABLED = True
    with wiring.session_lock():
        base = wiring.base_for_take("zelda")
    claims.add("zelda")
    session = _session(base)
    s1 = add("the session's line")
    assert wiring.after_checkpoint(session, "halfway") == vault.git.rev("refs/checkpoints/7")
    with wiring.session_lock():
        landed = wiring.land_in_git(session, "One line.", [s1])
    assert commits(vault)[0]["sha"] == landed.semantic and commits(vault)[0]["author"] == "pippa"
