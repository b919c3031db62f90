"""The card page's selection bar in Chromium (issue 31, point 4): "Which source will it have?" keeps the ticks and the
typed words, Merge offers "keep #N's words" for each ticked line, and Retire selected retires the ticked lines as now
said by one line. Each notebook here serves one test, so they may run in any order.
"""

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.support import Server, import_rows, seen_rows, sign_in

pytestmark = pytest.mark.browser

PASSWORD = "browser-selection-password-0123"
LINES = [
    "Roll after the second swing of the bridge guard.",
    "Saving before the boss door keeps the small keys.",
    "Torches burn out after a minute; light the next one.",
    "Bombs open the cracked walls on the third floor.",
    "Keese fly in a figure eight; wait at the cross.",
    "Rupees under bushes respawn when you leave the room.",
    "Save often: the game does not save by itself.",
    "The other path hides a fairy fountain behind the falls.",
    "Lava tiles hurt even at the edge.",
    "The bridge guard blocks twice, then swings.",
    "Arrows cost ten rupees after the second dungeon.",
    "Bomb flowers grow back after a while.",
]
TITLES = ("preview", "search", "keep", "keepkeys", "into", "refused", "phone", "nojs")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, live_sites) -> Iterator[Server]:  # noqa: ANN001
    tmp = tmp_path_factory.mktemp("browser-selection")

    def seed(server: Server) -> None:
        import_rows(server, tmp / "lines.jsonl", seen_rows(LINES, time.time() - 86400), *TITLES)

    with live_sites.serve("browser-selection", seed, password=PASSWORD) as server:
        yield server


def _tick(page, *numbers: int) -> None:  # noqa: ANN001
    from playwright.sync_api import expect

    for n in numbers:
        page.locator(f"#pick-{n}").check()
    expect(page.locator("#select-form .sel-count")).to_have_text(f"{len(numbers)} selected")


def _search(page, words: str, shown: str) -> None:  # noqa: ANN001
    from playwright.sync_api import expect

    box = page.locator("form.toolbar input[name=q]")
    box.fill("")
    box.press_sequentially(words, delay=30)
    expect(page.locator("#shown-count")).to_contain_text(shown)
    page.wait_for_timeout(800)  # the delayed search and the blur's change have both come back


# ----- the bug: "Which source will it have?" emptied the ticks, and the next search lost the typed words ----------


def test_which_source_keeps_the_ticked_lines(open_card):
    from playwright.sync_api import expect

    page = open_card("preview")
    _tick(page, 1, 10)
    bar = page.locator("#select-form")
    bar.get_by_role("button", name="Merge", exact=True).click()  # opens the words
    bar.get_by_label("Words", exact=True).fill("The bridge guard blocks twice, then swings: roll after the second.")
    bar.get_by_role("button", name="Which source will it have?").click()
    expect(bar.locator("#merge-source")).to_contain_text("this becomes Dad's correction")
    page.wait_for_timeout(300)
    expect(bar.locator(".sel-count")).to_have_text("2 selected")
    expect(page.locator("#pick-1")).to_be_checked()
    expect(page.locator("#pick-10")).to_be_checked()
    expect(bar.get_by_label("Words", exact=True)).to_be_visible()
    page.reload()  # the ticks are kept for the tab, not only on the page
    expect(page.locator("#select-form .sel-count")).to_have_text("2 selected")


def test_the_search_after_which_source_keeps_the_typed_words(open_card):
    from playwright.sync_api import expect

    page = open_card("search")
    _tick(page, 1, 10)
    bar = page.locator("#select-form")
    bar.get_by_role("button", name="Merge", exact=True).click()
    words = "The bridge guard blocks twice: roll after his second swing."
    bar.get_by_label("Words", exact=True).fill(words)
    bar.get_by_label("Reason").fill("one lesson")
    bar.get_by_role("button", name="Which source will it have?").click()
    expect(bar.locator("#merge-source")).to_contain_text("Dad's correction")
    _search(page, "bomb", "2 of 12 lines match")
    bar = page.locator("#select-form")
    expect(bar.get_by_label("Words", exact=True)).to_have_value(words)
    expect(bar.get_by_label("Reason")).to_have_value("one lesson")
    expect(bar.locator(".sel-count")).to_have_text("2 selected")
    bar.get_by_role("button", name="Merge", exact=True).click()  # the lines the search hides are merged all the same
    expect(page.locator("#announce")).to_contain_text("Merged #1, #10 into new line #13.")


