"""The card for a keyboard and a screen reader, in Chromium: focus never hidden under the sticky toolbar, the keys'
help at every width and each line saying how its links are reached, a ring seen on every background, what a search
or a restore did said through the live region, letters that act only on the page and the list, Escape on a restore
form, a refused Merge sent by the next Enter, and the last untick said. Each test has a notebook of its own."""

import time
from collections.abc import Iterator

import pytest

from tests.browser.support import Server, import_rows, seen_rows

pytestmark = [pytest.mark.browser, pytest.mark.client_side]

PASSWORD = "browser-a11y-password-0123456"
LINES = [
    f"Line {n} of the bridge: {'roll after the second swing' if n % 3 else 'save before the boss door'}."
    for n in range(1, 41)
]  # noqa: E501
TITLES = (
    "toolbar",
    "pending",
    "help",
    "ring",
    "search",
    "restore",
    "letters",
    "merge",
    "untick",
    "retired",
    "history",
    "undo",
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, live_sites) -> Iterator[Server]:  # noqa: ANN001
    tmp = tmp_path_factory.mktemp("browser-a11y")

    def seed(server: Server) -> None:
        import_rows(server, tmp / "lines.jsonl", seen_rows(LINES, time.time() - 86400), *TITLES)

    with live_sites.serve("browser-a11y", seed, password=PASSWORD) as server:
        yield server


CLEAR = """() => {
  const bar = document.querySelector("form.toolbar").getBoundingClientRect();
  const focused = document.activeElement.getBoundingClientRect();
  return {bar: bar.bottom, top: focused.top, bottom: focused.bottom};
}"""


def _clear_of_toolbar(page) -> None:  # noqa: ANN001
    at = page.evaluate(CLEAR)
    assert at["top"] >= at["bar"] - 1, f"focus under the toolbar: {at}"


def test_a_line_focused_with_k_stands_clear_of_a_wrapped_toolbar(open_card):
    page = open_card("toolbar", width=1000, height=700)
    assert page.evaluate("document.querySelector('form.toolbar').getBoundingClientRect().height") > 120  # wrapped
    page.locator("#line-1").focus()
    for _ in range(30):
        page.keyboard.press("j")
    for _ in range(25):
        page.keyboard.press("k")
        _clear_of_toolbar(page)


def test_shift_tab_up_to_a_control_above_the_list_is_not_hidden_under_the_toolbar(open_card):
    page = open_card("pending", width=1280, height=700)
    # The first line just below the sticky toolbar: the control before it is then under the toolbar, on screen.
    page.evaluate("""() => {
      const line = document.getElementById("line-1");
      for (let i = 0; i < 3; i++) {  // the toolbar sticks once scrolled: measured again
        const bar = document.querySelector("form.toolbar").getBoundingClientRect().bottom;
        window.scrollBy(0, line.getBoundingClientRect().top - bar);
      }
      line.focus({preventScroll: true});
    }""")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.closest('li.line') === null")
    _clear_of_toolbar(page)


def test_the_keys_help_is_reachable_at_390px_and_a_line_says_how_its_links_are_reached(open_card):
    from playwright.sync_api import expect

    page = open_card("help", width=390, height=844)
    expect(page.locator("#keys summary")).to_be_visible()
    line = page.locator("#line-1")
    expect(line).to_have_attribute("aria-describedby", "line-keys")
    expect(line).to_have_accessible_description(
        "Right arrow for its links, or e to edit, r to retire, m to move, h for its history, x to select it; "
        "j and k for the next and previous line."
    )


def test_the_focus_ring_is_the_accent_blue_not_the_new_markers_amber(open_card):
    page = open_card("ring")
    page.locator("#line-1").focus()
    assert page.evaluate("getComputedStyle(document.activeElement).outlineColor") == "rgb(31, 79, 163)"
    page.keyboard.press("ArrowRight")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineColor") == "rgb(31, 79, 163)"
    border = page.evaluate("getComputedStyle(document.querySelector('form.toolbar input[name=q]')).borderTopColor")
    assert border == "rgb(125, 133, 150)"  # 3.7:1 on white


def test_a_search_and_a_show_choice_are_said_once_they_settle(open_card):
    from playwright.sync_api import expect

    page = open_card("search")
    page.evaluate("""() => { window.__said = [];
      new MutationObserver(() => window.__said.push(document.getElementById('announce').textContent))
        .observe(document.getElementById('announce'), {childList: true, subtree: true, characterData: true}); }""")
    page.locator("form.toolbar input[name=q]").fill("boss door")
    expect(page.locator("#announce")).to_have_text(
        "13 of 40 lines match, in turn order: Dad's corrections, his other lines, then hers."
    )
    page.locator("form.toolbar input[name=q]").fill("")
    show = page.locator("form.toolbar select[name=show]")
    show.focus()
    page.evaluate("window.__said = []")
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    page.wait_for_timeout(2500)
    assert len(page.evaluate("window.__said")) == 1, page.evaluate("window.__said")


