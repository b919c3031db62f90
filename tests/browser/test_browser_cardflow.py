"""Dad's card workflow in Chromium (issue 21): a search never swallows the next click, ticks survive a search,
counts follow every action inside a search, text over a limit is refused (never cut), a draft outlives an expired
sign-in, and the card works on a phone (390x844) with 44 px tap targets.

The server is a `manage.py runserver` subprocess on a scratch database of the suite's vendor (tests/databases.py);
each test has a notebook of its own, so they may run in any order.
"""

import time
from collections.abc import Iterator

import pytest

from tests.browser.support import Server, card_pages, fill_sign_in, import_rows, save_sign_in, seen_rows

pytestmark = [pytest.mark.browser, pytest.mark.client_side]

PASSWORD = "browser-cardflow-password-0123"
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
    "Zora's Domain sells the best spears in the east.",
    "Stalchildren rise at night in the field.",
    "A shield blocks the octorok's rocks.",
    "The owl repeats itself; skip with B.",
    "Light arrows are the only thing that stuns the boss.",
    "Bomb flowers grow back after a while.",
    "The lake temple has three water levels.",
    "Rolling into trees drops rupees or a bee hive.",
    "Hearts in the grass come back when you leave.",
]
TITLES = (
    "click",
    "press",
    "slid",
    "press-edit",
    "press-form",
    "ticks",
    "counts",
    "limits",
    "draft",
    "phone",
    "wide",
    "search",
    "nojs",
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, live_sites) -> Iterator[str]:  # noqa: ANN001
    tmp = tmp_path_factory.mktemp("browser-cardflow")

    def seed(server: Server) -> None:
        import_rows(server, tmp / "lines.jsonl", seen_rows(LINES, time.time() - 86400), *TITLES)

    with live_sites.serve("browser-cardflow", seed, password=PASSWORD) as server:
        yield server.url


@pytest.fixture(scope="module")
def signed_in(browser, site, tmp_path_factory) -> str:  # noqa: ANN001
    return save_sign_in(browser, site, PASSWORD, tmp_path_factory.mktemp("cardflow-session") / "state.json")


@pytest.fixture
def open_card(browser, site, signed_in):  # noqa: ANN001, ANN201
    """open_card(title, width=1280, height=900, query=""): a signed-in page on that notebook's card."""
    with card_pages(browser, site, signed_in) as opened:
        yield opened


def _settled(page) -> None:  # noqa: ANN001
    """Long enough for the search's delayed request (400 ms) and any request a blur would send to come back."""
    page.wait_for_timeout(1500)


# ----- 1. the first click after a search is never lost --------------------------------------------------------


def test_a_tick_right_after_a_search_is_kept(open_card):
    from playwright.sync_api import expect

    page = open_card("click")
    page.locator("form.toolbar input[name=q]").press_sequentially("bomb", delay=40)
    expect(page.locator("#shown-count")).to_contain_text("2 of 20 lines match")
    page.locator("#pick-4").click()  # the search box loses focus here
    _settled(page)
    expect(page.locator("#pick-4")).to_be_checked()
    expect(page.locator("#select-form .sel-count")).to_have_text("1 selected")


def test_an_edit_clicked_right_after_a_search_opens(open_card):
    from playwright.sync_api import expect

    page = open_card("click")
    page.locator("form.toolbar input[name=q]").press_sequentially("torches", delay=40)
    expect(page.locator("#shown-count")).to_contain_text("1 of 20 lines match")
    page.locator("#line-3").get_by_role("link", name="Edit").click()
    _settled(page)
    expect(page.locator("#line-3 textarea[name=words]")).to_be_visible()


def test_a_click_while_the_search_is_still_loading_lands(open_card):
    from playwright.sync_api import expect

    page = open_card("click")
    page.locator("form.toolbar input[name=q]").press_sequentially("lava", delay=20)
    page.locator("#pick-9").click()  # before the search's answer is back
    page.locator("#line-9").get_by_role("link", name="Edit").click()
    _settled(page)
    expect(page.locator("#shown-count")).to_contain_text("1 of 20 lines match")
    expect(page.locator("#line-9 textarea[name=words]")).to_be_visible()
    expect(page.locator("#select-form .sel-count")).to_have_text("1 selected")


def _pointer_on(page, target) -> dict:  # noqa: ANN001
    """The mouse over the middle of `target`, scrolled into view; its box."""
    target.scroll_into_view_if_needed()
    box = target.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    return box


