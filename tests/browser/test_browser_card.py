"""Dad's card in a real browser: Playwright drives Debian's Chromium against a live server on its own SQLite file.

pytest-django's live_server flushes tables, which the append-only triggers refuse, so the server here is a
`manage.py runserver` subprocess on a temporary database, migrated and seeded through manage.py. These tests fail,
never skip, when Chromium or Playwright is missing.
"""

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.browser.support import Server, fill_sign_in, save_sign_in, sign_in

# Only the SQLite part runs it: its site always ran on SQLite, and nothing it tests depends on the database.
pytestmark = [pytest.mark.browser, pytest.mark.vendor("sqlite")]

SCRIPT_LINE = "<script>alert(1)</script>"
IMG_LINE = '<img src=x onerror="window.__pwned = 1; alert(2)">'


def _seed(server: Server) -> None:
    server.run("notebook", "demo", "--title", "zelda")  # lines 1-17, added over the last ten days
    for words in (SCRIPT_LINE, IMG_LINE):  # lines 18 and 19
        server.run(
            "notebook", "add", "zelda", words, "--source", "seen", "--by", "pippa", "--why", "markup must stay text"
        )


@pytest.fixture(scope="module")
def card_server(live_sites) -> Iterator[Server]:  # noqa: ANN001
    with live_sites.serve("card-browser", _seed) as server:
        yield server


@pytest.fixture(scope="module")
def signed_in(browser, card_server, tmp_path_factory):  # noqa: ANN001, ANN201
    """Dad's session cookie, signed in once (the password hash is deliberately slow) and reused by each test."""
    path = tmp_path_factory.mktemp("card-session") / "state.json"
    return save_sign_in(browser, card_server.url, card_server.password, path)


