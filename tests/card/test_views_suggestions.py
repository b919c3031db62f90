"""Suggestions from outside in the card's Similar view: shown first, headed by who suggested them and why, each
decided with the engine group's decisions (and Retire or Keep for a stray); every decision is rows with Dad's reason,
with or without htmx."""

import re

import pytest

from notebooks.log import services
from notebooks.log.views import selectors
from notebooks.models import NotAlike, Notebook, SuggestionDecision
from notebooks.similar import suggestions

BOSS = "the big dinosaur swallows bombs"
BOSS_TOO = "King Dodongo: throw a bomb into his mouth"
FIFTY = "Death Defiance saves 50% of the time"
TEN = "Death Defiance saves 10% of the time"
MILK = "remember to buy milk"
PAGE = "/notebooks/zelda/?show=similar"


@pytest.fixture
def suggested(notebook, dad, pippa):  # noqa: ANN001, ANN201
    """zelda #1-#5 and three suggestions of pippa's: a repeat (#1, #2) with words, a conflict (#3, #4) keeping #3,
    a stray (#5)."""
    for text in (BOSS, BOSS_TOO, FIFTY, TEN, MILK):
        services.add(notebook="zelda", text=text, source="seen", by="pippa", why="seen")
    made = [
        suggestions.suggest(notebook="zelda", lines=[1, 2], kind="repeat", words=BOSS_TOO, why="one boss", by="pippa"),
        suggestions.suggest(notebook="zelda", lines=[3, 4], kind="conflict", keep=3, why="wiki: 50%", by="pippa"),
        suggestions.suggest(notebook="zelda", lines=[5], kind="stray", why="not the game", by="pippa"),
    ]
    return [m.suggestion for m in made]


def _live(nb: Notebook) -> dict[int, tuple[str, str]]:
    return {x.n: (x.text, x.source) for x in selectors.view(nb)}


def _section(html: str, pk: int) -> str:
    start = html.index(f'id="suggestion-{pk}"')
    return html[start : html.index("</section>", start)]


def test_the_view_shows_pending_suggestions_first_with_who_and_why(editor_client, suggested):
    repeat, conflict, stray = suggested
    html = editor_client.get(PAGE).content.decode()
    assert html.index('id="suggestions"') < html.index("similar-group kind-")  # before the engine's groups
    one = _section(html, repeat.pk)
    assert "Say one thing?" in one and "Suggested by pippa · " in one and "<q>one boss</q>" in one
    assert BOSS in one and BOSS_TOO in one and MILK not in one
    assert f">{BOSS_TOO}</textarea>" in one and '<details class="new-words" open>' in one  # the words pre-filled
    assert ">Merge</button>" in one and ">Not alike</button>" in one
    two = _section(html, conflict.pk)
    assert "Contradict each other?" in two and 'value="3" aria-label="Keep #3" checked' in two
    assert "suggested to keep" in two and "retire the others into it</button>" in two
    three = _section(html, stray.pk)
    assert "Not about the game?" in three and ">Retire</button>" in three and "not a stray</button>" in three


def test_a_decided_or_stale_suggestion_is_no_longer_shown(editor_client, suggested):
    repeat, conflict, _ = suggested
    suggestions.decide(notebook="zelda", suggestion=repeat.pk, action="dismiss", by="dad", why="later")
    services.retire(notebook="zelda", n=4, by="pippa", why="wrong")
    html = editor_client.get(PAGE).content.decode()
    assert f'id="suggestion-{repeat.pk}"' not in html and f'id="suggestion-{conflict.pk}"' not in html
    assert "Suggested: 1 waiting" in html


def test_merge_with_the_suggested_words_without_javascript(editor_client, suggested):
    repeat = suggested[0]
    answer = editor_client.post(f"/notebooks/zelda/suggestions/{repeat.pk}/", {
        "n": ["1", "2"], "keep": "1", "words": BOSS_TOO, "reason": "one boss", "action": "merge"})  # fmt: skip
    assert answer.status_code == 302 and "show=similar" in answer["Location"]
    live = _live(suggested[0].notebook)
    assert 1 not in live and 2 not in live and live[6] == (BOSS_TOO, "seen")  # her words kept: hers
    assert selectors.history(repeat.notebook, 6)[0].why == "one boss"
    decision = SuggestionDecision.objects.get(suggestion=repeat)
    assert (decision.outcome, decision.by, decision.why) == ("merged", "dad", "one boss")