def _press_while_searching(page, target) -> dict:  # noqa: ANN001
    """The mouse pressed on `target`, then a search for "lava" replaces the list under it (the button still down)."""
    from playwright.sync_api import expect

    box = _pointer_on(page, target)
    page.mouse.down()
    page.eval_on_selector("form.toolbar input[name=q]", "(q) => { q.value = 'lava'; htmx.trigger(q.form, 'submit'); }")
    expect(page.locator("#shown-count")).to_contain_text("1 of 20 lines match")
    return box


def test_a_box_pressed_as_the_search_replaces_the_list_is_ticked_on_release(open_card):
    from playwright.sync_api import expect

    page = open_card("press")
    _press_while_searching(page, page.locator("#pick-9"))  # pressed on the list as it was; the list under it is new
    page.mouse.up()
    _settled(page)
    expect(page.locator("#pick-9")).to_be_checked()
    expect(page.locator("#select-form .sel-count")).to_have_text("1 selected")


def test_a_box_pressed_as_the_search_replaces_the_list_and_slid_off_is_not_ticked(open_card):
    from playwright.sync_api import expect

    page = open_card("slid")
    box = _press_while_searching(page, page.locator("#pick-9"))
    page.mouse.move(box["x"] + 200, box["y"] + 120)  # away from where he pressed: a click taken back
    page.mouse.up()
    _settled(page)
    expect(page.locator("#pick-9")).not_to_be_checked()
    expect(page.locator("#select-form .sel-count")).to_have_text("")


def test_a_box_pressed_as_its_line_becomes_a_form_is_listed_with_its_words(open_card):
    from playwright.sync_api import expect

    page = open_card("press-form")
    _pointer_on(page, page.locator("#pick-9"))
    page.mouse.down()
    page.eval_on_selector(
        "#line-9", "(li) => htmx.ajax('GET', location.pathname + 'lines/9/edit/', {target: li, swap: 'outerHTML'})"
    )
    expect(page.locator("#line-9 textarea[name=words]")).to_be_visible()  # the line under the press is its form
    page.mouse.up()
    bar = page.locator("#select-form")
    expect(bar.locator(".sel-count")).to_have_text("1 selected")
    expect(bar.locator(".sel-list li")).to_contain_text("#9 Lava tiles hurt even at the edge.")


def test_an_edit_pressed_as_the_search_replaces_the_list_opens_on_release(open_card):
    from playwright.sync_api import expect

    page = open_card("press-edit")
    _press_while_searching(page, page.locator("#line-9").get_by_role("link", name="Edit"))
    page.mouse.up()
    _settled(page)
    expect(page.locator("#line-9 textarea[name=words]")).to_be_visible()


# ----- 2. ticks survive a new search and stay listed in the selection bar -------------------------------------


def test_ticks_survive_a_new_search_and_a_merge_takes_them_all(open_card):
    from playwright.sync_api import expect

    page = open_card("ticks")
    search = page.locator("form.toolbar input[name=q]")
    search.press_sequentially("bridge", delay=20)
    expect(page.locator("#shown-count")).to_contain_text("2 of 20 lines match")
    page.locator("#pick-1").click()
    search.fill("")
    search.press_sequentially("rupees", delay=20)
    expect(page.locator("#shown-count")).to_contain_text("of 20 lines match")
    expect(page.locator("#line-1")).to_have_count(0)  # hidden by this search, still ticked
    page.locator("#pick-6").click()
    page.locator("#pick-19").click()
    bar = page.locator("#select-form")
    expect(bar.locator(".sel-count")).to_have_text("3 selected")
    expect(bar.locator(".sel-list li")).to_have_count(3)
    expect(bar.locator(".sel-list li").first).to_contain_text("#1 Roll after the second swing")
    bar.get_by_role("button", name="Remove #19 from the selection").click()
    expect(bar.locator(".sel-count")).to_have_text("2 selected")
    expect(page.locator("#pick-19")).not_to_be_checked()
    bar.get_by_role("button", name="Merge", exact=True).click()
    bar.get_by_label("Words", exact=True).fill("Roll past the guard; rupees come back.")
    bar.get_by_label("Reason").fill("one visit")
    bar.get_by_role("button", name="Merge", exact=True).click()
    expect(bar.locator(".sel-done")).to_have_text("Merged #1, #6 into new line #21.")
    expect(page.locator("li.line.fresh .words")).to_have_text("Roll past the guard; rupees come back.")
    expect(bar.locator(".sel-count")).to_have_text("")
    expect(page.locator("#summary")).to_contain_text("19 live lines")


