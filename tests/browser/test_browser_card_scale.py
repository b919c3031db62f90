"""Dad's card at scale, in Chromium, on the suite's database (SQLite, or PostgreSQL with DATABASE_URL): each action
answers where he looks, lines are dense, the selection bar stays in view, any line can be found, and an expired
sign-in during an htmx request lands on the sign-in page.

The server is a `manage.py runserver` subprocess on a scratch database of the suite's vendor (tests/databases.py).
"""

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.support import Server, fill_sign_in, import_rows, save_sign_in, seen_rows, sign_in

pytestmark = pytest.mark.browser

PASSWORD = "browser-scale-password-0123"
SENTENCES = [
    "Roll after the second swing of the bridge guard.",
    "Torches burn out after a minute; light the next.",
    "Bombs open the cracked walls on the third floor.",
    "Keese fly in a figure eight; wait at the cross.",
    "Rupees under bushes respawn when you leave.",
]
ZORA = "Zora's Domain sells the best spears in the east."
LYNEL = "Guardian beams miss when you sprint; the old Lynel does not."


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, live_sites) -> Iterator[str]:  # noqa: ANN001
    tmp = tmp_path_factory.mktemp("browser-scale")

    def seed(server: Server) -> None:
        at = time.time() - 86400
        books = {
            "long": (SENTENCES[n % len(SENTENCES)] for n in range(1, 61)),
            "huge": (f"Shrine {n} opens at dusk." for n in range(1, 3001)),
            "zelda": (ZORA if n == 12 else LYNEL if n == 20 else SENTENCES[n % len(SENTENCES)] for n in range(1, 31)),
        }
        for title, texts in books.items():
            import_rows(server, tmp / f"{title}.jsonl", seen_rows(texts, at), title)

    with live_sites.serve("browser-scale", seed, password=PASSWORD) as server:
        yield server.url


@pytest.fixture(scope="module")
def signed_in(browser, site, tmp_path_factory) -> str:  # noqa: ANN001
    return save_sign_in(browser, site, PASSWORD, tmp_path_factory.mktemp("scale-session") / "state.json")


@pytest.fixture
def page(browser, site, signed_in):  # noqa: ANN001, ANN201
    context = browser.new_context(viewport={"width": 1280, "height": 900}, storage_state=signed_in)
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert errors == [], f"script errors: {errors}"


IN_VIEW = """(sel) => { const found = document.querySelector(sel); if (!found) return false;
    const r = found.getBoundingClientRect();
    const bar = document.querySelector('form.toolbar').getBoundingClientRect();
    const top = getComputedStyle(document.querySelector('form.toolbar')).position === 'sticky' ? bar.bottom : 0;
    return r.top >= top - 1 && r.bottom <= window.innerHeight + 1; }"""


def _in_view(page, selector: str) -> bool:  # noqa: ANN001
    """Wholly inside the viewport and not under the sticky toolbar."""
    return page.evaluate(IN_VIEW, selector)


def _comes_into_view(page, selector: str) -> None:  # noqa: ANN001
    page.wait_for_function(IN_VIEW, arg=selector, timeout=15_000)


def _live(page) -> int:  # noqa: ANN001
    """The count of live lines the summary says (tests of one module may run in any order, on any worker)."""
    return int(page.locator("#summary").inner_text().split(" live line")[0].strip())


def test_a_line_added_from_low_on_a_long_page_is_in_view_and_focused(page, site):
    from playwright.sync_api import expect

    page.goto(f"{site}/notebooks/long/")
    live = _live(page)
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.evaluate("window.__same_page = true")
    form = page.locator("#add-form")
    form.get_by_label("Words", exact=True).fill("Grab the key before the switch closes the door.")
    form.get_by_label("Reason").fill("she keeps missing it")
    form.get_by_role("button", name="Add line").click()
    line = page.locator("li.line.fresh")
    expect(line).to_be_focused()
    expect(line.locator(".line-note")).to_have_text(f"Added line #{line.get_attribute('data-n')}.")
    expect(line.locator(".words")).to_have_text("Grab the key before the switch closes the door.")
    assert _in_view(page, "li.line.fresh")
    expect(page.locator("#announce")).to_have_text(f"Added line #{line.get_attribute('data-n')}.")
    expect(page.locator("#summary")).to_contain_text(f"{live + 1} live lines")
    assert page.evaluate("window.__same_page === true")


