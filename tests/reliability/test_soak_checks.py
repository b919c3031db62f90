"""The soak's checker (tests/soak_checks.py) on synthetic rows: an acknowledged write is its one row, or in a
session its proposal plus at most one landed copy (docs/file-format.md); a real double or a loss is still caught."""

from typing import Any

import pytest

from tests.soak_actors import Write
from tests.soak_checks import Checks, numbered, one_write

TOKEN = "soak pippa #1 0.123456789012"


def plain(seq: int, n: int, op: str = "add", why: str = TOKEN) -> dict[str, Any]:
    return {"op": op, "n": n, "text": why, "source": "seen", "by": "pippa", "why": why, "seq": seq}


def proposal(seq: int, n: int, proposes: str = "add", why: str = TOKEN) -> dict[str, Any]:
    return {"op": "propose", "n": n, "proposes": proposes, "proposed_text": why, "by": "pippa", "why": why, "seq": seq}


def copy(seq: int, of: dict[str, Any]) -> dict[str, Any]:
    return {**plain(seq, of["n"], of["proposes"], of["why"]), "lands": of["seq"]}


def test_one_plain_row_counts_once() -> None:
    assert one_write([plain(4, 2)], 1) == ("ok", "")


def test_a_proposal_and_its_landed_copy_count_once() -> None:
    p = proposal(4, 2)
    assert one_write([p, copy(9, p)], 1, landed=True) == ("ok", "")


def test_a_merge_in_a_session_is_three_proposals_each_landed_once() -> None:
    made = [proposal(4, 7), proposal(5, 2, "strike"), proposal(6, 3, "strike")]
    assert one_write([*made, *(copy(10 + k, p) for k, p in enumerate(made))], 3, landed=True) == ("ok", "")


def test_two_landed_copies_of_one_proposal_are_a_double() -> None:
    p = proposal(4, 2)
    verdict, why = one_write([p, copy(9, p), copy(12, p)], 1, landed=True)
    assert verdict == "doubled"
    assert "seqs [4]" in why


def test_two_plain_rows_for_one_write_are_a_double() -> None:
    assert one_write([plain(4, 2), plain(5, 3)], 1)[0] == "doubled"


def test_a_write_both_proposed_and_written_plainly_is_a_double() -> None:
    p = proposal(4, 2)
    assert one_write([p, plain(5, 3)], 1)[0] == "doubled"


def test_a_landed_copy_of_another_writes_proposal_is_a_double() -> None:
    p = proposal(4, 2)
    stray = {**copy(9, p), "lands": 3}
    assert one_write([p, copy(8, p), stray], 1, landed=True)[0] == "doubled"


def test_an_acknowledged_write_with_no_row_is_lost() -> None:
    assert one_write([], 1)[0] == "lost"
    assert one_write([], 1, landed=True)[0] == "lost"


def test_a_merge_missing_a_row_is_lost() -> None:
    assert one_write([plain(4, 7), plain(5, 2, "strike")], 3)[0] == "lost"


def test_a_landed_sessions_proposal_without_its_copy_is_lost() -> None:
    verdict, why = one_write([proposal(4, 2)], 1, landed=True)
    assert verdict == "lost"
    assert "seqs [4]" in why


@pytest.mark.parametrize("landed", [False, None])
def test_a_proposal_of_a_session_not_landed_or_not_known_to_have_landed_counts_once(landed: bool | None) -> None:
    assert one_write([proposal(4, 2)], 1, landed=landed) == ("ok", "")


def test_a_refused_land_that_left_a_landed_copy_is_caught() -> None:
    p = proposal(4, 2)
    assert one_write([p, copy(9, p)], 1, landed=False)[0] == "refused_left"


def test_a_landed_copy_of_another_op_or_line_or_before_its_proposal_is_caught() -> None:
    p = proposal(4, 2)
    assert one_write([p, {**copy(9, p), "op": "edit"}], 1, landed=True)[0] == "mismatched"
    assert one_write([p, {**copy(9, p), "n": 3}], 1, landed=True)[0] == "mismatched"
    assert one_write([p, copy(3, p)], 1, landed=True)[0] == "mismatched"


def test_a_number_is_given_by_a_plain_add_or_a_proposed_one_never_by_a_landed_copy() -> None:
    p = proposal(2, 2)
    rows = [plain(1, 1), p, proposal(3, 1, "edit"), copy(4, p), plain(5, 1, "strike")]
    assert [r["n"] for r in rows if numbered(r)] == [1, 2]


class Checker(Checks):
    """Only what check_writes reads: the writes sent, no alarm, the problems found."""

    def __init__(self, writes: list[Write]) -> None:
        self.writes, self.alarms, self.problems = writes, [], []


def acked(token: str, rows: int = 1, land: Write | None = None) -> Write:
    return Write("add", "pippa", token, 0.0, "zelda", status=201, rows=rows, land=land)


def test_check_writes_counts_sessions_writes_once_and_still_finds_a_real_double_and_a_loss() -> None:
    landed, refused = Write("land", "pippa", "land", 0.0, "zelda", 200), Write("land", "pippa", "l", 0.0, "zelda", 503)
    tokens = [f"soak pippa #{k} 0.{k}" for k in range(5)]
    writes = [
        acked(tokens[0]),  # a plain add
        acked(tokens[1], land=landed),  # proposed, then landed once
        acked(tokens[2], land=refused),  # proposed; its land refused, so never copied
        acked(tokens[3], land=landed),  # proposed, then landed twice: a double
        acked(tokens[4]),  # acknowledged, no row: lost
    ]
    p1, p2, p3 = proposal(2, 2, why=tokens[1]), proposal(3, 3, why=tokens[2]), proposal(4, 4, why=tokens[3])
    rows = [plain(1, 1, why=tokens[0]), p1, p2, p3, copy(5, p1), copy(6, p3), copy(7, p3)]
    checker = Checker(writes)
    acked_count, lost, doubled, refused_left, unanswered_landed = checker.check_writes({"zelda": rows})
    assert (acked_count, lost, doubled, refused_left, unanswered_landed) == (5, 1, 1, 0, 0)
    assert [p.split(":")[0] for p in checker.problems] == ["add by pippa ('soak pippa #3 0.3') answered 201", "LOST"]


def test_a_write_answered_503_because_its_connection_was_lost_may_have_landed_but_a_plain_refusal_may_not() -> None:
    lost_connection = {"error": {"code": "unavailable", "message": "... its write may or may not stand. ..."}}
    disk_full = {"error": {"code": "unavailable", "message": "The database's disk is full: nothing was written."}}
    tokens = ["soak pippa #0 0.0", "soak pippa #1 0.1"]
    writes = [
        Write("add", "pippa", tokens[0], 0.0, "zelda", status=503, answer=lost_connection),
        Write("add", "pippa", tokens[1], 0.0, "zelda", status=503, answer=disk_full),
    ]
    checker = Checker(writes)
    counts = checker.check_writes({"zelda": [plain(1, 1, why=tokens[0]), plain(2, 2, why=tokens[1])]})
    assert counts == (0, 0, 0, 1, 1)
    assert checker.problems == ["refused add by pippa (503) left 1 rows"]