def test_keep_the_suggested_line_with_htmx(editor_client, suggested):
    conflict = suggested[1]
    answer = editor_client.post(
        f"/notebooks/zelda/suggestions/{conflict.pk}/",
        {"n": ["3", "4"], "keep": "3", "reason": "it is 50%", "action": "keep", "show": "similar"},
        HTTP_HX_REQUEST="true",
    )
    html = answer.content.decode()
    assert answer.status_code == 200 and "Kept #3; retired #4 into it." in html
    assert f'id="suggestion-{conflict.pk}"' not in html and f'id="suggestion-{suggested[0].pk}"' in html
    assert 'id="summary"' in html and "hx-swap-oob" in html
    strike = [e for e in selectors.history(conflict.notebook, 4) if e.op == "strike"][0]
    assert (strike.into, strike.why) == (3, "it is 50%")
    assert SuggestionDecision.objects.get(suggestion=conflict).outcome == "kept"


def test_retire_a_stray_and_keep_one(editor_client, suggested):
    stray = suggested[2]
    editor_client.post(f"/notebooks/zelda/suggestions/{stray.pk}/", {"n": ["5"], "reason": "not a lesson",
                                                                     "action": "retire"})  # fmt: skip
    assert 5 not in _live(stray.notebook)
    decision = SuggestionDecision.objects.get(suggestion=stray)
    assert (decision.outcome, decision.why) == ("retired", "not a lesson")


def test_dismiss_a_stray_changes_no_line(editor_client, suggested):
    stray = suggested[2]
    head = selectors.head(stray.notebook).seq
    editor_client.post(f"/notebooks/zelda/suggestions/{stray.pk}/", {"n": ["5"], "reason": "a real lesson",
                                                                     "action": "dismiss"})  # fmt: skip
    assert selectors.head(stray.notebook).seq == head and 5 in _live(stray.notebook)
    assert SuggestionDecision.objects.get(suggestion=stray).outcome == "dismissed"


def test_not_alike_marks_them_and_records_the_decision(editor_client, suggested):
    repeat = suggested[0]
    editor_client.post(f"/notebooks/zelda/suggestions/{repeat.pk}/", {"n": ["1", "2"], "reason": "two bosses",
                                                                      "action": "not-alike"})  # fmt: skip
    assert NotAlike.objects.get().lines == [1, 2]
    decision = SuggestionDecision.objects.get(suggestion=repeat)
    assert (decision.outcome, decision.why) == ("not_alike", "two bosses")


def test_a_decision_without_a_reason_is_refused_in_place_with_the_draft(editor_client, suggested):
    repeat = suggested[0]
    answer = editor_client.post(
        f"/notebooks/zelda/suggestions/{repeat.pk}/",
        {"n": ["1", "2"], "keep": "2", "words": "my draft", "action": "merge"},
        HTTP_HX_REQUEST="true",
    )
    html = answer.content.decode()
    assert answer.status_code == 422 and "A reason is required" in html and "my draft</textarea>" in html
    assert answer["HX-Retarget"] == f"#suggestion-{repeat.pk}" and 'value="2" aria-label="Keep #2" checked' in html
    assert not SuggestionDecision.objects.exists() and 1 in _live(repeat.notebook)