def test_fifteen_one_sentence_lines_fit_below_the_toolbar(page, site):
    page.goto(f"{site}/notebooks/long/?order=number")
    page.locator("#line-20").scroll_into_view_if_needed()
    page.evaluate("document.querySelector('#line-20').scrollIntoView({block: 'start'})")
    heights = page.evaluate("[...document.querySelectorAll('li.line')].map(li => li.getBoundingClientRect().height)")
    assert max(heights) <= 48, f"a one-sentence line is {max(heights)} px tall"
    fitting = page.evaluate(
        """() => { const bar = document.querySelector('form.toolbar').getBoundingClientRect().bottom;
            return [...document.querySelectorAll('li.line')].filter(li => { const r = li.getBoundingClientRect();
                return r.top >= bar && r.bottom <= window.innerHeight; }).length; }"""
    )
    assert fitting >= 15, f"only {fitting} lines fit below the toolbar"
    # The same lines at the top of the page, under the header and the toolbar, without scrolling.
    page.evaluate("window.scrollTo(0, 0)")
    on_first_screen = page.evaluate(
        """() => [...document.querySelectorAll('li.line')].filter(li =>
            li.getBoundingClientRect().bottom <= window.innerHeight).length"""
    )
    page.screenshot(path="/tmp/first.png")
    assert on_first_screen >= 12, on_first_screen


def test_one_tab_stop_per_line_and_the_keys(page, site):
    from playwright.sync_api import expect

    page.goto(f"{site}/notebooks/long/?order=number")
    page.locator("form.toolbar button[type=submit]").focus()
    # Past the keyboard help's summary and the review's link and button, the list is the next stop.
    for _ in range(4):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.closest('li.line') !== null"):
            break
    expect(page.locator("#line-1")).to_be_focused()
    page.keyboard.press("Tab")  # one stop for the whole list: the next is after it
    assert page.evaluate("document.activeElement.closest('li.line') === null")
    page.keyboard.press("Shift+Tab")
    expect(page.locator("#line-1")).to_be_focused()
    page.keyboard.press("j")
    page.keyboard.press("j")
    expect(page.locator("#line-3")).to_be_focused()
    page.keyboard.press("k")
    expect(page.locator("#line-2")).to_be_focused()
    page.keyboard.press("e")
    words = page.locator("#line-2").get_by_label("Words", exact=True)
    expect(words).to_be_focused()
    words.fill("a draft to throw away")
    page.keyboard.press("Escape")
    expect(page.locator("#line-2 .words")).to_have_text(SENTENCES[2])
    expect(page.locator("#line-2")).to_be_focused()
    page.keyboard.press("x")
    expect(page.locator("#pick-2")).to_be_checked()
    expect(page.locator("#select-form .sel-count")).to_have_text("1 selected")
    page.keyboard.press("h")
    expect(page.locator("#line-2 .history")).to_contain_text(SENTENCES[2])
    page.keyboard.press("?")
    expect(page.locator("#keys dl")).to_be_visible()
    expect(page.locator("#keys")).to_contain_text("edit the line")


def test_e_opens_the_edit_with_the_caret_after_the_words(page, site):
    from playwright.sync_api import expect

    page.goto(f"{site}/notebooks/long/?order=number")
    page.locator("#line-2").focus()
    page.keyboard.press("e")
    words = page.locator("#line-2").get_by_label("Words", exact=True)
    expect(words).to_be_focused()
    page.keyboard.type(" again")
    expect(words).to_have_value(SENTENCES[2] + " again")
    page.keyboard.press("Escape")


def test_save_and_cancel_give_focus_back_to_the_line(page, site):
    from playwright.sync_api import expect

    page.goto(f"{site}/notebooks/long/?order=number")
    line = page.locator("#line-5")
    line.get_by_role("link", name="Edit").click()
    line.get_by_role("link", name="Cancel").click()
    expect(page.locator("#line-5")).to_be_focused()
    line.get_by_role("link", name="Edit").click()
    line.get_by_label("Words", exact=True).fill("Rupees respawn once you leave the screen.")
    line.get_by_label("Reason").fill("shorter")
    line.get_by_role("button", name="Save").click()
    expect(line.locator(".line-note")).to_have_text("Saved line #5.")
    expect(page.locator("#line-5")).to_be_focused()
    expect(page.locator("#summary")).to_contain_text("Dad's correction")  # the counts followed the edit