# ----- 3, 4. the counts follow an action inside a search; Retire selected says so where he looks -----------------


def test_counts_and_the_review_banner_follow_a_save_and_a_retire_inside_a_search(open_card):
    from playwright.sync_api import expect

    page = open_card("counts", query="?q=save")
    expect(page.locator("#shown-count")).to_contain_text("2 of 20 lines match")
    expect(page.locator("#review-bar")).to_contain_text("20 lines new to you")
    line = page.locator("#line-2")
    line.get_by_role("link", name="Edit").click()
    line.get_by_label("Words", exact=True).fill("Save before the boss door: it keeps the small keys.")
    line.get_by_label("Reason").fill("clearer")
    line.get_by_role("button", name="Save").click()
    expect(line.locator(".line-note")).to_have_text("Saved line #2.")
    expect(page.locator("#shown-count")).to_contain_text("2 of 20 lines match")
    page.locator("#line-7").get_by_role("link", name="Retire").click()
    page.locator("#line-7").get_by_label("Reason").fill("said by #2")
    page.locator("#line-7").get_by_role("button", name="Retire").click()
    expect(page.locator("#line-7")).to_contain_text("Line #7 is retired")
    expect(page.locator("#shown-count")).to_contain_text("1 of 19 lines match")
    expect(page.locator("#summary")).to_contain_text("19 live lines")
    expect(page.locator("#review-bar")).to_contain_text("19 lines new to you")


def test_retire_selected_confirms_in_the_bar_he_pressed(open_card):
    from playwright.sync_api import expect

    page = open_card("counts", query="?q=lava")
    page.locator("#pick-9").click()
    bar = page.locator("#select-form")
    bar.get_by_role("button", name="Retire selected").click()
    bar.get_by_label("Reason").fill("not a lesson")
    bar.get_by_role("button", name="Retire selected").click()
    done = bar.locator(".sel-done")
    expect(done).to_have_text("Retired #9.")
    expect(done).to_be_in_viewport(ratio=1)
    expect(page.locator("#shown-count")).to_contain_text("0 of")


# ----- 6. text over a limit: a counter as he types, refused whole, never cut --------------------------------------


def test_a_paste_over_the_limit_is_counted_refused_and_kept_whole(open_card):
    from playwright.sync_api import expect

    page = open_card("limits")
    form = page.locator("#add-form")
    words = form.get_by_label("Words", exact=True)
    words.fill("x" * 3_980)
    counter = form.locator(".counter[data-for=add-words]")
    expect(counter).to_have_text("3,980 / 4,000")
    pasted = "y" * 5_000
    words.fill(pasted)  # as a paste: one input event, no cut
    expect(words).to_have_value(pasted)
    expect(counter).to_contain_text("5,000 / 4,000: 1,000 too many")
    form.get_by_label("Reason").fill("a long one")
    form.get_by_role("button", name="Add line").click()
    expect(page.locator("#add-form .error")).to_contain_text("Too long: 5,000 characters")
    expect(page.locator("#add-form").get_by_label("Words", exact=True)).to_have_value(pasted)
    expect(page.locator("#summary")).to_contain_text("20 live lines")


# ----- 7. a draft typed while the sign-in lapsed comes back after signing in ----------------------------------------


def test_a_draft_typed_while_the_sign_in_expired_comes_back_after_signing_in(browser, site):
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        page.goto(f"{site}/notebooks/draft/?q=torches")
        fill_sign_in(page, PASSWORD)
        page.wait_for_url("**/notebooks/draft/**")
        line = page.locator("#line-3")
        line.get_by_role("link", name="Edit").click()
        draft = "Torches burn out after a minute: carry two."
        line.get_by_label("Words", exact=True).fill(draft)
        line.get_by_label("Reason").fill("she ran out")
        context.clear_cookies(name="sessionid")  # signed out meanwhile (expired, or another tab)
        line.get_by_role("button", name="Save").click()
        page.wait_for_url("**/accounts/login/**")
        assert "next=%2Fnotebooks%2Fdraft%2F%3Fq%3Dtorches" in page.url
        fill_sign_in(page, PASSWORD)
        page.wait_for_url("**/notebooks/draft/?q=torches")
        page.locator("#line-3").get_by_role("link", name="Edit").click()
        expect(page.locator("#line-3").get_by_label("Words", exact=True)).to_have_value(draft)
        expect(page.locator("#line-3").get_by_label("Reason")).to_have_value("she ran out")
        expect(page.locator("#line-3 .draft-back")).to_be_visible()
        page.locator("#line-3").get_by_role("button", name="Save").click()
        expect(page.locator("#line-3 .words")).to_have_text(draft)
        page.locator("#line-3").get_by_role("link", name="Edit").click()  # saved: no draft left to bring back
        expect(page.locator("#line-3").get_by_label("Reason")).to_have_value("")
    finally:
        context.close()


