"""Every write and every refusal of notebooks.log.services."""

from types import SimpleNamespace

import pytest
from django.contrib.auth.models import User

from notebooks.log import services
from notebooks.log.identity.roles import Actor
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid, NotFound
from notebooks.log.store import append
from notebooks.log.views import selectors
from notebooks.models import Notebook, Row, Words


def _count() -> tuple[int, int, int]:
    return Row.objects.count(), Words.objects.count(), Notebook.objects.count()


def _rows(title: str = "zelda") -> list[Row]:
    return list(Row.objects.filter(notebook__title=title).order_by("seq"))


def _live(title: str = "zelda") -> dict[int, tuple[str, str]]:
    return {line.n: (line.text, line.source) for line in selectors.view(selectors.get_notebook(title))}


def _refused(error: type, match: str, write, **kwargs) -> None:  # noqa: ANN001
    """The write raises `error` and leaves every table as it was."""
    before = _count()
    with pytest.raises(error, match=match):
        write(**kwargs)
    assert _count() == before


@pytest.fixture
def lines(notebook, dad):
    """#1 seen, #2 guessed (pippa's), #3 dad (Dad's own)."""
    services.add(notebook="zelda", text="the bridge guard swings twice", source="seen", by="pippa", why="seen")
    services.add(notebook="zelda", text="always attack first", source="guessed", by="pippa", why="a hunch")
    services.add(notebook="zelda", text="save before the boss", source="dad", by="dad", why="a rule")
    return notebook


# ----- create_notebook ----------------------------------------------------------------------------


def test_create_notebook_records_its_title_and_creator(db):
    nb = services.create_notebook(title="zelda", by="dad")
    assert (nb.title, nb.created_by) == ("zelda", "dad")
    assert selectors.view(nb) == []


def test_create_notebook_refuses_a_title_taken_already(notebook):
    _refused(Conflict, "already exists", services.create_notebook, title="zelda", by="dad")


@pytest.mark.parametrize("title", ["", " zelda", "zelda ", "zelda\n", "a/b", "x" * 81, None])
def test_create_notebook_refuses_a_bad_title(db, title):
    _refused(Invalid, "title", services.create_notebook, title=title, by="dad")


# ----- add ----------------------------------------------------------------------------------------


def test_add_returns_the_next_number_and_writes_an_add_row(notebook):
    first = services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="w")
    second = services.add(notebook="zelda", text="the key is under the pot", source="guessed", by="pippa", why="w")
    assert (first.n, first.seq, second.n, second.seq) == (1, 1, 2, 2)
    row = _rows()[1]
    assert (row.op, row.n, row.source, row.by, row.why) == ("add", 2, "guessed", "pippa", "w")
    assert _live() == {1: ("roll after the second swing", "seen"), 2: ("the key is under the pot", "guessed")}


def test_a_number_is_never_reused_after_a_retirement(lines):
    services.retire(notebook="zelda", n=2, by="pippa", why="wrong")
    assert services.add(notebook="zelda", text="new", source="seen", by="pippa", why="w").n == 4


def test_a_number_after_a_merge_is_one_more_than_the_highest(lines, dad):
    merged = services.merge(notebook="zelda", numbers=[1, 2], text="one", by="dad", why="same")
    assert merged.n == 4
    assert services.add(notebook="zelda", text="next", source="seen", by="pippa", why="w").n == 5


def test_numbers_are_counted_per_notebook(notebook):
    services.create_notebook(title="mario", by="dad")
    services.add(notebook="zelda", text="a", source="seen", by="pippa", why="w")
    assert services.add(notebook="mario", text="b", source="seen", by="pippa", why="w").n == 1


def test_the_editor_may_add_dad_and_dad_correction_lines(notebook, dad):
    services.add(notebook="zelda", text="a rule", source="dad", by="dad", why="w")
    services.add(notebook="zelda", text="a fix", source="dad_correction", by="dad", why="w")
    assert _live() == {1: ("a rule", "dad"), 2: ("a fix", "dad_correction")}


@pytest.mark.parametrize("source", ["dad", "dad_correction"])
def test_an_agent_may_not_add_dads_sources(notebook, source):
    _refused(Forbidden, "agent", services.add, notebook="zelda", text="t", source=source, by="pippa", why="w")


