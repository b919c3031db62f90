"""Suggestions from outside (notebooks/similar/suggestions.py): stored append-only, changing no line; every refusal;
pending until Dad decides or a line goes; each decision is the engine group's rows plus his decision with a reason."""

import pytest
from django.db import IntegrityError, connection, transaction

from notebooks.log import services
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid, NotFound
from notebooks.log.views import selectors
from notebooks.models import NotAlike, Suggestion, SuggestionDecision
from notebooks.similar import services as marks
from notebooks.similar import suggestions
from notebooks.similar.suggestion_selectors import pending_for
from tests.agent_helpers import DAD

PIPPA_BY = "pippa"
TEXTS = (
    "the big dinosaur swallows bombs",
    "King Dodongo: throw a bomb into his mouth",
    "Death Defiance saves 50% of the time",
    "Death Defiance saves 10% of the time",
    "remember to buy milk",
)


@pytest.fixture
def game(notebook, dad, pippa):  # noqa: ANN001, ANN201
    """zelda #1-#5: a paraphrased repeat (#1, #2), a conflict (#3, #4), a stray (#5); pippa holds a token."""
    for text in TEXTS:
        services.add(notebook="zelda", text=text, source="seen", by="pippa", why="seen")
    return notebook


def suggest(**given):  # noqa: ANN003, ANN201
    fields = {"notebook": "zelda", "lines": [1, 2], "kind": "repeat", "why": "both are King Dodongo", "by": PIPPA_BY}
    return suggestions.suggest(**{**fields, **given})


def live(nb) -> dict[int, str]:  # noqa: ANN001
    return {x.n: x.text for x in selectors.view(nb)}


def test_a_suggestion_is_stored_and_changes_no_line(game):
    before = (live(game), selectors.head(game).seq)
    done = suggest(lines=[2, 1, 2], words="King Dodongo: throw a bomb into his mouth")
    assert done.already is None and done.mark is None
    s = done.suggestion
    assert (s.lines, s.kind, s.by, s.why, s.keep) == ([1, 2], "repeat", "pippa", "both are King Dodongo", None)
    assert s.words == "King Dodongo: throw a bomb into his mouth" and s.at > 0
    assert (live(game), selectors.head(game).seq) == before
    assert pending_for(game) == [s]


def test_a_line_not_live_is_refused_naming_it(game):
    services.retire(notebook="zelda", n=2, by="pippa", why="gone")
    with pytest.raises(NotFound, match="#2, #9") as refused:
        suggest(lines=[1, 2, 9])
    assert refused.value.status == 404 and refused.value.details["lines"] == [2, 9]
    assert not Suggestion.objects.exists()


def test_an_unknown_name_is_refused_and_a_user_or_token_holder_is_not(game):
    with pytest.raises(Forbidden, match="may not read"):
        suggest(by="stranger")
    assert suggest(by="dad").suggestion.by == "dad"  # a user
    assert suggest(by="pippa", lines=[3, 4], kind="conflict").suggestion.by == "pippa"  # a token's actor
    assert Suggestion.objects.count() == 2


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"kind": "dupe"}, "'kind'"),
        ({"lines": []}, "'lines'"),
        ({"lines": [1]}, "two different lines"),
        ({"lines": [1, 1]}, "two different lines"),
        ({"lines": [0, 1]}, "not a positive"),
        ({"lines": "1,2"}, "'lines'"),
        ({"why": ""}, "reason"),
        ({"why": "x" * 2001}, "reason"),
        ({"keep": 3}, "not one of the suggested lines"),
        ({"kind": "conflict", "lines": [3, 4], "words": "x"}, "only a repeat"),
        ({"kind": "stray", "lines": [5], "keep": 5}, "a stray keeps no line"),
        ({"words": "x" * 100_000}, "words"),
    ],
)
def test_bad_input_is_refused(game, given, said):
    with pytest.raises(Invalid, match=said):
        suggest(**given)
    assert not Suggestion.objects.exists()


def test_a_stray_may_name_one_line(game):
    assert suggest(lines=[5], kind="stray", why="not about the game").suggestion.lines == [5]


def test_the_same_lines_and_kind_pending_answer_the_one_there(game):
    first = suggest().suggestion
    again = suggest(lines=[2, 1], why="another reason")
    assert again.already == "pending" and again.suggestion == first
    assert suggest(kind="conflict").already is None  # another kind is another suggestion
    assert Suggestion.objects.count() == 2


def test_lines_marked_not_alike_answer_the_mark(game):
    mark = marks.mark_not_alike(notebook="zelda", numbers=[1, 2, 5], by=DAD)
    answer = suggest()
    assert answer.already == "not_alike" and answer.mark == mark and answer.suggestion is None
    assert not Suggestion.objects.exists()
    marks.undo_not_alike(notebook="zelda", mark_id=mark.pk, by=DAD)
    assert suggest().already is None  # undone: it may be suggested


def test_past_the_bound_of_pending_429_with_retry_after(game, settings):
    settings.NOTEBOOK_PENDING_SUGGESTIONS = 2
    suggest()
    suggest(lines=[3, 4], kind="conflict")
    with pytest.raises(suggestions.TooManySuggestions) as refused:
        suggest(lines=[5], kind="stray")
    assert refused.value.status == 429 and refused.value.code == "too_many_suggestions"
    assert refused.value.retry_after == 3600 and refused.value.details == {"limit": 2}
    assert suggest().already == "pending"  # what is there is still answered
    services.retire(notebook="zelda", n=4, by="pippa", why="wrong")  # a line gone: that one no longer pends
    assert suggest(lines=[5], kind="stray").already is None