# ----- Retire selected, now said by line # ---------------------------------------------------------------------------


def test_retire_selected_as_now_said_by_a_line_by_the_keyboard(open_card):
    from playwright.sync_api import expect

    page = open_card("into")
    _tick(page, 1, 10)
    bar = page.locator("#select-form")
    bar.get_by_role("button", name="Retire selected").click()  # opens the reason, focused
    expect(bar.get_by_label("Reason")).to_be_focused()
    page.keyboard.type("#2 says it now")
    page.keyboard.press("Tab")
    expect(bar.get_by_label("Now said by line #")).to_be_focused()
    page.keyboard.type("2")
    page.keyboard.press("Enter")
    expect(page.locator("#announce")).to_have_text("Retired #1, #10, now said by #2.")
    for n in (1, 10):
        expect(page.locator(f"#line-{n}")).to_contain_text(f"Line #{n} is retired: line #2 now says it")
    expect(page.locator("#line-2 .words")).to_have_text(LINES[1])
    expect(page.locator("#select-form .sel-count")).to_have_text("")
    assert page.evaluate("window.__same_page === true")


def test_retire_selected_refusals_read_clearly_and_keep_the_ticks(open_card, site):
    from playwright.sync_api import expect

    site.run("notebook", "retire", "refused", "12", "--by", "dad", "--why", "gone before")
    page = open_card("refused")
    _tick(page, 3, 4)
    bar = page.locator("#select-form")
    bar.get_by_role("button", name="Retire selected").click()
    bar.get_by_label("Reason").fill("said elsewhere")
    into = bar.get_by_label("Now said by line #")
    for number, said in (
        ("4", "Line #4 is among the ticked lines: untick it to keep it, or name a line not ticked."),
        ("12", "Nothing was changed. Line #12 is retired, so it cannot say what the others said."),
    ):
        into.fill(number)
        into.press("Enter")
        expect(bar.locator(".sel-retire .error")).to_have_text(said)
        into = page.locator("#select-form").get_by_label("Now said by line #")
        expect(into).to_be_focused()
        expect(page.locator("#select-form .sel-count")).to_have_text("2 selected")
        expect(page.locator("#line-3 .words")).to_have_text(LINES[2])
    into.fill("7")
    into.press("Enter")
    expect(page.locator("#announce")).to_have_text("Retired #3, #4, now said by #7.")


# ----- Merge offers "keep #N's words" for each ticked line ---------------------------------------------------------


def test_merge_offers_each_ticked_lines_words_and_keeps_the_chosen(open_card):
    from playwright.sync_api import expect

    page = open_card("keep")
    _tick(page, 1, 10, 12)
    bar = page.locator("#select-form")
    bar.get_by_role("button", name="Merge", exact=True).click()
    choices = bar.locator("#sel-keep")
    expect(choices.get_by_role("radio")).to_have_count(3)
    # The clearest is chosen, as in the Similar view: of seen lines, the one with the most words.
    expect(choices.get_by_role("radio", name="Keep #1's words", exact=True)).to_be_checked()
    expect(choices).to_contain_text("Keep #10's words")
    expect(choices).to_contain_text("keeping these words, the line stays seen")
    expect(bar.get_by_label("Words", exact=True)).to_have_value("")
    bar.get_by_role("button", name="Remove #12 from the selection").click()  # the choices follow the ticks
    expect(choices.get_by_role("radio")).to_have_count(2)
    choices.get_by_text("Keep #10's words").click()
    _search(page, "bomb", "2 of 12 lines match")  # hides both: the choice outlives the new list
    choices = page.locator("#sel-keep")
    expect(choices.get_by_role("radio", name="Keep #10's words", exact=True)).to_be_checked()
    bar = page.locator("#select-form")
    bar.get_by_role("button", name="Which source will it have?").click()
    said = "these are #10's words unchanged: this stays pippa's seen line"
    expect(bar.locator("#merge-source")).to_contain_text(said)
    bar.get_by_label("Reason").fill("one lesson")
    bar.get_by_role("button", name="Merge", exact=True).click()
    expect(page.locator("#announce")).to_contain_text("Merged #1, #10 into new line #13.")
    _search(page, "bridge", "1 of 11 lines match")
    expect(page.locator("#line-13 .words")).to_have_text(LINES[9])
    expect(page.locator("#line-13 .tag")).to_contain_text("seen")