def test_a_suggestion_decided_already_is_said_not_done_twice(editor_client, suggested):
    repeat = suggested[0]
    suggestions.decide(notebook="zelda", suggestion=repeat.pk, action="dismiss", by="dad", why="no")
    answer = editor_client.post(
        f"/notebooks/zelda/suggestions/{repeat.pk}/",
        {"n": ["1", "2"], "keep": "1", "reason": "yes", "action": "merge"},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 409 and "already decided" in answer.content.decode()
    assert SuggestionDecision.objects.count() == 1 and 1 in _live(repeat.notebook)


def test_someone_who_is_not_the_editor_reads_but_cannot_decide(client, suggested, django_user_model):
    client.force_login(django_user_model.objects.create_user("viewer", password="x" * 20))
    repeat = suggested[0]
    answer = client.post(f"/notebooks/zelda/suggestions/{repeat.pk}/", {"n": ["1", "2"], "keep": "1",
                                                                        "reason": "r", "action": "merge"})  # fmt: skip
    assert answer.status_code == 403 and not SuggestionDecision.objects.exists()
    html = client.get(PAGE).content.decode()
    assert f'id="suggestion-{repeat.pk}"' in html and "Suggested by pippa" in _section(html, repeat.pk)
    assert "<form" not in _section(html, repeat.pk)


def _reason_field(html: str, pk: int) -> str:
    return re.search(rf'<input[^>]*id="suggestion-reason-{pk}"[^>]*>', html).group(0)


def _carry_box(html: str, pk: int) -> str:
    return re.search(r'<input type="checkbox" name="carry"[^>]*>', _section(html, pk)).group(0)


def test_a_reason_dad_asks_to_give_the_next_groups_starts_the_next_suggestions_of_its_kind(editor_client, suggested):
    repeat, conflict, stray = suggested
    services.add(notebook="zelda", text="Dodongo eats bombs", source="seen", by="pippa", why="seen")
    services.add(notebook="zelda", text="feed Dodongo a bomb", source="guessed", by="pippa", why="a guess")
    later = suggestions.suggest(notebook="zelda", lines=[6, 7], kind="repeat", why="one boss", by="pippa").suggestion
    html = editor_client.get(PAGE).content.decode()
    assert "Use this reason for the next groups too" in _section(html, repeat.pk)
    assert "checked" not in _carry_box(html, later.pk) and 'value=""' in _reason_field(html, later.pk)
    editor_client.post(f"/notebooks/zelda/suggestions/{repeat.pk}/", {
        "n": ["1", "2"], "words": BOSS_TOO, "reason": "one boss", "carry": "1", "action": "merge"})  # fmt: skip
    html = editor_client.get(PAGE).content.decode()
    assert 'value="one boss"' in _reason_field(html, later.pk) and "checked" in _carry_box(html, later.pk)
    assert "The reason you chose to give the next groups too" in _section(html, later.pk)
    assert 'value=""' in _reason_field(html, conflict.pk) and 'value=""' in _reason_field(html, stray.pk)
    editor_client.post(f"/notebooks/zelda/suggestions/{later.pk}/", {  # decided without the tick: it stops
        "n": ["6", "7"], "keep": "6", "reason": "one boss", "action": "merge"})  # fmt: skip
    assert SuggestionDecision.objects.get(suggestion=later).why == "one boss"
    services.add(notebook="zelda", text="Dodongo: a bomb in the mouth", source="seen", by="pippa", why="seen")
    services.add(notebook="zelda", text="bomb into Dodongo's mouth", source="seen", by="pippa", why="seen")
    last = suggestions.suggest(notebook="zelda", lines=[10, 11], kind="repeat", why="again", by="pippa").suggestion
    assert 'value=""' in _reason_field(editor_client.get(PAGE).content.decode(), last.pk)


def test_a_decision_on_a_suggestion_keeps_the_engines_groups_as_drawn(editor_client, suggested):
    repeat = suggested[0]
    html = editor_client.get(PAGE).content.decode()
    drawn = re.search(r'name="drawn" value="([0-9]+)"', _section(html, repeat.pk)).group(1)
    body = {"n": ["1", "2"], "words": BOSS_TOO, "reason": "one boss", "action": "merge", "drawn": drawn}
    answer = editor_client.post(f"/notebooks/zelda/suggestions/{repeat.pk}/", body)
    assert answer["Location"].endswith(f"?show=similar&drawn={drawn}")  # without JavaScript: the same groups
    pk = suggestions.suggest(notebook="zelda", lines=[3, 5], kind="stray", why="both odd", by="pippa").suggestion.pk
    answer = editor_client.post(f"/notebooks/zelda/suggestions/{pk}/", {
        "n": ["3", "5"], "out": ["3"], "reason": "not a lesson", "action": "retire", "drawn": drawn},
        HTTP_HX_REQUEST="true")  # fmt: skip
    assert answer.status_code == 200 and answer["HX-Replace-Url"].endswith(f"?show=similar&drawn={drawn}")
    assert f'name="drawn" value="{drawn}"' in answer.content.decode()


def test_suggestions_past_the_words_drawn_at_once_wait_and_the_page_says_so(editor_client, suggested, monkeypatch):
    from notebooks.card import similar as card_similar

    repeat, conflict, stray = suggested
    monkeypatch.setattr(card_similar, "SUGGESTION_CHARACTERS", len(BOSS) + len(BOSS_TOO) + len(FIFTY))
    html = editor_client.get(PAGE).content.decode()
    assert "Suggested: 3 waiting for you" in html
    assert "Shown here: the oldest 1. The rest come up as these are decided." in html
    assert f'id="suggestion-{repeat.pk}"' in html and f'id="suggestion-{conflict.pk}"' not in html
    monkeypatch.setattr(card_similar, "SUGGESTION_CHARACTERS", 1)  # the oldest is drawn whatever its size
    assert f'id="suggestion-{repeat.pk}"' in editor_client.get(PAGE).content.decode()
