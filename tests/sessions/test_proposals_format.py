"""A session's proposals and their landed copies in the row format: hashed, exported, imported and verified, and
read right by a reader that knows only add, edit and strike."""

import json

from django.db import transaction

from notebooks.log import services
from notebooks.log.files import imports, verify
from notebooks.log.rules import fold
from notebooks.log.store.append import append
from notebooks.log.store.locked_reads import locked_notebook
from notebooks.log.views import selectors
from tests.agent_helpers import older_reader


def _propose(title: str, rows: list[dict]) -> list:
    with transaction.atomic():
        nb = locked_notebook(title)
        return append(nb, [{**r, "op": "propose", "by": "pippa"} for r in rows])


def _land(title: str, proposed: list, rows: list[dict]) -> None:
    with transaction.atomic():
        nb = locked_notebook(title)
        given = [{**r, "op": "propose", "by": "pippa", "seq": p.seq} for p, r in zip(proposed, rows, strict=True)]
        append(nb, fold.landed_copies(given))


def _proposed_rows() -> list[dict]:
    return [
        {"proposes": "add", "n": 3, "words": "A new lesson.", "source": "seen", "why": "seen in run 4"},
        {"proposes": "edit", "n": 1, "words": "Keys open doors, mostly.", "source": "seen", "why": "nuance"},
        {"proposes": "strike", "n": 2, "how": "retired", "why": "wrong"},
    ]


def _notebook_with_proposals(title: str = "zelda", land: bool = False) -> None:
    services.add(notebook=title, text="Keys open doors.", source="seen", by="pippa", why="seen")
    services.add(notebook=title, text="Bombs crack walls.", source="guessed", by="pippa", why="guess")
    rows = _proposed_rows()
    proposed = _propose(title, rows)
    if land:
        _land(title, proposed, rows)


def test_a_proposal_changes_no_view_and_holds_its_number(notebook):
    _notebook_with_proposals()
    nb = selectors.get_notebook("zelda")
    assert [(line.n, line.text) for line in selectors.view(nb)] == [(1, "Keys open doors."), (2, "Bombs crack walls.")]
    written = services.add(notebook="zelda", text="Another.", source="seen", by="dad", why="w")
    assert written.n == 4  # number 3 is the proposed add's, given once


def test_landed_copies_count_at_the_lands_place_and_not_before(notebook):
    _notebook_with_proposals(land=True)
    nb = selectors.get_notebook("zelda")
    assert [(line.n, line.text) for line in selectors.view(nb)] == [
        (1, "Keys open doors, mostly."),
        (3, "A new lesson."),
    ]
    assert len(selectors.view_at_seq(nb, 5)) == 2 and selectors.view_at_seq(nb, 5)[0].text == "Keys open doors."


def test_an_older_reader_of_the_file_sees_only_landed_rows(notebook):
    _notebook_with_proposals()
    lines = list(selectors.export(selectors.get_notebook("zelda")))
    assert all("text" not in json.loads(x) and "to" not in json.loads(x) for x in lines if '"propose"' in x)
    assert older_reader(lines) == {1: "Keys open doors.", 2: "Bombs crack walls."}
    with transaction.atomic():
        nb = locked_notebook("zelda")
        rows = _proposed_rows()
        given = [{**r, "op": "propose", "by": "pippa", "seq": s} for s, r in zip((3, 4, 5), rows, strict=True)]
        append(nb, fold.landed_copies(given))
    lines = list(selectors.export(selectors.get_notebook("zelda")))
    view = {line.n: line.text for line in selectors.view(selectors.get_notebook("zelda"))}
    assert older_reader(lines) == view == {1: "Keys open doors, mostly.", 3: "A new lesson."}


def test_a_file_with_proposals_and_landed_copies_round_trips_and_verifies(notebook):
    _notebook_with_proposals(land=True)
    services.add(notebook="zelda", text="After the land.", source="seen", by="pippa", why="w")
    text = list(selectors.export(selectors.get_notebook("zelda")))
    imports.import_notebook(title="zelda2", lines=[x + "\n" for x in text], by="test")
    copy = selectors.get_notebook("zelda2")
    assert verify.verify_chain(copy) == []
    assert verify.verify_chain(selectors.get_notebook("zelda")) == []
    assert list(selectors.export(copy)) == text
    assert [(line.n, line.text) for line in selectors.view(copy)] == [
        (1, "Keys open doors, mostly."),
        (3, "A new lesson."),
        (4, "After the land."),
    ]


def test_a_landed_copy_must_name_an_unlanded_proposal_of_its_op_and_line(notebook):
    _notebook_with_proposals(land=True)
    text = [json.loads(x) for x in selectors.export(selectors.get_notebook("zelda"))]
    for row in text:
        row.pop("hash"), row.pop("seq")
    text[-1]["lands"] = 4  # the strike of #2 claims to land the edit's proposal
    try:
        imports.import_notebook(title="zelda3", lines=[json.dumps(r) + "\n" for r in text], by="test")
    except Exception as exc:  # noqa: BLE001
        assert "'lands' names seq 4" in str(exc)
    else:
        raise AssertionError("imported a landed copy of another proposal")
