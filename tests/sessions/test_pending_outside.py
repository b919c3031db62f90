"""Rows the session's holder appends to the notebook's file are proposals too, judged as her other writes are: with
her session's proposals as the ops they propose (read your own writes); anyone else's rows see only landed lines."""

import json
import time

import pytest

from notebooks.log import redaction, services
from notebooks.log.files import imports
from notebooks.log.rules.errors import Forbidden, Invalid
from notebooks.log.views import selectors
from notebooks.models import Row
from notebooks.sessions import reads
from notebooks.sessions import services as sessions
from tests.agent_helpers import DAD


def _row(**fields) -> str:  # noqa: ANN003
    return json.dumps({"at": time.time(), **fields})


def _holders_texts() -> list[str]:
    nb = selectors.get_notebook("zelda")
    own = reads.own_session(nb, "pippa")
    assert own is not None
    return [line.text for line in reads.holder_lines(nb, selectors.view(nb), own)]


@pytest.fixture
def outside_is_pippa(settings):  # noqa: ANN001, ANN201
    settings.NOTEBOOK_VAULT_OUTSIDE_AGENT = "pippa"  # the holder's harness writes her file
    settings.NOTEBOOK_VAULT_UNPROVEN = "agent"


@pytest.fixture
def session(zelda, outside_is_pippa):  # noqa: ANN001, ANN201
    taken = sessions.take(notebook="zelda", plan="the guard", by="pippa")
    services.add(notebook="zelda", text="roll twice", source="seen", by="pippa", why="seen")  # #4, proposed
    services.retire(notebook="zelda", n=2, by="pippa", why="wrong")  # proposed
    return taken


def _landed() -> list[str]:
    return [line.text for line in selectors.view(selectors.get_notebook("zelda"))]


def test_the_holder_appends_an_edit_of_a_line_she_proposed(session):
    imports.append_rows(
        notebook="zelda", lines=[_row(op="edit", n=4, to="roll twice, then block", by="pippa", why="seen")],
        by_default="harness",
    )  # fmt: skip
    assert "roll twice, then block" in _holders_texts()
    assert "roll twice, then block" not in _landed() and "roll twice" not in _landed()
    sessions.land(session=session.id, by="pippa", summary="the guard")
    assert "roll twice, then block" in _landed() and "always attack first" not in _landed()


def test_the_holder_appends_a_retirement_of_a_line_she_proposed_and_retires_into_it(session):
    imports.append_rows(
        notebook="zelda",
        lines=[
            _row(op="add", n=5, text="roll after the second swing", source="seen", by="pippa"),
            _row(op="strike", n=1, how="merged", into=4, by="pippa", why="one lesson"),
        ],
        by_default="harness",
    )
    assert _holders_texts() == ["block first, then attack", "roll twice", "roll after the second swing"]
    assert _landed() == ["the bridge guard swings twice", "always attack first", "block first, then attack"]


def test_the_holder_cannot_append_a_change_of_a_line_she_proposed_to_retire(session):
    with pytest.raises(Invalid, match="line 1: edit of line #2, which is retired"):
        imports.append_rows(
            notebook="zelda", lines=[_row(op="edit", n=2, to="attack after the block", by="pippa", why="x")],
            by_default="harness",
        )  # fmt: skip


def test_the_holders_appended_change_keeps_the_rule_on_dads_lines(session):
    with pytest.raises(Forbidden, match="line 1"):
        imports.append_rows(
            notebook="zelda", lines=[_row(op="edit", n=3, to="block twice", by="pippa", why="x")], by_default="harness"
        )


def test_a_line_she_proposed_does_not_exist_for_another_writers_append(session, settings):
    sessions.abandon(session=session.id, why="wrong plan", by="pippa")
    with pytest.raises(Invalid, match="edit of line #4, which does not exist"):
        imports.append_rows(
            notebook="zelda", lines=[_row(op="edit", n=4, to="roll once", by="pippa", why="x")], by_default="harness"
        )


def _proposal_seq() -> int:
    return Row.objects.filter(op="propose", n=4).get().seq


def test_an_appended_landed_copy_is_refused_so_an_abandoned_change_never_counts(session):
    seq = _proposal_seq()
    sessions.abandon(session=session.id, why="wrong plan", by="pippa")
    copy = _row(op="add", n=4, lands=seq, text="roll twice", source="seen", by="pippa")
    with pytest.raises(Invalid, match="line 1: a session's proposal or landed copy cannot be appended"):
        imports.append_rows(notebook="zelda", lines=[copy], by_default="harness")
    assert "roll twice" not in _landed()


def test_the_holder_cannot_land_her_own_session_by_appending_its_copy(session):
    copy = _row(op="strike", n=2, lands=_proposal_seq() + 1, how="retired", by="pippa", why="wrong")
    with pytest.raises(Invalid, match="landed copy cannot be appended"):
        imports.append_rows(notebook="zelda", lines=[copy], by_default="harness")
    assert "always attack first" in _landed()


def test_an_appended_proposal_is_refused(session):
    row = _row(op="propose", proposes="add", n=5, proposed_text="x", source="seen", by="pippa")
    with pytest.raises(Invalid, match="proposal or landed copy"):
        imports.append_rows(notebook="zelda", lines=[row], by_default="harness")


def test_words_redacted_while_proposed_read_with_the_redactions_reason_in_the_holders_view(session):
    redaction.redact(notebook="zelda", n=4, seq=_proposal_seq(), by=DAD, why="a phone number")
    assert "[redacted: a phone number]" in _holders_texts()
    assert "[redacted: a phone number]" not in _landed()