def test_a_suggestion_stops_pending_when_a_line_stops_being_live_not_when_edited(game):
    s = suggest().suggestion
    services.edit(notebook="zelda", n=1, to="Dodongo swallows bombs", by="pippa", why="clearer")
    assert pending_for(game) == [s]
    services.retire(notebook="zelda", n=1, by="pippa", why="gone")
    assert pending_for(game) == []
    with pytest.raises(Conflict, match="no longer live"):
        suggestions.decide(notebook="zelda", suggestion=s.pk, action="dismiss", by=DAD, why="late")


def test_both_tables_are_append_only(game):
    s = suggest().suggestion
    suggestions.decide(notebook="zelda", suggestion=s.pk, action="dismiss", by=DAD, why="fine as they are")
    for table in ("notebooks_suggestion", "notebooks_suggestiondecision"):
        for sql in (f"UPDATE {table} SET by = 'x'", f"DELETE FROM {table}"):
            with pytest.raises(Exception, match="append-only"), transaction.atomic(), connection.cursor() as c:
                c.execute(sql)
    assert Suggestion.objects.count() == 1 and SuggestionDecision.objects.count() == 1


def test_one_decision_per_suggestion(game):
    s = suggest().suggestion
    suggestions.decide(notebook="zelda", suggestion=s.pk, action="dismiss", by=DAD, why="no")
    with pytest.raises(Conflict, match="already decided"):
        suggestions.decide(notebook="zelda", suggestion=s.pk, action="dismiss", by=DAD, why="no")
    with pytest.raises(IntegrityError), transaction.atomic():
        SuggestionDecision.objects.create(suggestion=s, outcome="dismissed", by="dad", why="twice", at=1.0)


# ----- Dad's decisions ------------------------------------------------------------------------------------------


def decided(s: Suggestion) -> tuple[str, str, str]:
    d = SuggestionDecision.objects.get(suggestion=s)
    return d.outcome, d.by, d.why


def test_merge_with_the_suggested_words(game):
    s = suggest(words="King Dodongo: throw a bomb into his mouth").suggestion
    done = suggestions.decide(notebook="zelda", suggestion=s.pk, action="merge", by=DAD, why="one boss", words=s.words)
    assert done.fresh == 6 and live(game)[6] == s.words and 1 not in live(game) and 2 not in live(game)
    assert selectors.history(game, 6)[0].why == "one boss"
    assert decided(s) == ("merged", "dad", "one boss") and pending_for(game) == []


def test_keep_one_retires_the_others_into_it(game):
    s = suggest(lines=[3, 4], kind="conflict", keep=3).suggestion
    suggestions.decide(notebook="zelda", suggestion=s.pk, action="keep", by=DAD, why="it is 50%", keep=3)
    strike = [e for e in selectors.history(game, 4) if e.op == "strike"][0]
    assert (strike.into, strike.why) == (3, "it is 50%") and 3 in live(game)
    assert decided(s) == ("kept", "dad", "it is 50%")


def test_retire_a_stray(game):
    s = suggest(lines=[5], kind="stray", why="not the game").suggestion
    suggestions.decide(notebook="zelda", suggestion=s.pk, action="retire", by=DAD, why="not a lesson")
    assert 5 not in live(game) and decided(s) == ("retired", "dad", "not a lesson")


def test_not_alike_writes_the_mark_and_the_decision(game):
    s = suggest().suggestion
    suggestions.decide(notebook="zelda", suggestion=s.pk, action="not-alike", by=DAD, why="two bosses")
    assert NotAlike.objects.get().lines == [1, 2] and NotAlike.objects.get().why == "two bosses"
    assert decided(s) == ("not_alike", "dad", "two bosses") and suggest().already == "not_alike"


def test_a_line_left_out_stays(game):
    s = suggest(lines=[1, 2, 5]).suggestion
    suggestions.decide(notebook="zelda", suggestion=s.pk, action="merge", by=DAD, why="one", numbers=[1, 2], keep=2)
    assert 5 in live(game) and 1 not in live(game) and decided(s)[0] == "merged"


def test_decisions_are_refused_whole(game):
    s = suggest().suggestion
    with pytest.raises(Forbidden):
        suggestions.decide(notebook="zelda", suggestion=s.pk, action="dismiss", by="pippa", why="mine")
    with pytest.raises(Invalid, match="reason"):
        suggestions.decide(notebook="zelda", suggestion=s.pk, action="dismiss", by=DAD, why="")
    with pytest.raises(Invalid, match="Unknown decision"):
        suggestions.decide(notebook="zelda", suggestion=s.pk, action="eat", by=DAD, why="x")
    with pytest.raises(Invalid, match="whose words"):
        suggestions.decide(notebook="zelda", suggestion=s.pk, action="merge", by=DAD, why="x")
    with pytest.raises(Invalid, match="names only"):
        suggestions.decide(notebook="zelda", suggestion=s.pk, action="merge", by=DAD, why="x", numbers=[1, 3], keep=1)
    with pytest.raises(NotFound):
        suggestions.decide(notebook="zelda", suggestion=s.pk + 99, action="dismiss", by=DAD, why="x")
    assert not SuggestionDecision.objects.exists() and len(live(game)) == 5