def test_the_selection_bar_stays_in_view_with_the_count(page, site):
    from playwright.sync_api import expect

    page.goto(f"{site}/notebooks/long/?order=number")
    live = _live(page)
    for n in (2, 3, 4):
        page.locator(f"#pick-{n}").check()
    page.locator("#line-45").scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, 400)")
    assert not _in_view(page, "#line-2")
    bar = page.locator("#select-form")
    expect(bar.locator(".sel-count")).to_have_text("3 selected")
    expect(bar).to_be_in_viewport(ratio=1)
    assert _in_view(page, "#select-form")
    # Merge: the merged line stands where the first ticked line stood; the others leave a notice.
    bar.get_by_role("button", name="Merge", exact=True).click()
    bar.get_by_label("Words", exact=True).fill("Three lines that say one thing.")
    bar.get_by_label("Reason").fill("one lesson")
    bar.get_by_role("button", name="Merge", exact=True).click()
    merged = page.locator("li.line.fresh")
    expect(merged.locator(".line-note")).to_contain_text("Merged #2, #3, #4 into new line #")
    expect(merged).to_be_focused()
    assert page.evaluate("document.querySelector('li.fresh').nextElementSibling.id") == "line-3"
    expect(page.locator("#line-3")).to_contain_text("Line #3 was merged into #")
    expect(page.locator("#select-form .sel-count")).to_have_text("")
    expect(page.locator("#summary")).to_contain_text(f"{live - 2} live lines")


def test_retire_selected_leaves_a_notice_in_each_place(page, site):
    from playwright.sync_api import expect

    page.goto(f"{site}/notebooks/long/?order=number")
    page.locator("#pick-30").check()
    page.locator("#pick-31").check()
    bar = page.locator("#select-form")
    bar.get_by_role("button", name="Retire selected").click()
    bar.get_by_label("Reason").fill("said twice")
    bar.get_by_label("Reason").press("Enter")  # Enter sends the action opened, not the first button
    expect(page.locator("#line-30")).to_contain_text("Line #30 is retired")
    expect(page.locator("#line-31")).to_contain_text("Line #31 is retired")
    expect(page.locator("#line-30")).to_be_focused()
    expect(page.locator("#announce")).to_have_text("Retired #30, #31.")


def test_2500_in_search_opens_line_2500_of_3000(page, site):
    from playwright.sync_api import expect

    page.goto(f"{site}/notebooks/huge/")
    expect(page.locator("#line-2500")).to_have_count(0)  # the first page lists 1,000 lines
    page.locator("#view-q").fill("2500")  # by id: Playwright's label lookup walks 1,000 labelled boxes
    line = page.locator("#line-2500")
    expect(line).to_be_visible(timeout=15_000)
    expect(line.locator(".words")).to_have_text("Shrine 2500 opens at dusk.")
    _comes_into_view(page, "#line-2500")
    page.locator("#view-q").fill("#2900")
    _comes_into_view(page, "#line-2900")
    page.wait_for_timeout(500)  # and stays there once the list has settled
    assert _in_view(page, "#line-2900")
    expect(page.locator("#view-q")).to_be_focused()  # he can go on typing: the search kept his focus


def test_a_link_to_any_line_opens_its_page(page, site):
    from playwright.sync_api import expect

    page.goto(f"{site}/notebooks/huge/#line-2750")
    expect(page.locator("#line-2750")).to_be_focused(timeout=15_000)
    assert _in_view(page, "#line-2750")
    page.goto(f"{site}/notebooks/huge/lines/1999/")
    expect(page.locator("#line-1999")).to_be_visible()
    assert _in_view(page, "#line-1999")