def test_dad_without_the_editor_role_is_an_agent(notebook):
    """Who is the editor is recorded, not guessed from a name."""
    User.objects.create_user("dad")
    _refused(Forbidden, "agent", services.add, notebook="zelda", text="t", source="dad", by="dad", why="w")


def test_a_superuser_is_an_editor(notebook):
    User.objects.create_superuser("mum", password="a-long-test-password")
    assert services.add(notebook="zelda", text="t", source="dad", by="mum", why="w").n == 1


def test_an_inactive_editor_is_an_agent(notebook, dad):
    dad.is_active = False
    dad.save()
    _refused(Forbidden, "agent", services.add, notebook="zelda", text="t", source="dad", by="dad", why="w")


@pytest.mark.parametrize("text", ["", "   ", "\n\t", None, 17])
def test_add_refuses_empty_words(notebook, text):
    _refused(Invalid, "empty", services.add, notebook="zelda", text=text, source="seen", by="pippa", why="w")


@pytest.mark.parametrize("why", ["", "  ", None])
def test_add_refuses_an_empty_reason(notebook, why):
    _refused(Invalid, "reason", services.add, notebook="zelda", text="t", source="seen", by="pippa", why=why)


def test_add_refuses_words_over_the_limit(notebook, settings):
    settings.NOTEBOOK_MAX_WORDS = 10
    _refused(Invalid, "limit is 10", services.add, notebook="zelda", text="x" * 11, source="seen", by="p", why="w")
    assert services.add(notebook="zelda", text="x" * 10, source="seen", by="pippa", why="w").n == 1


def test_add_refuses_a_reason_over_the_limit(notebook, settings):
    settings.NOTEBOOK_MAX_REASON = 5
    _refused(Invalid, "limit is 5", services.add, notebook="zelda", text="t", source="seen", by="p", why="123456")


def test_add_refuses_an_unknown_source(notebook):
    _refused(Invalid, "Unknown source", services.add, notebook="zelda", text="t", source="heard", by="p", why="w")


@pytest.mark.parametrize("words", ["a\x00b", "\ud800"])
def test_add_refuses_words_no_database_can_store(notebook, words):
    _refused(Invalid, "NUL|Unicode", services.add, notebook="zelda", text=words, source="seen", by="p", why="w")


@pytest.mark.parametrize("by", ["", "  ", "p" * 81, "pip\npa", None])
def test_a_write_refuses_a_bad_actor_name(notebook, by):
    _refused(Invalid, "actor", services.add, notebook="zelda", text="t", source="seen", by=by, why="w")


def test_an_actor_object_is_checked_too(notebook):
    _refused(Invalid, "actor", services.add, notebook="zelda", text="t", source="seen", by=Actor(""), why="w")


def test_a_write_never_creates_a_notebook(notebook):
    _refused(NotFound, "Did you mean 'zelda'", services.add, notebook="zelds", text="t", source="seen", by="p", why="w")
    assert not Notebook.objects.filter(title="zelds").exists()


@pytest.mark.parametrize(
    "write, kwargs",
    [
        (services.edit, {"n": 1, "to": "t"}),
        (services.retire, {"n": 1}),
        (services.merge, {"numbers": [1, 2], "text": "t"}),
    ],
)
def test_every_write_refuses_an_unknown_notebook(lines, write, kwargs):
    _refused(NotFound, "No notebook", write, notebook="Zelda", by="dad", why="w", **kwargs)


# ----- edit ---------------------------------------------------------------------------------------


def test_an_agents_edit_keeps_the_number_and_the_source(lines):
    written = services.edit(notebook="zelda", n=2, to="block first", by="pippa", why="died")
    assert (written.n, written.seq) == (2, 4)
    row = _rows()[-1]
    assert (row.op, row.n, row.source, row.by, row.why) == ("edit", 2, "guessed", "pippa", "died")
    assert _live()[2] == ("block first", "guessed")


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_editors_edit_makes_a_dad_correction(lines, n):
    services.edit(notebook="zelda", n=n, to="block first, then attack", by="dad", why="it got her killed")
    assert _live()[n] == ("block first, then attack", "dad_correction")


