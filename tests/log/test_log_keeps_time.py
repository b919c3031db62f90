"""The log keeps time and gives numbers (docs/file-format.md, "Time and numbers").

Three holes an outside writer found through a plain append to a vault file, each refused now: an `adopt` of line
2147483647 that left the next add no number the database could hold; an unsigned `adopt` putting "recovered words by
dad" into Dad's line; a row dated before T that changed the view `--until T` already read. A row appended after a
notebook's head takes the server's time; its writer's is kept as `claimed_at`, shown in history, never in a view.
"""

import json
import time

import pytest

from notebooks.log import services
from notebooks.log.files import imports
from notebooks.log.files.verify import verify_chain
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid
from notebooks.log.views import selectors
from notebooks.models import Row


def _row(op: str = "add", **fields: object) -> str:
    return json.dumps({"op": op, **fields})


def _append(*lines: str) -> imports.Appended:
    return imports.append_rows(notebook="zelda", lines=list(lines), by_default="harness")


# ----- numbers are given by the log -----------------------------------------------------------------------------


def test_an_adopt_of_a_line_that_does_not_exist_is_refused_and_the_notebook_goes_on(zelda):
    adopt = _row("adopt", n=2147483647, was="words from nowhere", why="recovered", at=time.time())
    with pytest.raises(Invalid, match="line 1: adopt of line #2147483647, which does not exist"):
        _append(adopt)
    written = services.add(notebook="zelda", text="the next line", source="seen", by="pippa", why="saw it")
    assert Row.objects.get(notebook=zelda, seq=written.seq).n == 4
    assert verify_chain(zelda) == []


def test_an_adopt_of_the_next_number_is_refused_too(zelda):
    with pytest.raises(Invalid, match="adopt of line #4, which does not exist"):
        _append(_row("adopt", n=4, was="not yet a line", why="recovered"))


def test_after_an_imported_adopt_of_the_last_number_an_add_is_refused_plainly(db):
    first = _row("add", n=1, text="a line", source="seen", by="pippa", at=1.0)
    adopt = _row("adopt", n=2147483647, was="old words", why="recovered", at=2.0)
    nb = imports.import_notebook(title="rewrite", lines=[first, adopt], by="test").notebook
    with pytest.raises(Conflict, match="has given its last line number"):
        services.add(notebook="rewrite", text="one more", source="seen", by="pippa", why="saw it")
    services.edit(notebook="rewrite", n=1, to="still editable", by="pippa", why="fixed")
    assert verify_chain(nb) == []


def test_an_agents_adopt_of_her_own_lines_old_words_is_kept(zelda):
    _append(_row("adopt", n=1, was="the bridge guard swings once", source="seen", why="recovered"))
    adopted = [e for e in selectors.history(zelda, 1) if e.adopted]
    assert [(e.text, e.by) for e in adopted] == [("the bridge guard swings once", "outside")]


# ----- only a proven Dad brings back a Dad source ---------------------------------------------------------------


def test_an_unsigned_adopt_cannot_put_dads_words_into_dads_line(zelda, dad):
    before = selectors.history(zelda, 3)
    adopt = _row("adopt", n=3, was="recovered words", source="dad", was_by="dad", why="recovered", at=time.time())
    with pytest.raises(Forbidden, match="line 1: outside may not recover words of line #3: it is Dad's"):
        _append(adopt)
    assert selectors.history(zelda, 3) == before


def test_an_unsigned_adopt_cannot_claim_dads_source_on_her_line(zelda, dad):
    adopt = _row("adopt", n=1, was="recovered words", source="dad", why="recovered")
    with pytest.raises(Forbidden, match="line 1: outside is an agent and may recover only seen or guessed lines"):
        _append(adopt)


def test_an_unsigned_adopt_cannot_name_dad_as_the_words_author(zelda, dad):
    adopt = _row("adopt", n=1, was="recovered words", source="seen", was_by="dad", why="recovered")
    with pytest.raises(Forbidden, match="line 1: outside is an agent and may not recover words as written by dad"):
        _append(adopt)


@pytest.mark.parametrize("named", ["Dad", "ｄａｄ", "dad."])
def test_an_unsigned_adopt_cannot_name_dad_by_a_look_alike_either(zelda, dad, named):
    adopt = _row("adopt", n=1, was="recovered words", source="seen", was_by=named, why="recovered")
    with pytest.raises(Forbidden, match="line 1: outside is an agent and may not recover words as written by"):
        _append(adopt)
    assert not any(e.adopted for e in selectors.history(zelda, 1))


def test_a_merged_strike_naming_no_line_it_was_merged_into_is_refused(zelda):
    with pytest.raises(Invalid, match='line 1: a strike how "merged" names the line it was merged into'):
        _append(_row("strike", n=2, how="merged", by="pippa", why="merged into nothing"))
    assert selectors.live_line(zelda, 2) is not None


# ----- the log keeps time ---------------------------------------------------------------------------------------


def test_a_row_dated_before_a_view_already_read_leaves_that_view_unchanged(zelda):
    time.sleep(0.05)
    cut = time.time()  # a past time, after the head: its view is read, then a row claims a time before it
    frozen = selectors.view(zelda, until=cut)
    claimed = cut - 0.02
    assert claimed > selectors.head(zelda).at
    _append(_row("add", n=4, text="dated before the cut", source="seen", by="pippa", why="saw it", at=claimed))
    assert selectors.view(zelda, until=cut) == frozen
    row = Row.objects.get(notebook=zelda, n=4)
    assert row.at > cut and row.claimed_at == claimed
    assert [line.text for line in selectors.view(zelda)][-1] == "dated before the cut"


