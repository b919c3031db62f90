"""What each landed session brought (sessions/selectors.py): new lines by source, and the lines that stood before it
that it changed; counted in one query however many sessions are asked about."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from notebooks.log import services
from notebooks.sessions import selectors as session_selectors
from notebooks.sessions import services as sessions
from tests.agent_helpers import DAD


def _add(text: str, source: str = "seen", by: str = "pippa") -> int:
    return services.add(notebook="zelda", text=text, source=source, by=by, why="seen in the game").n


def _run(plan: str, *writes, by: str = "pippa") -> int:  # noqa: ANN002
    taken = sessions.take(notebook="zelda", plan=plan, by=by)
    for write in writes:
        write()
    sessions.land(session=taken.id, summary=f"{plan}, done", by=by)
    return taken.id


def test_a_landed_session_counts_its_new_lines_by_source(zelda):
    sid = _run(
        "three lessons",
        lambda: _add("roll after the second swing"),
        lambda: _add("the lava room hides a chest"),
        lambda: _add("maybe the owl lies", source="guessed"),
    )
    brought = session_selectors.brought_by([sid])[sid]
    assert (brought.seen, brought.guessed, brought.dad, brought.changed) == (2, 1, 0, 0)
    assert brought.added == {"seen": 2, "guessed": 1, "dad": 0, "dad_correction": 0}


def test_edits_retirements_and_merges_of_lines_that_stood_before_count_as_changed_once_each(zelda):
    # zelda: #1 seen and #2 guessed are hers, #3 is Dad's; a fourth of hers so a retirement stays under the gate.
    _add("the well is dry by day")

    def merge() -> None:
        services.merge(notebook="zelda", numbers=[1, 4], text="the guard swings twice; the well is dry", by="pippa",
                       why="one lesson")  # fmt: skip

    sid = _run(
        "tidy",
        lambda: services.edit(notebook="zelda", n=2, to="attack after the block", by="pippa", why="seen it now"),
        lambda: services.edit(notebook="zelda", n=2, to="attack only after the block", by="pippa", why="clearer"),
        merge,
    )
    brought = session_selectors.brought_by([sid])[sid]
    # #2 edited twice is one changed line, #1 and #4 merged are two; the merge's new line is no new lesson.
    assert brought.changed == 3
    assert (brought.seen, brought.guessed) == (0, 0)


def test_a_line_added_and_changed_in_the_same_run_is_a_new_line_not_a_change(zelda):
    def add_then_edit() -> None:
        n = _add("the key is under the pot", source="guessed")
        services.edit(notebook="zelda", n=n, to="the key is under the blue pot", by="pippa", why="looked again")

    sid = _run("one lesson", add_then_edit)
    brought = session_selectors.brought_by([sid])[sid]
    assert (brought.guessed, brought.changed) == (1, 0)


def test_a_restore_changes_the_line_it_brings_back(zelda):
    _add("a line to lose")
    services.retire(notebook="zelda", n=4, by="pippa", why="wrong room")
    sid = _run("bring it back", lambda: services.restore(notebook="zelda", n=4, by="pippa", why="it was right"))
    brought = session_selectors.brought_by([sid])[sid]
    assert (brought.seen, brought.changed) == (0, 1)


def test_rows_outside_the_session_and_open_sessions_count_nothing(zelda):
    taken = sessions.take(notebook="zelda", plan="still open", by="pippa")
    _add("hers, in the open session")
    _add("his, outside any session", source="dad", by=DAD)
    brought = session_selectors.brought_by([taken.id])[taken.id]
    assert brought.added == {"seen": 0, "guessed": 0, "dad": 0, "dad_correction": 0} and brought.changed == 0


def test_every_session_asked_about_is_counted_in_one_query(zelda, django_assert_num_queries):
    ids = [_run(f"run {i}", lambda i=i: _add(f"lesson {i}")) for i in range(4)]
    with django_assert_num_queries(1):
        counted = session_selectors.brought_by(ids)
    assert [counted[sid].seen for sid in ids] == [1, 1, 1, 1]


def test_counting_what_they_brought_adds_one_query_however_many_sessions_landed(zelda):
    for i in range(3):
        _run(f"run {i}", lambda i=i: _add(f"lesson {i}"))
    with CaptureQueriesContext(connection) as plain:
        session_selectors.recent(limit=50)
    with CaptureQueriesContext(connection) as counted:
        views = session_selectors.recent(limit=50, brought=True)
    assert len(counted) == len(plain) + 1
    assert [v.brought.seen for v in views] == [1, 1, 1]


def test_landed_runs_are_the_notebooks_lands_in_order_up_to_a_cut(zelda):
    first = _run("first", lambda: _add("lesson one"))
    cut = services.add(notebook="zelda", text="a hint", source="dad", by=DAD, why="hint").seq
    second = _run("second", lambda: _add("lesson two", source="guessed"), lambda: _add("lesson three"))
    runs = session_selectors.landed_runs(zelda.pk, cut=10**9)
    assert [(r.session, r.actor, r.brought.seen, r.brought.guessed) for r in runs] == [
        (first, "pippa", 1, 0),
        (second, "pippa", 1, 1),
    ]
    assert [r.session for r in session_selectors.landed_runs(zelda.pk, cut=cut)] == [first]
    assert [r.session for r in session_selectors.landed_runs(zelda.pk, cut=10**9, limit=1)] == [second]
