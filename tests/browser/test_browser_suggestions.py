"""A suggestion from outside decided in a real browser: Pippa's suggested merge shows first in the Similar view,
and Dad accepts it with the keyboard alone, answered in place; at 390 px the suggestion fits the screen."""

import json
from collections.abc import Iterator

import pytest

from tests.browser.support import Server, open_signed_in, seed_suggestions

# Only the SQLite part runs it: its site always ran on SQLite, and nothing it tests depends on the database.
pytestmark = [pytest.mark.browser, pytest.mark.vendor("sqlite")]

BOSS = "the big dinosaur swallows bombs"
BOSS_TOO = "King Dodongo: throw a bomb into his mouth"
MILK = "remember to buy milk"


@pytest.fixture(scope="module")
def server(live_sites, tmp_path_factory) -> Iterator[Server]:  # noqa: ANN001
    tmp = tmp_path_factory.mktemp("suggest-browser")

    def seed(site: Server) -> None:
        seed_suggestions(site, tmp / "suggestions.json", "zelda", (BOSS, BOSS_TOO, MILK), [
            {"lines": [1, 2], "kind": "repeat", "words": BOSS_TOO, "why": "both are King Dodongo"},
            {"lines": [3], "kind": "stray", "why": "not about the game"},
        ])  # fmt: skip

    with live_sites.serve("suggest-browser", seed) as site:
        yield site


def _signed_in(browser, server: Server, width: int):  # noqa: ANN001, ANN202
    return open_signed_in(browser, server.url, server.password, "/notebooks/zelda/?show=similar", width, 844)


def test_at_390_px_a_suggestion_fits_the_screen(browser, server):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, _errors = _signed_in(browser, server, 390)
    suggestion = page.locator("#suggestions .suggestion").first
    expect(suggestion).to_contain_text("Suggested by pippa")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    box = suggestion.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    context.close()


def test_dad_accepts_a_suggested_merge_with_the_keyboard(browser, server):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, errors = _signed_in(browser, server, 1280)
    page.evaluate("window.__same_page = true")  # gone if the decision reloads the page instead of swapping
    repeat = page.locator("#suggestions .suggestion.kind-repeat")
    expect(repeat).to_contain_text("Suggested by pippa")
    expect(repeat).to_contain_text("both are King Dodongo")
    expect(repeat.get_by_label("Words for the merged line")).to_have_value(BOSS_TOO)  # pre-filled
    repeat.get_by_label("Your reason").focus()
    page.keyboard.type("one boss, one lesson")
    page.keyboard.press("Tab")  # the tick that gives the reason to the next groups too, left as it is
    expect(repeat.get_by_label("Use this reason for the next groups too")).to_be_focused()
    page.keyboard.press("Tab")
    expect(repeat.get_by_role("button", name="Merge", exact=True)).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#similar")).to_contain_text("Merged #1, #2 into new line #4.")
    expect(page.locator("#suggestions .suggestion.kind-repeat")).to_have_count(0)
    expect(page.locator("#suggestions .suggestion.kind-stray")).to_have_count(1)  # the other waits
    assert page.evaluate("window.__same_page === true")
    view = json.loads(server.run("notebook", "view", "zelda", "--json"))
    live = {x["n"]: x for x in (view["lines"] if isinstance(view, dict) else view)}
    assert set(live) == {3, 4} and live[4]["text"] == BOSS_TOO and live[4]["source"] == "seen"
    code = (
        "from notebooks.models import SuggestionDecision as D; "
        "print([(d.outcome, d.by, d.why) for d in D.objects.all()])"
    )
    assert server.run("shell", "--no-imports", "-c", code).strip().splitlines()[-1] == (
        "[('merged', 'dad', 'one boss, one lesson')]"
    )
    context.close()
    assert errors == [], f"script errors: {errors}"
