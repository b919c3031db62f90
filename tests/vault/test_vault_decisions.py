"""Dad's land on /sessions/ reaches git as an agent's land does: one semantic commit by the session's actor, which
names his approval; a lapsed session's rows the sweep already committed get a commit that names them."""

import pytest

from notebooks.log import services
from notebooks.log.identity.roles import Actor
from notebooks.log.rules.errors import Conflict
from notebooks.sessions import decisions, leases
from notebooks.sessions import services as sessions
from tests.vault.vaulttools import add, at, canonical, commits, file_bytes

DAD = Actor("dad", editor=True)
TTL = 60.0


def test_dads_land_of_a_refused_session_is_one_semantic_commit_naming_his_approval(enabled):
    vault = enabled
    taken = sessions.take(notebook="zelda", plan="Tidy the guard lines", by="pippa")
    for n in (1, 2):
        services.retire(notebook="zelda", n=n, by="pippa", why="stale")
    with pytest.raises(sessions.GateRefused):
        sessions.land(session=taken.id, by="pippa", summary="dropped two")
    vault.sweep()  # still claimed: nothing committed
    assert "Tidy" not in commits(vault)[0]["subject"]
    decisions.land_as_editor(session=taken.id, reason="both were wrong", by=DAD)
    top = commits(vault)[0]
    assert top["author"] == "pippa" and top["subject"] == "Tidy the guard lines"
    assert "Landed by dad as his approval: both were wrong" in top["body"]
    assert f"Session: {taken.id}" in top["body"]
    assert at(vault, "HEAD") == canonical() == file_bytes(vault)


@pytest.fixture
def lapsed(enabled, monkeypatch, settings) -> tuple[int, int]:  # noqa: ANN001
    """Pippa's session of one line, lapsed and found so by a sweep; its id and its line's seq."""
    settings.NOTEBOOK_SESSION_TTL = TTL
    clock = [leases.time.time()]
    monkeypatch.setattr(leases, "now", lambda: clock[0])
    taken = sessions.take(notebook="zelda", plan="One lesson", by="pippa")
    seq = add("the guard rests after two swings")
    clock[0] += TTL + 1
    enabled.sweep()  # the lapse is found: the file is no longer claimed and its rows are committed as history
    return taken.id, seq


def test_dads_land_of_a_lapsed_session_the_sweep_committed_names_its_rows(enabled, lapsed):
    vault = enabled
    taken, seq = lapsed
    assert at(vault, "HEAD") == canonical()
    decisions.land_as_editor(session=taken, reason="she was right", by=DAD)
    top = commits(vault)[0]
    assert top["author"] == "pippa" and top["subject"] == "One lesson"
    assert "Landed by dad as his approval: she was right" in top["body"] and f"Rows: {seq}" in top["body"]
    assert "committed as automatic history" in top["body"]
    assert at(vault, "HEAD") == canonical()


def test_an_agents_plan_and_summary_reach_git_with_their_control_characters_escaped(enabled):
    vault = enabled
    taken = sessions.take(notebook="zelda", plan="Tidy \x1b[2J\x1b[31mthe guard\x1b[0m lines", by="pippa")
    add("the guard rests after two swings")
    sessions.checkpoint(session=taken.id, note="half\x07way\nthere", by="pippa")
    sessions.land(session=taken.id, by="pippa", summary="one lesson\x1b]8;;http://x\x07\nand a second line")
    top = commits(vault)[0]
    assert top["subject"] == "Tidy \\x1b[2J\\x1b[31mthe guard\\x1b[0m lines"
    assert "one lesson\\x1b]8;;http://x\\x07\nand a second line" in top["body"]
    assert not any(ch in top["subject"] + top["body"] for ch in "\x1b\x07\r")
    assert at(vault, "HEAD") == canonical() == file_bytes(vault)


def test_dads_land_of_a_lapsed_session_waits_for_the_open_one_on_its_notebook(enabled, lapsed):
    vault, (lapsed, _) = enabled, lapsed
    taken = sessions.take(notebook="zelda", plan="Another", by="reflector")
    add("the guard's second swing is slower", by="reflector")
    with pytest.raises(Conflict, match=f"Session #{taken.id} of reflector is open on 'zelda': land or discard it"):
        decisions.land_as_editor(session=lapsed, reason="she was right", by=DAD)
    sessions.land(session=taken.id, by="reflector", summary="one more")  # it can still land
    decisions.land_as_editor(session=lapsed, reason="she was right", by=DAD)  # and then this one
    assert [c["subject"] for c in commits(vault)[:2]] == ["One lesson", "Another"]
    assert at(vault, "HEAD") == canonical()


def test_dads_discard_of_a_lapsed_session_leaves_the_open_ones_rows_to_its_land(enabled, lapsed):
    vault, (lapsed, _) = enabled, lapsed
    taken = sessions.take(notebook="zelda", plan="Another", by="reflector")
    add("the guard's second swing is slower", by="reflector")
    decisions.discard(session=lapsed, reason="not this", by=DAD)
    sessions.land(session=taken.id, by="reflector", summary="one more")
    assert commits(vault)[0]["subject"] == "Another"
    assert at(vault, "HEAD") == canonical()
