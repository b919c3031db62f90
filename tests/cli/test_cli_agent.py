from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from notebooks.agents import tokens
from notebooks.models import Token
from tests.conftest import LEASE_TTL


def _run(*args: str) -> str:
    out = StringIO()
    call_command("notebook", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_token_prints_a_working_token_on_its_last_line(db):
    secret = _run("token", "pippa").strip().splitlines()[-1]
    actor = tokens.authenticate(secret)
    assert actor.name == "pippa" and not actor.editor


def test_an_editor_token_needs_the_editor_role(dad):
    secret = _run("token", "dad", "--editor").strip().splitlines()[-1]
    assert tokens.authenticate(secret).editor
    with pytest.raises(CommandError) as refused:
        _run("token", "pippa", "--editor")
    assert refused.value.returncode == 3


def test_token_revoke_by_secret_and_by_actor(db):
    first = _run("token", "pippa").strip().splitlines()[-1]
    second = _run("token", "pippa").strip().splitlines()[-1]
    assert "revoked token" in _run("token-revoke", first, "--why", "leaked")
    assert tokens.authenticate(first) is None and tokens.authenticate(second) is not None
    _run("token-revoke", "--actor", "pippa")
    assert tokens.authenticate(second) is None
    assert Token.objects.filter(revoked_at__isnull=True).count() == 0


def test_token_revoke_of_nothing_is_not_found(db):
    with pytest.raises(CommandError) as refused:
        _run("token-revoke", "nbk_nothing")
    assert refused.value.returncode == 4


def test_tokens_lists_without_secrets(db):
    secret = _run("token", "pippa").strip().splitlines()[-1]
    listing = _run("tokens")
    assert "pippa agent" in listing and secret not in listing


def test_take_checkpoint_land_from_the_command_line(zelda):
    took = _run("take", "zelda", "--plan", "tidy", "--by", "pippa")
    sid = took.split("#")[1].split()[0]
    assert "base seq 3" in took
    added = _run("add", "zelda", "roll", "--source", "seen", "--by", "pippa", "--why", "seen")
    assert added.startswith(f"added line #4 (seq 4); pending: it counts once session #{sid} lands")
    assert "base stays 3" in _run("checkpoint", sid, "--note", "one in", "--by", "pippa")
    assert "1 row as one change, 0 rows of drift" in _run("land", sid, "--summary", "a line", "--by", "pippa")
    assert "landed" in _run("sessions")
    assert "pending" not in _run("add", "zelda", "parry", "--source", "seen", "--by", "pippa", "--why", "seen")


def test_a_second_take_exits_with_the_conflict_code(zelda):
    _run("take", "zelda", "--plan", "tidy", "--by", "pippa")
    with pytest.raises(CommandError) as refused:
        _run("take", "zelda", "--plan", "mine", "--by", "reflector")
    assert refused.value.returncode == 5 and "pippa" in str(refused.value)


def test_abandon_and_a_no_op_land_from_the_command_line(zelda):
    first = _run("take", "zelda", "--plan", "tidy", "--by", "pippa").split("#")[1].split()[0]
    assert "no-op" in _run("land", first, "--by", "pippa")
    second = _run("take", "zelda", "--plan", "again", "--by", "pippa").split("#")[1].split()[0]
    assert "abandoned" in _run("abandon", second, "--why", "wrong plan", "--by", "pippa")


def test_counts_of_one_read_as_one_row(zelda):
    assert "recorded 3 pending rows as drift" in _run("take", "zelda", "--plan", "p", "--by", "pippa")
    _run("add", "zelda", "roll after the second swing", "--source", "seen", "--by", "pippa", "--why", "seen")
    assert ": 1 row of change," in _run("sessions")


def test_the_turn_of_a_sessions_holder_shows_her_pending_lines_and_no_one_elses_does(zelda):
    sid = _run("take", "zelda", "--plan", "tidy", "--by", "pippa").split("#")[1].split()[0]
    _run("add", "zelda", "roll late", "--source", "seen", "--by", "pippa", "--why", "seen")
    assert "[#4 seen] roll late" in _run("turn", "zelda", "--by", "pippa")
    assert "roll late" not in _run("turn", "zelda", "--by", "reflector")
    _run("land", sid, "--summary", "a line", "--by", "pippa")
    assert "roll late" in _run("turn", "zelda", "--by", "reflector")


def test_the_turn_of_a_holder_whose_session_lapsed_says_which_lines_are_left_out(zelda, clock):
    sid = _run("take", "zelda", "--plan", "tidy", "--by", "pippa").split("#")[1].split()[0]
    _run("add", "zelda", "roll late", "--source", "seen", "--by", "pippa", "--why", "seen")
    clock.move(LEASE_TTL + 1)
    err = StringIO()
    call_command("notebook", "turn", "zelda", "--by", "pippa", stdout=(out := StringIO()), stderr=err)
    assert "roll late" not in out.getvalue()
    said = err.getvalue()
    assert f"session #{sid} lapsed" in said and "1 pending line is not in this turn:\n  #4 roll late\n" in said
    assert f"`notebook abandon {sid} --why REASON --by pippa` to let them go." in said


def test_the_turn_of_a_holder_whose_session_lapsed_names_the_lines_it_would_retire(zelda, clock):
    sid = _run("take", "zelda", "--plan", "tidy", "--by", "pippa").split("#")[1].split()[0]
    _run("retire", "zelda", "2", "--by", "pippa", "--why", "wrong")
    clock.move(LEASE_TTL + 1)
    err = StringIO()
    call_command("notebook", "turn", "zelda", "--by", "pippa", stdout=(out := StringIO()), stderr=err)
    assert "always attack first" in out.getvalue()  # line 2, still live
    said = err.getvalue()
    assert "pending line" not in said and "Still in this turn, though it retires them: #2.\n" in said
    assert said.strip().endswith(f"`notebook abandon {sid} --why REASON --by pippa` to let them go.")


def test_token_revoke_takes_a_token_as_tokens_lists_it(db):
    kept = _run("token", "pippa").strip().splitlines()[-1]
    _run("token", "pippa")
    listed = _run("tokens").splitlines()[-1].split()  # "#2 nbk_ZN-JLwD6… pippa agent …"
    assert f"revoked token {listed[0]} " in _run("token-revoke", listed[1])
    _run("token", "pippa")
    listed = _run("tokens").splitlines()[-1].split()
    assert f"revoked token {listed[0]} " in _run("token-revoke", listed[0])
    assert tokens.authenticate(kept) is not None


def test_a_database_refusal_is_one_line_with_its_exit_code(db, monkeypatch):
    from django.db import DatabaseError

    def refused(**_: object) -> None:
        raise DatabaseError("permission denied for table notebooks_token\nDETAIL: more")

    monkeypatch.setattr(tokens, "issue", refused)
    with pytest.raises(CommandError) as said:
        _run("token", "pippa")
    assert str(said.value) == "The database refused: permission denied for table notebooks_token"
    assert said.value.returncode == 1


def test_a_table_missing_says_to_migrate(db, monkeypatch):
    from django.db import OperationalError

    def missing(**_: object) -> None:
        raise OperationalError("no such table: notebooks_sessionlease")

    monkeypatch.setattr(tokens, "issue", missing)
    with pytest.raises(CommandError, match=r"no such table: notebooks_sessionlease \(is the database migrated\?"):
        _run("token", "pippa")


def test_the_turn_of_a_holder_whose_lapsed_session_left_nothing_out_says_only_that_it_lapsed(zelda, clock):
    sid = _run("take", "zelda", "--plan", "tidy", "--by", "pippa").split("#")[1].split()[0]
    clock.move(LEASE_TTL + 1)
    err = StringIO()
    call_command("notebook", "turn", "zelda", "--by", "pippa", stdout=StringIO(), stderr=err)
    said = err.getvalue()
    assert f"session #{sid} lapsed at " in said and "pending line" not in said
    assert said.strip().endswith(f"Take a new session, or `notebook abandon {sid} --why REASON --by pippa`.")


def test_a_holders_first_add_to_an_empty_notebook_answers_in_one_line(db):
    _run("create", "celeste")
    sid = _run("take", "celeste", "--plan", "start it", "--by", "pippa").split("#")[1].split()[0]
    said = _run("add", "celeste", "dash up then left", "--source", "seen", "--by", "pippa", "--why", "seen")
    assert said.strip() == f"added line #1 (seq 1); pending: it counts once session #{sid} lands"
    said = _run("add", "celeste", "dash up then right", "--source", "seen", "--by", "pippa", "--why", "seen")
    assert said.startswith("added line #2 (seq 2); pending") and "most like it: #1" in said