def test_an_agent_may_still_edit_a_line_after_an_agents_edit(lines):
    services.edit(notebook="zelda", n=1, to="swings twice, then rests", by="reflector", why="seen again")
    services.edit(notebook="zelda", n=1, to="swings twice", by="pippa", why="simpler")
    assert _live()[1] == ("swings twice", "seen")


def test_an_agent_may_not_edit_a_line_of_dads(lines):
    _refused(Forbidden, "Dad's", services.edit, notebook="zelda", n=3, to="t", by="pippa", why="w")


def test_an_agent_may_not_edit_a_line_dad_corrected(lines):
    services.edit(notebook="zelda", n=1, to="his words", by="dad", why="w")
    _refused(Forbidden, "dad_correction", services.edit, notebook="zelda", n=1, to="t", by="pippa", why="w")


def test_edit_refuses_a_line_that_does_not_exist(lines):
    _refused(NotFound, "no line #9", services.edit, notebook="zelda", n=9, to="t", by="dad", why="w")


def test_edit_refuses_a_retired_line(lines):
    services.retire(notebook="zelda", n=1, by="dad", why="w")
    _refused(Conflict, "already retired", services.edit, notebook="zelda", n=1, to="t", by="dad", why="w")


@pytest.mark.parametrize("n", [0, -1, "1", 1.0, True, None, 2**31, 10**30])
def test_edit_refuses_a_number_that_is_not_a_line_number(lines, n):
    _refused(Invalid, "line number", services.edit, notebook="zelda", n=n, to="t", by="dad", why="w")


def test_edit_refuses_empty_words_and_an_empty_reason(lines):
    _refused(Invalid, "empty", services.edit, notebook="zelda", n=1, to=" ", by="dad", why="w")
    _refused(Invalid, "reason", services.edit, notebook="zelda", n=1, to="t", by="dad", why="")


def test_edit_refuses_words_over_the_limit(lines, settings):
    settings.NOTEBOOK_MAX_WORDS = 3
    _refused(Invalid, "limit", services.edit, notebook="zelda", n=1, to="abcd", by="dad", why="w")


def test_edit_refuses_the_same_words(lines):
    _refused(Invalid, "already says", services.edit, notebook="zelda", n=2, to="always attack first", by="p", why="w")


def test_edit_with_the_current_seq_as_expected_is_written(lines):
    services.edit(notebook="zelda", n=2, to="first", by="pippa", why="w", expected=2)
    assert _live()[2] == ("first", "guessed")


def test_a_stale_edit_is_refused_with_the_current_words(lines):
    services.edit(notebook="zelda", n=2, to="block first", by="dad", why="w")  # seq 4
    before = _count()
    with pytest.raises(Conflict) as caught:
        services.edit(notebook="zelda", n=2, to="attack", by="dad", why="w", expected=2)
    assert _count() == before
    assert caught.value.details == {"current": "block first", "current_seq": 4}
    assert caught.value.as_dict()["code"] == "conflict"
    services.edit(notebook="zelda", n=2, to="attack", by="dad", why="w", expected=4)


def test_a_stale_retire_is_refused(lines):
    services.edit(notebook="zelda", n=1, to="x", by="pippa", why="w")
    _refused(Conflict, "changed since", services.retire, notebook="zelda", n=1, by="pippa", why="w", expected=1)


# ----- retire -------------------------------------------------------------------------------------


def test_retire_writes_a_strike_row_and_takes_the_line_out_of_view(lines):
    written = services.retire(notebook="zelda", n=1, by="pippa", why="wrong")
    row = _rows()[-1]
    assert (written.n, row.op, row.n, row.how, row.into, row.by, row.why) == (
        1,
        "strike",
        1,
        "retired",
        None,
        "pippa",
        "wrong",
    )
    assert sorted(_live()) == [2, 3]


def test_retire_into_another_line_records_it(lines):
    services.retire(notebook="zelda", n=2, by="pippa", why="says the same", into=1)
    row = _rows()[-1]
    assert (row.how, row.into) == ("retired", 1)


def test_an_agent_may_retire_into_a_line_of_dads(lines):
    services.retire(notebook="zelda", n=2, by="pippa", why="he says it", into=3)
    assert sorted(_live()) == [1, 3]


def test_retire_refuses_a_line_that_does_not_exist(lines):
    _refused(NotFound, "no line #4", services.retire, notebook="zelda", n=4, by="dad", why="w")