def test_show_more_appends_after_the_last_line_and_keeps_the_place(page, site):
    from playwright.sync_api import expect

    page.goto(f"{site}/notebooks/huge/?order=number")
    more = page.get_by_role("link", name="Show 1,000 more")
    more.scroll_into_view_if_needed()
    before = page.evaluate("window.scrollY")
    more.click()
    expect(page.locator("#line-1001")).to_be_attached(timeout=15_000)
    order = page.evaluate("[...document.querySelectorAll('li.line')].map(li => li.id)")
    assert order.index("line-1001") == order.index("line-1000") + 1
    assert abs(page.evaluate("window.scrollY") - before) < 5
    expect(page.locator("#line-1")).to_be_attached()  # the first page stays
    assert page.locator("li.line").count() == 2000


def test_zoras_finds_zoras_and_marks_it(page, site):
    from playwright.sync_api import expect

    page.goto(f"{site}/notebooks/zelda/")
    page.get_by_label("Search").fill("zoras")
    expect(page.locator("li.line")).to_have_count(1)
    expect(page.locator("#line-12 .words")).to_have_text(ZORA)
    expect(page.locator("#line-12 .words mark")).to_have_text("Zora's")
    page.get_by_label("Search").fill("lynel guardian")
    expect(page.locator("li.line")).to_have_count(1)
    expect(page.locator("#line-20 mark")).to_have_text(["Guardian", "Lynel"])


def test_back_brings_back_the_search_and_source_with_the_list(page, site):
    from playwright.sync_api import expect

    page.goto(f"{site}/notebooks/zelda/")
    page.get_by_label("Search").fill("bombs")
    expect(page.locator("li.line")).to_have_count(5)
    page.get_by_label("Source").select_option("guessed")
    expect(page.locator("li.line")).to_have_count(0)
    page.get_by_label("Search").fill("zoras")
    page.wait_for_url("**q=zoras**")
    page.go_back()
    expect(page.get_by_label("Search")).to_have_value("bombs")
    expect(page.get_by_label("Source")).to_have_value("guessed")
    page.go_back()
    expect(page.get_by_label("Search")).to_have_value("bombs")
    expect(page.get_by_label("Source")).to_have_value("")
    expect(page.locator("li.line")).to_have_count(5)


def test_an_expired_sign_in_during_an_htmx_edit_lands_on_the_sign_in_page(browser, site, signed_in):
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    sign_in(page, site, PASSWORD)
    page.goto(f"{site}/notebooks/zelda/")
    context.clear_cookies(name="sessionid")
    page.locator("#line-3").get_by_role("link", name="Edit").click()
    page.wait_for_url("**/accounts/login/**")
    assert page.url.endswith("/accounts/login/?next=%2Fnotebooks%2Fzelda%2F")
    expect(page.locator("li.line")).to_have_count(0)
    fill_sign_in(page, PASSWORD)
    page.wait_for_url(f"{site}/notebooks/zelda/")
    context.close()


def test_the_card_at_1280_and_on_a_phone(browser, site, signed_in, tmp_path):
    out = Path(tmp_path)
    for width, height in ((1280, 900), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height}, storage_state=signed_in)
        page = context.new_page()
        page.goto(f"{site}/notebooks/zelda/?q=zoras")
        assert page.evaluate("document.documentElement.scrollWidth") <= width, f"sideways scroll at {width}px"
        page.screenshot(path=str(out / f"scale-{width}.png"))
        context.close()


def test_on_a_phone_a_line_form_opened_low_is_clear_of_the_selection_bar(browser, site, signed_in):
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 390, "height": 740}, storage_state=signed_in)
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        page.goto(f"{site}/notebooks/long/?order=number")
        page.locator("#pick-50").check()  # lines no other test of this module changes
        expect(page.locator("#select-form")).to_have_class(re.compile(r"\bpicking\b"))
        # The line sits at the very bottom of the screen, under the bar that stays there while lines are ticked.
        page.evaluate("document.getElementById('line-40').scrollIntoView({block: 'end'})")
        page.locator("#line-40 a.act", has_text="Edit").dispatch_event("click")
        words = page.locator("#line-40 textarea")
        expect(words).to_be_focused()
        page.wait_for_timeout(300)  # any scrolling the focus asked for has ended
        field = words.bounding_box()
        bar = page.locator("#select-form").bounding_box()
        assert field["y"] + field["height"] <= bar["y"], (field, bar)
        assert field["y"] >= 0
    finally:
        context.close()
