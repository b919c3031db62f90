"""The Similar view's bounds: the engine compares at most the newest NOTEBOOK_SIMILAR_LINES lines and
NOTEBOOK_SIMILAR_CHARACTERS characters, the page says when it stopped short, draws the best GROUPS_SHOWN groups, and
a notebook of one line written hundreds of times answers 200, not scikit-learn's ValueError."""

import io
import json

import pytest
from django.core.management import call_command

from notebooks.card import similar as card_similar
from notebooks.log import services
from notebooks.log.files import imports
from notebooks.log.views import kept, selectors
from notebooks.similar import engine
from notebooks.similar import selectors as similar
from tests.card_helpers import LEFT, RIGHT, SHIELD, SHIELD_TOO, add_messy


@pytest.fixture(autouse=True)
def _fresh():  # noqa: ANN202
    kept.forget()
    similar.forget()
    yield
    kept.forget()
    similar.forget()


@pytest.fixture
def compared(monkeypatch):  # noqa: ANN001, ANN201
    """The texts each computation of pairs was given: the engine's work, counted."""
    calls: list[list[str]] = []
    real = engine.tfidf_pairs

    def counting(texts):  # noqa: ANN001, ANN202
        calls.append(list(texts))
        return real(texts)

    monkeypatch.setattr(engine, "tfidf_pairs", counting)
    return calls


@pytest.fixture
def messy(notebook, dad):  # noqa: ANN001, ANN201
    """#1 and #3 say one thing, #2 stands alone, #4 and #5 contradict."""
    add_messy()
    return notebook


def test_over_the_line_budget_the_page_answers_with_what_it_compared_and_says_it_stopped(
    settings, editor_client, messy, compared
):
    settings.NOTEBOOK_SIMILAR_LINES = 3
    answer = editor_client.get("/notebooks/zelda/?show=similar")
    assert answer.status_code == 200
    html = answer.content.decode()
    assert 'id="similar-cut"' in html and "Compared only the 3 newest of 5 lines" in html
    assert "stops at 3 lines or 500,000 characters" in html
    assert [len(texts) for texts in compared] == [3]  # one computation, of the 3 newest lines only
    assert set(compared[0]) == {SHIELD_TOO, LEFT, RIGHT}
    assert 'id="group-4-5"' in html and 'id="group-1-3"' not in html  # #1 is older than the budget reaches


def test_over_the_character_budget_it_stops_before_the_line_that_does_not_fit(settings, messy, compared):
    settings.NOTEBOOK_SIMILAR_CHARACTERS = len(RIGHT) + len(LEFT) + len(SHIELD_TOO) - 1
    found = similar.compared_for(messy)
    assert (found.lines, found.of, found.cut) == (2, 5, True)
    assert found.characters == len(RIGHT) + len(LEFT)
    assert [g.lines for g in similar.groups_for(messy)] == [(4, 5)]
    assert [sorted(texts) for texts in compared] == [sorted([LEFT, RIGHT])]


def test_within_the_budget_nothing_is_said_and_every_line_is_compared(editor_client, messy, compared):
    html = editor_client.get("/notebooks/zelda/?show=similar").content.decode()
    assert 'id="similar-cut"' not in html and 'id="similar-more"' not in html
    assert 'id="group-1-3"' in html and 'id="group-4-5"' in html
    assert [len(texts) for texts in compared] == [5]  # the groups and their "also close" share one computation


def test_the_page_draws_the_best_groups_and_says_how_many_there_are(monkeypatch, editor_client, messy):
    monkeypatch.setattr(card_similar, "GROUPS_SHOWN", 1)
    html = editor_client.get("/notebooks/zelda/?show=similar").content.decode()
    assert html.count('class="similar-group ') == 1
    assert "The 1 best of 2 groups are shown" in html and "Similar lines: 2 groups" in html


def test_also_close_read_from_each_lines_pairs_is_what_every_pair_gives(messy):
    pairs = engine.line_pairs([(x.n, x.text, x.source) for x in selectors.view(messy)])
    for group in similar.groups_for(messy):
        for members in (group.lines, (1,), (2, 4)):
            assert similar.also_close_for(messy, members) == engine.also_close(pairs, members)


def _one_line_many_times(title: str, count: int) -> None:
    rows = [
        json.dumps({"op": "add", "n": n, "text": "Roll after the second swing.", "source": "seen", "by": "pippa",
                    "at": 1.7e9 + n})
        for n in range(1, count + 1)
    ]  # fmt: skip
    imports.import_notebook(title=title, lines=rows, by="test")


def test_one_line_written_more_often_than_common_answers_200_not_500(db, dad, editor_client, pippa):
    _one_line_many_times("echo", engine.COMMON + 100)
    answer = editor_client.get("/notebooks/echo/?show=similar")
    assert answer.status_code == 200 and "Similar lines" in answer.content.decode()
    added = pippa.post("/api/notebooks/echo/lines", {"text": "Roll after the second swing.", "source": "seen",
                                                     "why": "again"})  # fmt: skip
    assert added.status_code == 201 and added.json()["similar"]


def test_the_cli_says_it_stopped_short_and_all_compares_every_line(settings, messy, compared):
    settings.NOTEBOOK_SIMILAR_LINES = 3
    out, err = io.StringIO(), io.StringIO()
    call_command("notebook", "similar", "zelda", "--json", stdout=out, stderr=err)
    data = json.loads(out.getvalue())
    assert (data["compared"], data["of"]) == (3, 5) and "Compared only the 3 newest of 5 lines" in err.getvalue()
    assert "--all compares every line" in err.getvalue()
    out, err = io.StringIO(), io.StringIO()
    call_command("notebook", "similar", "zelda", "--json", "--all", stdout=out, stderr=err)
    assert set(json.loads(out.getvalue())) == {"groups"} and err.getvalue() == ""
    assert [len(texts) for texts in compared] == [3, 5]


def test_the_nearest_lines_to_an_add_are_looked_for_among_the_budgeted_lines(settings, messy):
    settings.NOTEBOOK_SIMILAR_LINES = 3
    assert 1 not in [x["n"] for x in similar.nearest_for(messy, SHIELD)]  # #1 is past the budget
    assert 3 in [x["n"] for x in similar.nearest_for(messy, SHIELD)]
    n = services.add(notebook="zelda", text=SHIELD, source="seen", by="pippa", why="again").n
    assert n in [x["n"] for x in similar.nearest_for(messy, SHIELD)]  # a line written since is looked among


def test_lines_without_a_word_liken_nothing_and_answer_200(notebook, dad, editor_client, pippa):
    """An add of "!!!" to a notebook with no word in it answered 500: scikit-learn refuses an empty vocabulary."""
    for text in ("!!!", "???"):
        added = pippa.post("/api/notebooks/zelda/lines", {"text": text, "source": "seen", "why": "a mark"})
        assert added.status_code == 201 and added.json()["similar"] == []
    assert editor_client.get("/notebooks/zelda/?show=similar").status_code == 200
    assert similar.groups_for(notebook) == [] and engine.nearest([(1, "!!!", "seen")], "???") == []
