"""What cost Dad actions in the measured cleanup (docs/card.md, "What a cleanup costs"), mended, in a real browser:
a reason typed for one suggestion given to the next suggestions of its kind when he asks; a decided suggestion
leaving the engine's groups as they were drawn (no new group pairing the merged line); a line's Retire giving its
reason to the next lines he retires, so the next one is the line's number and Enter. Each by the keyboard."""

import json
from collections.abc import Iterator

import pytest

from tests.browser.support import Server, open_signed_in, seed_suggestions

# Only the SQLite part runs it: its site always ran on SQLite, and nothing it tests depends on the database.
pytestmark = [pytest.mark.browser, pytest.mark.vendor("sqlite")]

BOSS = "the big dinosaur swallows bombs"
BOSS_TOO = "King Dodongo: throw a bomb into his mouth"
BOSS_AGAIN = "Throw a bomb into King Dodongo's mouth when it opens"
BOW = "the fairy bow is in the forest temple"
BOW_TOO = "Forest Temple: the Fairy Bow, after the Stalfos"
MILK = "remember to buy milk"
ROLL = "roll after the second swing"
ROLL_TOO = "after his second swing, roll"
ROLL_AGAIN = "wait for the second swing and roll"


@pytest.fixture(scope="module")
def server(live_sites, tmp_path_factory) -> Iterator[Server]:  # noqa: ANN001
    tmp = tmp_path_factory.mktemp("carried-browser")

    def seed(site: Server) -> None:
        seed_suggestions(site, tmp / "suggestions.json", "zelda", (BOSS, BOSS_TOO, BOSS_AGAIN, BOW, BOW_TOO, MILK), [
            {"lines": [1, 2], "kind": "repeat", "words": BOSS_TOO, "why": "both are King Dodongo"},
            {"lines": [4, 5], "kind": "repeat", "words": BOW_TOO, "why": "both are the Fairy Bow"},
            {"lines": [6], "kind": "stray", "why": "not about the game"},
        ])  # fmt: skip
        site.run("notebook", "create", "retire")
        for words in (ROLL, ROLL_TOO, ROLL_AGAIN):
            site.run("notebook", "add", "retire", words, "--source", "seen", "--by", "pippa", "--why", "seen")

    with live_sites.serve("carried-browser", seed) as site:
        yield site


def _signed_in(browser, server: Server, path: str):  # noqa: ANN001, ANN202
    context, page, errors = open_signed_in(browser, server.url, server.password, path)
    page.evaluate("window.__same_page = true")  # gone if a decision reloads the page instead of swapping
    return context, page, errors


def _decisions(server: Server) -> list:
    code = (
        "import json; from notebooks.models import SuggestionDecision as D; "
        "print(json.dumps([[d.outcome, d.why] for d in D.objects.all()]))"
    )
    return json.loads(server.run("shell", "--no-imports", "-c", code).strip().splitlines()[-1])


def test_a_decision_sent_without_a_reason_is_refused_in_place_with_the_focus_in_its_reason(browser, server):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, errors = _signed_in(browser, server, "/notebooks/zelda/?show=similar")
    group = page.locator("section.similar-group:not(.suggestion)").first
    expect(group).to_be_visible()
    key = group.get_attribute("id")
    group.get_by_role("button", name="Merge", exact=True).focus()
    page.keyboard.press("Enter")
    group = page.locator(f"#{key}")
    expect(group).to_contain_text("A reason is required")
    expect(group.get_by_label("Reason", exact=True)).to_be_focused()  # where he types next, not the page's top
    page.keyboard.type("one rule")
    expect(group.get_by_label("Reason", exact=True)).to_have_value("one rule")

    stray = page.locator("#suggestions .suggestion.kind-stray")
    stray.get_by_role("button", name="Retire", exact=True).focus()
    page.keyboard.press("Enter")
    stray = page.locator("#suggestions .suggestion.kind-stray")
    expect(stray).to_contain_text("A reason is required")
    expect(stray.get_by_label("Your reason", exact=True)).to_be_focused()
    assert _decisions(server) == []  # refused: nothing written
    assert page.evaluate("window.__same_page === true")
    context.close()
    assert errors == [], errors