def test_retire_refuses_a_line_already_retired(lines):
    services.retire(notebook="zelda", n=1, by="dad", why="w")
    _refused(Conflict, "already retired", services.retire, notebook="zelda", n=1, by="dad", why="w")


def test_retire_refuses_an_empty_reason(lines):
    _refused(Invalid, "reason", services.retire, notebook="zelda", n=1, by="dad", why="")


def test_retire_refuses_into_itself(lines):
    _refused(Invalid, "into itself", services.retire, notebook="zelda", n=1, by="dad", why="w", into=1)


def test_retire_refuses_into_a_retired_line(lines):
    services.retire(notebook="zelda", n=2, by="dad", why="w")
    _refused(Invalid, "#2 is retired", services.retire, notebook="zelda", n=1, by="dad", why="w", into=2)


def test_retire_refuses_into_a_line_that_does_not_exist(lines):
    _refused(NotFound, "no line #7", services.retire, notebook="zelda", n=1, by="dad", why="w", into=7)


@pytest.mark.parametrize("into", [0, "2", 2**40])
def test_retire_refuses_into_a_bad_number(lines, into):
    _refused(Invalid, "'into'", services.retire, notebook="zelda", n=1, by="dad", why="w", into=into)


def test_an_agent_may_not_retire_a_line_of_dads(lines):
    _refused(Forbidden, "Dad's", services.retire, notebook="zelda", n=3, by="reflector", why="w")


def test_the_editor_may_retire_any_line(lines):
    for n in (1, 2, 3):
        services.retire(notebook="zelda", n=n, by="dad", why="not about the game")
    assert _live() == {}


# ----- merge --------------------------------------------------------------------------------------


def test_merge_adds_one_line_and_strikes_the_old_ones_into_it(lines):
    written = services.merge(notebook="zelda", numbers=[1, 2], text="one for two", by="pippa", why="same thing")
    assert (written.n, written.seqs) == (4, (4, 5, 6))
    new, *strikes = _rows()[3:]
    assert (new.op, new.n, new.source, new.by) == ("add", 4, "seen", "pippa")
    assert [(r.op, r.n, r.how, r.into, r.why) for r in strikes] == [
        ("strike", 1, "merged", 4, "same thing"),
        ("strike", 2, "merged", 4, "same thing"),
    ]
    assert _live() == {3: ("save before the boss", "dad"), 4: ("one for two", "seen")}


def test_an_agents_merge_of_guesses_is_a_guess(lines):
    services.add(notebook="zelda", text="another guess", source="guessed", by="pippa", why="w")
    assert services.merge(notebook="zelda", numbers=[2, 4], text="t", by="pippa", why="w").n == 5
    assert _live()[5] == ("t", "guessed")


def test_the_editors_merge_of_his_own_lines_stays_dad(lines):
    services.add(notebook="zelda", text="another rule", source="dad", by="dad", why="w")
    services.merge(notebook="zelda", numbers=[3, 4], text="both rules", by="dad", why="w")
    assert _live()[5] == ("both rules", "dad")


def test_the_editors_merge_of_her_lines_is_a_dad_correction(lines):
    services.merge(notebook="zelda", numbers=[1, 2], text="his words", by="dad", why="w")
    assert _live()[4] == ("his words", "dad_correction")


def test_an_agent_may_not_merge_a_line_of_dads(lines):
    _refused(Forbidden, "Dad's", services.merge, notebook="zelda", numbers=[1, 3], text="t", by="pippa", why="w")


def test_an_agent_may_not_give_a_merge_dads_source(lines):
    kwargs = {"notebook": "zelda", "numbers": [1, 2], "text": "t", "by": "pippa", "why": "w", "source": "dad"}
    _refused(Forbidden, "agent", services.merge, **kwargs)


@pytest.mark.parametrize("numbers", [[], [1], [1, 1], (2,)])
def test_merge_refuses_fewer_than_two_lines(lines, numbers):
    _refused(Invalid, "at least two", services.merge, notebook="zelda", numbers=numbers, text="t", by="dad", why="w")


def test_merge_refuses_a_line_named_twice(lines):
    _refused(Invalid, "once", services.merge, notebook="zelda", numbers=[1, 2, 1], text="t", by="dad", why="w")