@pytest.fixture
def page(browser, card_server, signed_in):  # noqa: ANN001, ANN201
    """A signed-in page on the card; fails the test on any uncaught script error or any dialog."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, storage_state=signed_in)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    dialogs: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def on_dialog(dialog) -> None:  # noqa: ANN001
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.goto(f"{card_server.url}/notebooks/zelda/")
    page.evaluate("window.__same_page = true")  # gone if an action reloads the page instead of swapping
    yield page
    context.close()
    assert errors == [], f"script errors: {errors}"
    assert dialogs == [], f"dialogs opened: {dialogs}"


def _swapped_in_place(page) -> bool:  # noqa: ANN001
    return page.evaluate("window.__same_page === true")


def test_sign_in_leads_to_the_notebooks(browser, card_server):
    from playwright.sync_api import expect

    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{card_server.url}/notebooks/zelda/")
    expect(page).to_have_url(f"{card_server.url}/accounts/login/?next=/notebooks/zelda/")
    fill_sign_in(page, card_server.password)
    expect(page.get_by_role("heading", level=1)).to_contain_text("zelda")
    expect(page.locator("#line-1")).to_be_visible()
    assert page.evaluate("typeof htmx") == "object"
    context.close()


def test_edit_a_line_with_a_reason(page):
    from playwright.sync_api import expect

    line = page.locator("#line-1")
    line.get_by_role("link", name="Edit").click()
    line.get_by_label("Words", exact=True).fill("Roll after the guard's second swing, then strike.")
    line.get_by_label("Reason").fill("clearer for her")
    line.get_by_role("button", name="Save").click()
    expect(line.locator(".words")).to_have_text("Roll after the guard's second swing, then strike.")
    expect(line.locator(".tag")).to_contain_text("Dad's correction")
    expect(line.locator(".num")).to_have_text("#1")
    assert _swapped_in_place(page)


def test_saving_without_a_reason_is_refused_in_place_and_keeps_the_draft(page, card_server):
    from playwright.sync_api import expect

    line = page.locator("#line-4")
    line.get_by_role("link", name="Edit").click()
    line.get_by_label("Words", exact=True).fill("My draft words")
    line.get_by_role("button", name="Save").click()
    expect(line.locator(".error")).to_have_text("A reason is required: say why, in a few words.")
    expect(line.get_by_label("Words", exact=True)).to_have_value("My draft words")
    expect(line.get_by_label("Reason")).to_be_focused()
    assert _swapped_in_place(page)
    page.goto(f"{card_server.url}/notebooks/zelda/")
    expect(page.locator("#line-4 .words")).to_have_text("Torches burn out after a minute; light the next one in time.")


def test_a_stale_edit_is_refused_with_the_current_words_and_the_draft_kept(page, card_server):
    from playwright.sync_api import expect

    line = page.locator("#line-5")
    line.get_by_role("link", name="Edit").click()
    line.get_by_label("Words", exact=True).fill("Arrows are cheaper after the second dungeon.")
    line.get_by_label("Reason").fill("she checked")
    meanwhile = "Arrows cost 10 after dungeon 2."
    card_server.run("notebook", "edit", "zelda", "5", meanwhile, "--by", "pippa", "--why", "saw")
    line.get_by_role("button", name="Save").click()
    expect(line.locator(".errors")).to_contain_text("changed since you read it")
    expect(line.locator(".current .words")).to_have_text(meanwhile)
    expect(line.get_by_label("Words", exact=True)).to_have_value("Arrows are cheaper after the second dungeon.")
    expect(line.get_by_label("Reason")).to_have_value("she checked")
    line.get_by_role("button", name="Save").click()  # now knowingly replacing the current words
    expect(line.locator(".words")).to_have_text("Arrows are cheaper after the second dungeon.")
    assert _swapped_in_place(page)


def test_retire_a_line_leaves_a_notice_linking_to_its_history(page):
    from playwright.sync_api import expect

    line = page.locator("#line-7")
    line.get_by_role("link", name="Retire").click()
    line.get_by_label("Reason").fill("not about the game")
    line.get_by_role("button", name="Retire").click()
    expect(line).to_contain_text("Line #7 is retired")
    line.get_by_role("link", name="See its history").click()
    expect(line.locator(".history")).to_contain_text("The look command was refused twice today.")
    expect(line.locator(".history")).to_contain_text("not about the game")
    assert _swapped_in_place(page)


def test_add_a_line(page):
    from playwright.sync_api import expect

    form = page.locator("#add-form")
    form.get_by_label("Words", exact=True).fill("Grab the key before the switch closes the door.")
    form.get_by_label("Reason").fill("she keeps missing it")
    form.get_by_role("button", name="Add line").click()
    fresh = page.locator("li.fresh")
    expect(fresh.locator(".line-note")).to_contain_text("Added line #")
    expect(fresh).to_be_focused()
    expect(fresh.locator(".words")).to_have_text("Grab the key before the switch closes the door.")
    expect(fresh.locator(".tag")).to_have_text("■Dad")
    assert _swapped_in_place(page)


def test_merge_selected_lines(page):
    from playwright.sync_api import expect

    page.get_by_label("Select line #8").check()
    page.get_by_label("Select line #9").check()
    form = page.locator("#select-form")
    expect(form.locator(".sel-count")).to_have_text("2 selected")
    form.get_by_role("button", name="Merge", exact=True).click()  # opens the words and reason
    merged = "Keese circle in eights and rupees respawn: wait, then collect."
    form.get_by_label("Words", exact=True).fill(merged)
    form.get_by_label("Reason").fill("two lines, one lesson")
    form.get_by_role("button", name="Merge", exact=True).click()
    expect(page.locator("li.fresh .line-note")).to_contain_text("Merged #8, #9 into new line #")
    expect(page.locator("#line-8")).to_have_count(0)  # the merged line stands in its place
    expect(page.locator("#line-9")).to_contain_text("Line #9 was merged into #")
    expect(page.locator("li.fresh .words")).to_have_text(merged)
    assert _swapped_in_place(page)


def test_retire_selected_lines(page):
    from playwright.sync_api import expect

    page.get_by_label("Select line #15").check()
    page.get_by_label("Select line #16").check()
    form = page.locator("#select-form")
    form.get_by_role("button", name="Retire selected").click()  # opens the reason
    form.get_by_label("Reason").fill("slipped through: not about the game")
    form.get_by_role("button", name="Retire selected").click()
    expect(page.locator("#announce")).to_have_text("Retired #15, #16.")
    expect(page.locator("#line-15")).to_contain_text("Line #15 is retired")
    expect(page.locator("#line-16")).to_contain_text("Line #16 is retired")
    assert _swapped_in_place(page)


def test_open_and_hide_the_history_of_a_line(page):
    from playwright.sync_api import expect

    line = page.locator("#line-2")
    line.get_by_role("link", name="History").click()
    history = line.locator(".history")
    expect(history).to_contain_text("Always attack first.")
    expect(history).to_contain_text("Block first, then attack after his swing.")
    expect(history).to_contain_text("attacking first got her killed")
    history.get_by_role("link", name="Hide history").click()
    expect(line.locator(".history")).to_have_count(0)
    assert _swapped_in_place(page)


def test_as_of_shows_the_notebook_frozen_and_read_only(page, card_server):
    from playwright.sync_api import expect

    when = datetime.fromtimestamp(card_server.seeded_at - 5.5 * 86400, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")
    page.get_by_label("As of").fill(when)
    page.get_by_role("button", name="Show").click()
    expect(page.locator(".frozen")).to_contain_text("Frozen view: read-only.")
    expect(page.locator("#line-1")).to_be_visible()
    expect(page.locator("#line-17")).to_have_count(0)  # added since
    expect(page.get_by_role("link", name="Edit")).to_have_count(0)
    expect(page.get_by_role("button", name="Add line")).to_have_count(0)
    assert "as_of=" in page.url


def test_markup_in_a_line_shows_as_text_and_runs_nothing(page):
    from playwright.sync_api import expect

    expect(page.locator("#line-18 .words")).to_have_text(SCRIPT_LINE)
    expect(page.locator("#line-19 .words")).to_have_text(IMG_LINE)
    assert page.locator("#lines-region img").count() == 0
    page.locator("#line-19").get_by_role("link", name="History").click()
    expect(page.locator("#line-19 .history")).to_contain_text(IMG_LINE)
    page.locator("#line-18").get_by_role("link", name="Edit").click()
    expect(page.locator("#line-18").get_by_label("Words", exact=True)).to_have_value(SCRIPT_LINE)
    page.wait_for_timeout(300)
    assert page.evaluate("window.__pwned") is None  # the page fixture also fails on any dialog


def test_every_action_works_without_javascript(browser, card_server):
    from playwright.sync_api import expect

    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    sign_in(page, card_server.url, card_server.password)
    page.goto(f"{card_server.url}/notebooks/zelda/")
    page.locator("#line-10").get_by_role("link", name="Edit").click()
    line = page.locator("#line-10")
    line.get_by_label("Words", exact=True).fill("Save before the boss door.")
    line.get_by_role("button", name="Save").click()
    expect(line.locator(".error")).to_contain_text("A reason is required")
    line.get_by_label("Reason").fill("shorter")
    line.get_by_role("button", name="Save").click()
    expect(page.locator("#line-10 .words")).to_have_text("Save before the boss door.")
    page.locator("#line-13").get_by_role("link", name="Retire").click()
    page.locator("#line-13").get_by_label("Reason").fill("a guess that never held")
    page.locator("#line-13").get_by_role("button", name="Retire").click()
    expect(page.locator(".retired-notice")).to_contain_text("Line #13 is retired")
    context.close()


def test_redact_words_from_a_lines_history(page, tmp_path):
    from playwright.sync_api import expect

    out = Path(os.environ.get("NOTEBOOKS_SCREENSHOTS") or tmp_path)
    line = page.locator("#line-12")
    line.get_by_role("link", name="History").click()
    line.locator(".history").get_by_role("link", name="Redact these words…").click()
    expect(line).to_contain_text("Redact words of line #12")
    expect(line.locator("blockquote")).to_have_text("Lava tiles hurt even at the edge.")
    line.get_by_label("Reason").fill("a private note, not a lesson")
    line.screenshot(path=str(out / "card-redact-form.png"))
    line.get_by_role("button", name="Redact for good").click()
    expect(line.locator(".words").first).to_have_text("[redacted: a private note, not a lesson]")
    expect(line.locator(".history")).to_contain_text("redacted words")
    expect(line).not_to_contain_text("Lava tiles hurt")
    line.screenshot(path=str(out / "card-redacted.png"))
    assert _swapped_in_place(page)


def test_the_card_fits_a_phone_and_a_wide_screen(browser, card_server, signed_in, tmp_path):
    from playwright.sync_api import expect

    out = Path(os.environ.get("NOTEBOOKS_SCREENSHOTS") or tmp_path)
    for width, height, name in ((1280, 1000, "card-wide.png"), (390, 844, "card-narrow.png")):
        context = browser.new_context(viewport={"width": width, "height": height}, storage_state=signed_in)
        page = context.new_page()
        page.goto(f"{card_server.url}/notebooks/zelda/")
        if width > 1000:  # reviewed, then one new line of hers (highlighted); line 2's history shows its edit
            page.get_by_role("button", name="Mark reviewed").click()
            expect(page.locator(".review")).to_contain_text("0 new or changed")
            words, why = "The shrine's door opens only at night.", "seen at dusk"
            card_server.run("notebook", "add", "zelda", words, "--source", "seen", "--by", "pippa", "--why", why)
            page.goto(f"{card_server.url}/notebooks/zelda/")
            expect(page.locator("li.line.is-new")).to_have_count(1)
            page.locator("#line-2").get_by_role("link", name="History").click()
            expect(page.locator("#line-2 .history ins").first).to_be_visible()
            expect(page.locator("#line-2 .history")).to_be_visible()
            for n in (4, 6):  # the selection bar, in view with its count
                page.locator(f"#pick-{n}").check()
            expect(page.locator("#select-form .sel-count")).to_have_text("2 selected")
            page.evaluate("window.scrollTo(0, 0)")
        assert page.evaluate("document.documentElement.scrollWidth") <= width, f"sideways scroll at {width}px"
        page.screenshot(path=str(out / name))
        assert (out / name).stat().st_size > 10_000
        context.close()


def test_the_guides_pictures_show_similar_lines_history_and_a_retired_line(browser, card_server, signed_in, tmp_path):
    """The pictures of docs/card.md (`make screenshots`), on a notebook of their own so the others' lines stay put."""
    from playwright.sync_api import expect

    out = Path(os.environ.get("NOTEBOOKS_SCREENSHOTS") or tmp_path)
    card_server.run("notebook", "demo", "--title", "zelda-guide")
    for words, source in (
        ("The bridge guard swings twice, so roll after his second swing.", "seen"),
        ("Rupees under bushes never respawn.", "guessed"),
    ):
        card_server.run("notebook", "add", "zelda-guide", words, "--source", source, "--by", "pippa", "--why", "play")
    card = f"{card_server.url}/notebooks/zelda-guide/"
    for width, height, name in ((1280, 900, "card-similar.png"), (390, 844, "card-similar-narrow.png")):
        context = browser.new_context(viewport={"width": width, "height": height}, storage_state=signed_in)
        page = context.new_page()
        page.goto(f"{card}?show=similar")
        groups = page.locator("section.similar-group")
        expect(groups.first).to_be_visible()
        shown = groups.locator("li.similar-line").evaluate_all("e => e.map(x => Number(x.dataset.n))")
        assert {1, 18} <= set(shown) and {9, 19} <= set(shown), shown  # the repeat and the contradiction
        assert page.evaluate("document.documentElement.scrollWidth") <= width, f"sideways scroll at {width}px"
        page.locator("#similar-title").evaluate("e => e.scrollIntoView()")  # the groups, not the toolbar
        page.screenshot(path=str(out / name))
        context.close()

    context = browser.new_context(viewport={"width": 1280, "height": 900}, storage_state=signed_in)
    page = context.new_page()
    page.goto(card)
    line = page.locator("#line-2")  # Dad corrected it in the demo: its history shows the edit word by word
    line.get_by_role("link", name="History").click()
    expect(line.locator(".history ins").first).to_be_visible()
    line.screenshot(path=str(out / "card-history.png"))
    line = page.locator("#line-7")  # not about the game
    line.get_by_role("link", name="Retire").click()
    line.get_by_label("Reason").fill("not about the game")
    line.get_by_role("button", name="Retire").click()
    expect(page.locator("#line-7.retired-notice")).to_contain_text("Restore")
    page.locator("#line-7").screenshot(path=str(out / "card-retired.png"))
    context.close()
    for name in ("card-similar.png", "card-similar-narrow.png", "card-history.png", "card-retired.png"):
        assert (out / name).stat().st_size > 3_000, name