def test_keep_a_lines_words_by_the_keyboard(open_card):
    from playwright.sync_api import expect

    page = open_card("keepkeys")
    page.locator("#line-1").focus()
    page.keyboard.press("x")
    page.keyboard.press("j")
    page.keyboard.press("x")
    expect(page.locator("#select-form .sel-count")).to_have_text("2 selected")
    bar = page.locator("#select-form")
    bar.get_by_role("button", name="Merge", exact=True).focus()
    page.keyboard.press("Enter")  # opens the words, focused
    expect(bar.get_by_label("Words", exact=True)).to_be_focused()
    expect(bar.locator("#sel-keep").get_by_role("radio")).to_have_count(2)
    page.keyboard.press("Tab")  # to the chosen words: #2's, the longer of two seen lines
    expect(bar.get_by_role("radio", name="Keep #2's words", exact=True)).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(bar.get_by_role("radio", name="Keep #1's words", exact=True)).to_be_checked()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # past "Which source will it have?" to the reason
    expect(bar.get_by_label("Reason")).to_be_focused()
    page.keyboard.type("one lesson")
    page.keyboard.press("Enter")
    expect(page.locator("#announce")).to_contain_text("Merged #1, #2 into new line #13.")
    expect(page.locator("#line-13 .words")).to_have_text(LINES[0])


# ----- without JavaScript, and on a phone -------------------------------------------------------------------------


def test_without_javascript_merge_keeps_a_ticked_lines_words_and_retire_names_the_line(browser, site):
    from playwright.sync_api import expect

    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    sign_in(page, site.url, PASSWORD)
    page.goto(f"{site.url}/notebooks/nojs/")
    for n in (1, 10):
        page.locator(f"#pick-{n}").check()
    form = page.locator("#select-form")
    form.get_by_label("Reason").fill("one lesson")
    form.get_by_role("button", name="Merge", exact=True).click()  # no words: refused, with each line's words
    form = page.locator("#select-form")
    expect(form.locator(".sel-merge .error")).to_contain_text("Or keep one ticked line's words")
    form.get_by_text("Keep #10's words").click()
    form.get_by_role("button", name="Merge", exact=True).click()
    expect(page.locator("[role=status]").filter(has_text="Merged #1, #10 into new line #13.")).to_have_count(1)
    expect(page.locator("#line-13 .words")).to_have_text(LINES[9])
    for n in (3, 4):
        page.locator(f"#pick-{n}").check()
    form = page.locator("#select-form")
    form.get_by_label("Reason").fill("#5 says it")
    form.get_by_label("Now said by line #").fill("5")
    form.get_by_role("button", name="Retire selected").click()
    expect(page.locator("[role=status]").filter(has_text="Retired #3, #4, now said by #5.")).to_have_count(1)
    expect(page.locator("#line-3")).to_have_count(0)  # out of the live list
    for n in (3, 4):
        strike = json.loads(site.run("notebook", "history", "nojs", str(n), "--json"))[-1]
        assert (strike["op"], strike["into"], strike["why"]) == ("strike", 5, "#5 says it"), strike
    context.close()


def test_the_bar_at_390px_with_the_words_to_keep(open_card, tmp_path):
    from playwright.sync_api import expect

    out = Path(os.environ.get("NOTEBOOKS_SCREENSHOTS") or tmp_path)
    page = open_card("phone", width=390, height=844)
    _tick(page, 1, 2, 5, 6, 7, 10)
    bar = page.locator("#select-form")
    bar.get_by_role("button", name="Merge", exact=True).click()
    expect(bar.locator("#sel-keep").get_by_role("radio")).to_have_count(6)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "sideways scroll at 390 px"
    for n in (1, 10):  # each choice a full tap target
        box = bar.locator("#sel-keep label.keep-choice").nth(0 if n == 1 else 5).bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44, box
    bar.screenshot(path=str(out / "card-selection-keep-narrow.png"))
    bar.get_by_role("button", name="Retire selected").click()
    expect(bar.get_by_label("Now said by line #")).to_be_visible()
    expect(bar.locator("#sel-keep")).to_be_hidden()  # Merge's choices are for Merge
    box = bar.get_by_label("Now said by line #").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    bar.screenshot(path=str(out / "card-selection-into-narrow.png"))