# ----- 8. a phone (390x844): the first line in the first screen, 44 px targets, nothing covers what it acts on -------


def _box(page, selector: str) -> dict:  # noqa: ANN001
    return page.locator(selector).first.bounding_box()


def test_on_a_phone_the_first_line_is_in_the_first_screen_and_targets_are_44_px(open_card):
    from playwright.sync_api import expect

    page = open_card("phone", 390, 844)
    first = _box(page, "li.line")
    assert first["y"] + first["height"] <= 844, first
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path="/tmp/cardflow/phone-first-screen.png")
    for selector in ("#line-1 .pick-hit", "#line-1 a.act >> nth=0", "#line-1 a.act >> nth=1", "#line-1 a.act >> nth=2"):
        box = page.locator(selector).bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, (selector, box)
    # The tap on the tick's larger area ticks it.
    box = _box(page, "#line-1 .pick-hit")
    page.mouse.click(box["x"] + 3, box["y"] + box["height"] - 3)
    expect(page.locator("#pick-1")).to_be_checked()
    # The filters folded away are one tap away.
    toolbar = page.locator("form.toolbar")
    expect(toolbar.get_by_label("Source")).to_be_hidden()
    toolbar.get_by_role("button", name="More filters").click()
    expect(toolbar.get_by_label("Source")).to_be_visible()


def test_on_a_phone_the_selection_bar_and_an_edit_form_cover_none_of_their_lines(open_card):
    from playwright.sync_api import expect

    page = open_card("phone", 390, 844)
    for n in (4, 5):
        page.locator(f"#line-{n} .pick-hit").click()
    bar = page.locator("#select-form")
    expect(bar.locator(".sel-count")).to_have_text("2 selected")

    def covered(n: int) -> bool:
        line, over = page.locator(f"#line-{n}").bounding_box(), bar.bounding_box()
        return line["y"] < over["y"] + over["height"] and over["y"] < line["y"] + line["height"]

    assert not covered(4) and not covered(5)
    inside = bar.bounding_box()
    for item in bar.locator(".sel-list li").all():  # the ticked lines listed in the bar, within it
        box = item.bounding_box()
        assert box["x"] >= inside["x"] and box["x"] + box["width"] <= inside["x"] + inside["width"] + 1, box
    bar.get_by_role("button", name="Merge", exact=True).click()
    expect(bar.get_by_label("Words", exact=True)).to_be_focused()
    page.wait_for_timeout(300)
    for n in (4, 5):
        page.locator(f"#line-{n}").scroll_into_view_if_needed()
        assert not covered(n), n
    page.screenshot(path="/tmp/cardflow/phone-merge-open.png", full_page=True)
    # A line's edit form stands in the line's place: the lines around it stay where they are, uncovered.
    page.locator("#line-8 a.act", has_text="Edit").click()
    form = page.locator("#line-8 form.line-form")
    expect(form).to_be_visible()
    box, below = form.bounding_box(), page.locator("#line-9").bounding_box()
    assert box["y"] + box["height"] <= below["y"] + 1, (box, below)
    page.locator("#line-8").screenshot(path="/tmp/cardflow/phone-edit-form.png")


def test_at_1280_the_toolbar_is_one_row_and_every_filter_shows(open_card):
    from playwright.sync_api import expect

    page = open_card("wide", 1280, 900)
    toolbar = page.locator("form.toolbar")
    for label in ("Search", "Match", "Source", "Show", "As of"):
        expect(toolbar.get_by_label(label).first).to_be_visible()
    expect(toolbar.get_by_role("button", name="More filters")).to_be_hidden()
    page.locator("#pick-3").click()
    page.screenshot(path="/tmp/cardflow/wide.png")
    assert toolbar.bounding_box()["height"] <= 100, toolbar.bounding_box()  # one row, as before the Match control
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
