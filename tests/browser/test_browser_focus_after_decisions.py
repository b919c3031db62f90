"""Where Dad's focus rests after a decision sent by the keyboard, in a real browser: on the note that says what was
done (a Similar group's, a suggestion's, Mark reviewed's), never the page's top, so the next Tabs go on from it."""

from collections.abc import Iterator

import pytest

from tests.browser.support import Server, open_signed_in, seed_suggestions

pytestmark = pytest.mark.browser

BOSS = "the big dinosaur swallows bombs"
BOSS_TOO = "King Dodongo: throw a bomb into his mouth"
ROLL = "roll after the second swing"
ROLL_TOO = "after his second swing, roll"
ROLL_AGAIN = "wait for the second swing and roll"
LAVA = "the lava room needs the fire tunic"
LAVA_TOO = "wear the fire tunic in the lava room"
MILK = "remember to buy milk"

# Where the focus is: the note's own text and whether it is inside a group of the Similar view (and which).
FOCUSED = """() => {
  const el = document.activeElement;
  const group = el && el.closest(".similar-group");
  return {
    status: Boolean(el && el.matches("#similar-done [role=status]")),
    inSimilar: Boolean(el && el.closest("#similar")),
    group: group ? group.id : null,
    text: el ? el.textContent.trim().slice(0, 80) : "",
  };
}"""


@pytest.fixture(scope="module")
def server(live_sites, tmp_path_factory) -> Iterator[Server]:  # noqa: ANN001
    tmp = tmp_path_factory.mktemp("focus-browser")

    def seed(site: Server) -> None:
        lines = (BOSS, BOSS_TOO, ROLL, ROLL_TOO, ROLL_AGAIN, LAVA, LAVA_TOO, MILK)
        seed_suggestions(site, tmp / "suggestions.json", "zelda", lines, [
            {"lines": [8], "kind": "stray", "why": "not about the game"},
            {"lines": [1, 2], "kind": "repeat", "words": BOSS_TOO, "why": "both are King Dodongo"},
        ])  # fmt: skip

    with live_sites.serve("focus-browser", seed) as site:
        yield site


def _signed_in(browser, server: Server, path: str):  # noqa: ANN001, ANN202
    context, page, errors = open_signed_in(browser, server.url, server.password, path)
    page.evaluate("window.__same_page = true")  # gone if a decision reloads the page instead of swapping
    return context, page, errors


def _tab_to_a_group(page) -> tuple[list[str], dict]:  # noqa: ANN001
    """Tab from the focused note until a group holds the focus: the stops on the way (never the page's top) and
    where it landed."""
    stops: list[str] = []
    for _ in range(6):
        page.keyboard.press("Tab")
        where = page.evaluate(FOCUSED)
        assert where["inSimilar"], (stops, where)
        if where["group"]:
            return stops, where
        stops.append(where["text"])
    raise AssertionError(f"six Tabs from the note reached no group: {stops}")


def test_after_a_keyboard_decision_on_a_group_or_a_suggestion_the_focus_is_on_what_was_done(browser, server):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, errors = _signed_in(browser, server, "/notebooks/zelda/?show=similar")
    groups = page.locator("#similar section.similar-group:not(.suggestion)")
    expect(groups.first).to_be_visible()
    assert groups.count() >= 2, [g.get_attribute("id") for g in groups.all()]
    first = groups.first
    key = first.get_attribute("id")
    first.get_by_label("Reason", exact=True).fill("they differ")
    first.get_by_role("button", name="Not alike", exact=True).focus()
    page.keyboard.press("Enter")
    expect(page.locator(f"#{key}")).to_have_count(0)
    expect(page.locator("#similar-done [role=status]")).to_be_focused()  # not the page's body
    said = page.evaluate(FOCUSED)
    assert said["status"] and said["text"].startswith("Marked"), said
    stops, reached = _tab_to_a_group(page)
    assert stops == [], stops  # a mark writes no change: the next Tab is in the next group
    assert reached["group"] == page.locator("#similar section.similar-group").first.get_attribute("id"), reached

    stray = page.locator("#suggestions .suggestion.kind-stray")
    stray.get_by_label("Your reason", exact=True).fill("a shopping list")
    stray.get_by_role("button", name="Retire", exact=True).focus()
    page.keyboard.press("Enter")
    expect(page.locator("#suggestions .suggestion.kind-stray")).to_have_count(0)
    expect(page.locator("#similar-done [role=status]")).to_be_focused()
    expect(page.locator("#similar-done [role=status]")).to_contain_text("#8")
    stops, reached = _tab_to_a_group(page)
    assert stops == ["Look again"], stops  # the notebook changed: the one link on the way regroups its lines
    assert reached["group"] == page.locator("#similar section.similar-group").first.get_attribute("id"), reached
    assert page.evaluate("window.__same_page === true")
    context.close()
    assert errors == [], errors


def test_after_mark_reviewed_by_the_keyboard_the_focus_is_on_its_note(browser, server):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, errors = _signed_in(browser, server, "/notebooks/zelda/")
    page.get_by_role("button", name="Mark reviewed").focus()
    page.keyboard.press("Enter")
    note = page.locator("#lines-region > .note[role=status]")
    expect(note).to_contain_text("Marked reviewed")
    expect(note).to_be_focused()  # not the page's body
    assert page.evaluate("window.__same_page === true")
    context.close()
    assert errors == [], errors