def test_a_history_opened_by_the_keyboard_is_said_with_its_count_of_changes(open_card, site):
    from playwright.sync_api import expect

    site.run("notebook", "edit", "history", "3", "roll after the third swing", "--by", "dad", "--why", "so")
    page = open_card("history")
    page.locator("#line-3").focus()
    page.keyboard.press("h")
    expect(page.locator("#announce")).to_have_text("History of line #3, below the line: 2 changes.")
    page.locator("#line-4").focus()
    page.keyboard.press("h")
    expect(page.locator("#announce")).to_have_text("History of line #4, below the line: 1 change.")


def test_an_undone_merge_answered_by_a_whole_page_is_said(open_card, site):
    from playwright.sync_api import expect

    site.run("notebook", "merge", "undo", "1", "2", "--text", "one line", "--by", "dad", "--why", "alike")
    page = open_card("undo")
    page.goto(f"{site.url}/notebooks/undo/lines/1/")
    page.get_by_role("link", name="Undo the merge…").first.click()
    page.locator("#undo-merge-41-reason").fill("two lessons")
    page.get_by_role("button", name="Undo the merge", exact=True).click()
    said = "Undid the merge into #41: restored #1 as #42, #2 as #43; #41 is retired."
    expect(page.locator("#flash")).to_have_text(said)
    expect(page.locator("#announce")).to_have_text(said)


def test_restore_is_said_through_the_live_region_and_escape_puts_the_notice_back(open_card):
    from playwright.sync_api import expect

    page = open_card("restore")
    page.locator("#line-2").focus()
    page.keyboard.press("r")
    page.locator("#line-2").get_by_label("Reason").fill("said twice")
    page.keyboard.press("Enter")
    expect(page.locator("#announce")).to_have_text("Retired line #2.")
    notice = page.locator("#line-2")
    notice.get_by_role("link", name="Restore…").click()
    reason = page.locator("#line-2").get_by_label("Reason")
    expect(reason).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#line-2")).to_contain_text("Line #2 is retired")
    expect(page.locator("#line-2")).to_be_focused()
    page.locator("#line-2").get_by_role("link", name="Restore…").click()
    page.locator("#line-2").get_by_label("Reason").fill("it was right")
    page.keyboard.press("Enter")
    expect(page.locator("#announce")).to_have_text("Restored line #2: its words are back as line #41.")
    assert page.evaluate("window.__same_page === true")


def test_restores_cancel_in_the_retired_view_keeps_that_view_and_focuses_the_line(open_card, site):
    from playwright.sync_api import expect

    site.run("notebook", "retire", "retired", "5", "--by", "dad", "--why", "gone")
    page = open_card("retired", query="?show=retired")
    page.locator("#line-5").get_by_role("button", name="Restore").click()
    expect(page.locator("#line-5 form.line-form")).to_be_visible()
    page.locator("#line-5").get_by_role("link", name="Cancel").click()
    expect(page.locator("#line-5 form.line-form")).to_have_count(0)
    expect(page.locator("#line-5")).to_be_focused()
    assert "show=retired" in page.url and page.evaluate("window.__same_page === true")


def test_letters_act_only_on_the_page_and_the_list(open_card):
    from playwright.sync_api import expect

    page = open_card("letters")
    crumb = page.locator(".crumb a")
    crumb.focus()
    for key in ("j", "k", "/", "?"):
        page.keyboard.press(key)
        expect(crumb).to_be_focused()
    expect(page.locator("#keys")).not_to_have_attribute("open", "")
    radio = page.locator("form.toolbar input[type=radio]").first
    radio.focus()
    page.keyboard.press("j")
    expect(radio).to_be_focused()
    page.locator("#line-3").focus()
    page.keyboard.press("j")
    expect(page.locator("#line-4")).to_be_focused()
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("/")
    expect(page.locator("form.toolbar input[name=q]")).to_be_focused()


def test_after_a_refused_merge_the_next_enter_merges(open_card):
    from playwright.sync_api import expect

    page = open_card("merge")
    page.locator("#pick-1").check()
    page.locator("#pick-2").check()
    bar = page.locator("#select-form")
    bar.get_by_role("button", name="Merge").click()
    bar.locator("#sel-words").fill("Roll after the second swing, on the bridge.")
    reason = bar.get_by_label("Reason")
    reason.press("Enter")
    expect(page.locator("#select-form .errors, #select-form .error").first).to_be_visible()
    reason = page.locator("#select-form").get_by_label("Reason")
    reason.fill("one lesson")
    reason.press("Enter")
    expect(page.locator("#announce")).to_contain_text("Merged")


def test_unticking_the_last_line_is_said(open_card):
    from playwright.sync_api import expect

    page = open_card("untick")
    page.locator("#pick-1").check()
    expect(page.locator("#sel-count")).to_have_text("1 selected")
    page.locator("#pick-1").uncheck()
    expect(page.locator("#sel-count")).to_have_text("No lines selected")