def test_merge_is_all_or_nothing_when_one_line_is_retired(lines):
    services.retire(notebook="zelda", n=2, by="dad", why="w")
    _refused(
        Conflict, "#2 is already retired", services.merge, notebook="zelda", numbers=[1, 2], text="t", by="dad", why="w"
    )


def test_merge_is_all_or_nothing_when_one_line_does_not_exist(lines):
    _refused(NotFound, "no line #9", services.merge, notebook="zelda", numbers=[1, 9], text="t", by="dad", why="w")


def test_merge_refuses_empty_words_an_empty_reason_and_long_words(lines, settings):
    _refused(Invalid, "empty", services.merge, notebook="zelda", numbers=[1, 2], text="", by="dad", why="w")
    _refused(Invalid, "reason", services.merge, notebook="zelda", numbers=[1, 2], text="t", by="dad", why=" ")
    settings.NOTEBOOK_MAX_WORDS = 2
    _refused(Invalid, "limit", services.merge, notebook="zelda", numbers=[1, 2], text="abc", by="dad", why="w")


# ----- the log itself -----------------------------------------------------------------------------


def test_at_never_goes_backwards_even_when_the_clock_does(notebook, monkeypatch):
    times = iter([1000.0, 900.0, 1100.0])
    monkeypatch.setattr(append, "time", SimpleNamespace(time=lambda: next(times)))
    for text in ("a", "b", "c"):
        services.add(notebook="zelda", text=text, source="seen", by="pippa", why="w")
    assert [r.at for r in _rows()] == [1000.0, 1000.0, 1100.0]


def test_every_row_chains_to_the_one_before(lines):
    rows = _rows()
    assert [r.seq for r in rows] == [1, 2, 3]
    assert rows[0].prev_hash == "0" * 64
    assert [r.prev_hash for r in rows[1:]] == [r.hash for r in rows[:-1]]


def test_words_are_kept_once_per_notebook(notebook):
    services.add(notebook="zelda", text="same", source="seen", by="pippa", why="w")
    services.add(notebook="zelda", text="same", source="guessed", by="pippa", why="w")
    assert Words.objects.filter(body="same").count() == 1
    assert _live() == {1: ("same", "seen"), 2: ("same", "guessed")}


def test_undo_merge_restores_every_merged_line_and_retires_the_merged_one_for_one_reason(lines):
    before = _live()
    merged = services.merge(notebook="zelda", numbers=[1, 2], text=before[1][0], by="dad", why="one")
    undone = services.undo_merge(notebook="zelda", n=merged.n, by="dad", why="they were two lessons")
    assert undone.restored == {1: merged.n + 1, 2: merged.n + 2} and len(undone.seqs) == 3
    # Each merged line's words and source are back under its new number; the merged line is gone.
    assert _live() == {**{k: v for k, v in before.items() if k > 2}, merged.n + 1: before[1], merged.n + 2: before[2]}
    assert [e.why for e in selectors.history(lines, merged.n)][-1] == "they were two lessons"
    assert [(e.op, e.into, e.why) for e in selectors.history(lines, 5)][0] == ("add", 1, "they were two lessons")
    with pytest.raises(Conflict):  # undone once: the merged line is retired
        services.undo_merge(notebook="zelda", n=merged.n, by="dad", why="again")
    with pytest.raises(Invalid):  # not a merge's line
        services.undo_merge(notebook="zelda", n=3, by="dad", why="no")


def test_undo_merge_is_all_or_nothing_when_a_merged_line_was_restored_already(lines):
    merged = services.merge(notebook="zelda", numbers=[1, 2], text="both", by="dad", why="one")
    services.restore(notebook="zelda", n=2, by="dad", why="back")
    head = selectors.head(lines).seq
    with pytest.raises(Conflict, match="already restored"):
        services.undo_merge(notebook="zelda", n=merged.n, by="dad", why="undo")
    assert selectors.head(lines).seq == head


@pytest.mark.django_db
def test_an_edit_of_a_missing_notebook_is_not_found_before_its_line_number_is_judged():
    with pytest.raises(NotFound):
        services.edit(notebook="no-such", n="x", to="words", by="pippa", why="why")