def test_an_appended_row_is_never_dated_before_the_head_and_its_writers_time_is_in_history(zelda):
    head = selectors.head(zelda)
    _append(_row("edit", n=1, to="the guard swings three times", by="pippa", why="counted", at=1.0))
    row = Row.objects.get(notebook=zelda, seq=head.seq + 1)
    assert row.at >= head.at and row.claimed_at == 1.0
    entry = selectors.history(zelda, 1)[-1]
    assert entry.claimed_at == 1.0 and entry.as_dict()["claimed_at"] == 1.0


def test_an_appended_row_without_a_time_has_no_claimed_time(zelda):
    _append(_row("add", n=4, text="no time given", source="seen", by="pippa", why="saw it"))
    assert Row.objects.get(notebook=zelda, n=4).claimed_at is None


def test_an_appended_row_carrying_a_hash_is_refused_with_what_to_do(zelda):
    row = _row("add", n=4, text="with a hash", source="seen", by="pippa", at=time.time(), hash="0" * 64)
    with pytest.raises(Invalid, match="line 1: a row appended to an existing notebook carries no 'hash'"):
        _append(row)


def test_the_claimed_time_is_hashed_exported_and_imported_again(zelda):
    _append(_row("add", n=4, text="from outside", source="seen", by="pippa", why="saw it", at=12.5))
    exported = list(selectors.export(zelda))
    assert json.loads(exported[-1])["claimed_at"] == 12.5
    assert verify_chain(zelda) == []
    again = imports.import_notebook(title="zelda-copy", lines=exported, by="test").notebook
    assert Row.objects.get(notebook=again, n=4).claimed_at == 12.5
    assert selectors.head(again).hash == selectors.head(zelda).hash


def test_a_changed_claimed_time_breaks_the_rows_hash(zelda):
    _append(_row("add", n=4, text="from outside", source="seen", by="pippa", why="saw it", at=12.5))
    exported = [json.loads(line) for line in selectors.export(zelda)]
    exported[-1]["claimed_at"] = 13.5
    with pytest.raises(Invalid, match="'hash' does not match"):
        imports.import_notebook(title="zelda-copy", lines=[json.dumps(r) for r in exported], by="test")


def test_a_file_that_starts_a_notebook_keeps_its_rows_own_times(db):
    lines = [_row("add", n=1, text="old line", source="seen", by="pippa", at=100.0)]
    nb = imports.append_rows(notebook="fresh", lines=lines, by_default="harness").notebook
    row = Row.objects.get(notebook=nb, n=1)
    assert row.at == 100.0 and row.claimed_at is None


def test_rows_appended_to_a_notebook_that_exists_with_no_rows_take_the_logs_time(db):
    empty = services.create_notebook(title="empty", by="pippa")
    time.sleep(0.05)
    cut = time.time()
    assert selectors.view(empty, until=cut) == []
    lines = [_row("add", n=1, text="dated before the cut", source="seen", by="pippa", why="saw it", at=cut - 5000)]
    imports.append_rows(notebook="empty", lines=lines, by_default="harness")
    assert selectors.view(empty, until=cut) == []
    row = Row.objects.get(notebook=empty, n=1)
    assert row.at > cut and row.claimed_at == cut - 5000


def test_a_whole_file_with_hashes_for_a_notebook_that_exists_with_no_rows_is_refused_with_the_operators_door(db):
    services.create_notebook(title="empty", by="pippa")
    row = _row("add", n=1, text="from a backup", source="seen", by="pippa", at=100.0, hash="0" * 64)
    with pytest.raises(
        Invalid, match="line 1: this notebook exists with no rows.*`notebook import FILE --title TITLE`"
    ):
        imports.append_rows(notebook="empty", lines=[row], by_default="harness")


def test_the_guides_chain_checker_accepts_a_row_with_a_claimed_time(zelda):
    from tests.docs.test_docs_file_format import _check

    _append(_row("add", n=4, text="from outside", source="seen", by="pippa", why="saw it", at=12.5))
    exported = list(selectors.export(zelda))
    done = _check(exported)
    assert done.returncode == 0, done.stderr
    changed = [*exported[:-1], exported[-1].replace('"claimed_at": 12.5', '"claimed_at": 13.5')]
    assert "does not chain" in _check(changed).stderr


def test_an_appended_rows_claimed_at_is_checked_as_its_at_is(zelda):
    now = time.time()
    with pytest.raises(Invalid, match="line 1: 'claimed_at'"):
        _append(_row("add", n=4, text="x", source="seen", by="pippa", why="w", at=now, claimed_at=now + 86_400))
    with pytest.raises(Invalid, match="line 1: 'at' and 'claimed_at' differ"):
        _append(_row("add", n=4, text="x", source="seen", by="pippa", why="w", at=now, claimed_at=now - 60))
    _append(_row("add", n=4, text="x", source="seen", by="pippa", why="w", at=now - 60, claimed_at=now - 60))
    assert Row.objects.get(notebook=zelda, n=4).claimed_at == now - 60


def test_a_lone_surrogate_in_an_appended_rows_by_is_named_as_such(zelda):
    with pytest.raises(Invalid, match="line 1: 'by' is not valid Unicode text"):
        _append(_row("strike", n=1, by="pip\udc80pa", why="w"))