def test_one_reason_for_a_run_of_suggested_merges_and_the_engines_groups_held(browser, server):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, errors = _signed_in(browser, server, "/notebooks/zelda/?show=similar")
    groups = page.locator("section.similar-group:not(.suggestion)")
    expect(groups.first).to_be_visible()
    drawn = [g.get_attribute("id") for g in groups.all()]
    first = page.locator("#suggestions .suggestion.kind-repeat").first
    first.get_by_label("Your reason", exact=True).focus()
    page.keyboard.type("one lesson")
    page.keyboard.press("Tab")
    carry = first.get_by_label("Use this reason for the next groups too")
    expect(carry).to_be_focused()
    page.keyboard.press("Space")
    page.keyboard.press("Tab")
    expect(first.get_by_role("button", name="Merge", exact=True)).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#similar .similar-done")).to_contain_text("Merged #1, #2 into new line #7.")

    # The engine's groups are those drawn: the merged #7 joins none, though its words are #3's nearly.
    expect(page.locator("#similar-drawn")).to_contain_text("Look again")
    assert "drawn=" in page.url
    for key in [g.get_attribute("id") for g in groups.all()]:
        assert "-7" not in key and key in drawn, (key, drawn)

    second = page.locator("#suggestions .suggestion.kind-repeat").first
    expect(second).to_contain_text("Fairy Bow")
    reason = second.get_by_label("Your reason", exact=True)
    expect(reason).to_have_value("one lesson")
    expect(second.get_by_label("Use this reason for the next groups too")).to_be_checked()
    reason.focus()
    page.keyboard.press("Enter")  # the first button: Merge
    expect(page.locator("#similar .similar-done")).to_contain_text("Merged #4, #5 into new line #8.")
    stray = page.locator("#suggestions .suggestion.kind-stray")
    expect(stray.get_by_label("Your reason", exact=True)).to_have_value("")  # a stray's reason is its own
    assert page.evaluate("window.__same_page === true")
    assert _decisions(server) == [["merged", "one lesson"], ["merged", "one lesson"]]
    page.reload()
    for key in [g.get_attribute("id") for g in groups.all()]:
        assert key in drawn, (key, drawn)  # a reload shows the same groups
    context.close()
    assert errors == [], errors


def test_dad_retires_lines_into_one_for_one_reason_by_the_keyboard(browser, server):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, errors = _signed_in(browser, server, "/notebooks/retire/")
    line = page.locator("#line-2")
    line.get_by_role("link", name="Retire").click()
    expect(line.get_by_label("Reason", exact=True)).to_be_focused()
    page.keyboard.type("#1 says it")
    page.keyboard.press("Tab")
    expect(line.get_by_label("Now said by line #")).to_be_focused()
    page.keyboard.type("1")
    page.keyboard.press("Tab")
    expect(line.get_by_label("Say this for the next lines I retire too")).to_be_focused()
    page.keyboard.press("Space")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    expect(page.locator("#line-2.retired-notice")).to_contain_text("line #1 now says it")

    line = page.locator("#line-3")
    line.get_by_role("link", name="Retire").click()
    expect(line.get_by_label("Reason", exact=True)).to_have_value("#1 says it")
    expect(line.get_by_label("Now said by line #")).to_be_focused()  # what is left to say
    page.keyboard.type("1")
    page.keyboard.press("Enter")
    expect(page.locator("#line-3.retired-notice")).to_contain_text("line #1 now says it")
    history = json.loads(server.run("notebook", "history", "retire", "3", "--json"))
    strike = (history["entries"] if isinstance(history, dict) else history)[-1]
    assert (strike["into"], strike["why"]) == (1, "#1 says it")
    assert page.evaluate("window.__same_page === true")
    context.close()
    assert errors == [], errors
