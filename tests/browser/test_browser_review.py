"""Dad's review in a real browser (Playwright, Debian's Chromium), on the suite's database (SQLite, or PostgreSQL
with DATABASE_URL): new since his review, the Retired list and Restore, older words put back, diffs in a line's
history, and times in his browser's time zone. A `manage.py runserver` on a scratch database (tests/databases.py)."""

import re
from collections.abc import Iterator
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tests.browser.support import Server, save_sign_in

pytestmark = pytest.mark.browser
PASSWORD = "review-browser-test-password"


def _seed(server: Server) -> None:
    server.run("notebook", "demo", "--title", "zelda")  # lines 1-17


@pytest.fixture(scope="module")
def review_server(live_sites) -> Iterator[Server]:  # noqa: ANN001
    with live_sites.serve("review-browser", _seed, password=PASSWORD) as server:
        yield server


@pytest.fixture(scope="module")
def signed_in(browser, review_server, tmp_path_factory):  # noqa: ANN001, ANN201
    path = tmp_path_factory.mktemp("review-session") / "state.json"
    return save_sign_in(browser, review_server.url, PASSWORD, path)


def _open(browser, server: Server, state: str, **options):  # noqa: ANN001, ANN003, ANN202
    """A signed-in page on the card that fails the test on any script error or dialog."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, storage_state=state, **options)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("dialog", lambda dialog: (errors.append(dialog.message), dialog.dismiss()))
    page.goto(f"{server.url}/notebooks/zelda/")
    return context, page, errors


@pytest.fixture
def page(browser, review_server, signed_in):  # noqa: ANN001, ANN201
    context, page, errors = _open(browser, review_server, signed_in)
    yield page
    context.close()
    assert errors == [], f"script errors or dialogs: {errors}"


def test_lines_an_agent_writes_after_mark_reviewed_are_highlighted_and_counted(page, review_server):
    from playwright.sync_api import expect

    expect(page.locator(".review")).to_contain_text("not marked this notebook reviewed yet")
    expect(page.locator("#line-1.is-new")).to_have_count(1)  # before his first review, everything is new
    page.get_by_role("button", name="Mark reviewed").click()
    expect(page.locator(".note")).to_contain_text("Marked reviewed")
    expect(page.locator(".review")).to_contain_text("0 new or changed since you reviewed on")
    expect(page.locator("li.is-new")).to_have_count(0)
    review_server.run("notebook", "add", "zelda", "The lynel guards the east gate.", "--source", "seen",
                      "--by", "pippa", "--why", "seen in play")  # fmt: skip
    review_server.run("notebook", "edit", "zelda", "4", "Torches burn out after ninety seconds.", "--by", "pippa",
                      "--why", "timed it")  # fmt: skip
    page.reload()
    expect(page.locator(".review")).to_contain_text("2 new or changed since you reviewed on")
    expect(page.locator(".review")).to_contain_text("by pippa")
    added = page.locator("#line-18")
    expect(added).to_have_class(re.compile(r"\bis-new\b"))
    expect(added.locator(".review-badge")).to_have_text("new")
    expect(page.locator("#line-4")).to_have_class(re.compile(r"\bis-new\b"))
    expect(page.locator("#line-4 .review-badge")).to_have_text("changed")
    expect(page.locator("li.is-new")).to_have_count(2)
    expect(page.locator("#line-1")).not_to_have_class(re.compile(r"\bis-new\b"))
    page.get_by_label("Show", exact=True).select_option("new")
    expect(page.locator("#lines-region li.line")).to_have_count(2)
    page.goto(f"{review_server.url}/")
    expect(page.get_by_role("link", name="2 new since your review")).to_be_visible()


def test_a_retired_line_is_found_under_retired_and_restored_with_a_reason(page, review_server):
    from playwright.sync_api import expect

    review_server.run("notebook", "retire", "zelda", "7", "--by", "dad", "--why", "thought it was not about the game")
    page.get_by_label("Show", exact=True).select_option("retired")
    item = page.locator("#line-7")
    expect(item).to_contain_text("The look command was refused twice today.")
    expect(item).to_contain_text("thought it was not about the game")
    expect(item).to_contain_text("by dad")
    item.get_by_role("button", name="Restore").click()
    expect(item).to_contain_text("Restore line #7")  # the form stands in its place
    item.get_by_role("button", name="Restore").click()  # without a reason: refused in place
    expect(item.locator(".error")).to_contain_text("A reason is required")
    item.get_by_label("Reason").fill("it was about the game after all")
    item.get_by_role("button", name="Restore").click()
    expect(page.locator(".note")).to_contain_text("Restored line #7: its words are back as line #")
    number = re.search(r"as line #(\d+)", page.locator(".note").inner_text()).group(1)
    expect(page.locator("#line-7")).to_contain_text(f"restored as #{number}")
    page.locator("#line-7").get_by_role("button", name="History").click()
    history = page.locator("#line-7 .history")
    expect(history).to_contain_text(f"restored as #{number}")
    expect(history).to_contain_text("it was about the game after all")
    page.goto(f"{review_server.url}/notebooks/zelda/")
    restored = page.locator(f"#line-{number}")
    expect(restored.locator(".words")).to_have_text("The look command was refused twice today.")
    restored.get_by_role("link", name="History").click()
    expect(restored.locator(".history")).to_contain_text("restored from #7")
    expect(restored.locator(".history")).to_contain_text("it was about the game after all")


def test_an_older_version_is_put_back_with_a_reason_and_shown_in_history(page):
    from playwright.sync_api import expect

    line = page.locator("#line-2")
    expect(line.locator(".words")).to_have_text("Block first, then attack after his swing.")
    line.get_by_role("link", name="History").click()
    line.locator(".history").get_by_role("link", name="Put these words back…").first.click()
    expect(line).to_contain_text("Put older words back in line #2")
    line.get_by_role("button", name="Put these words back").click()
    expect(line.locator(".error")).to_contain_text("A reason is required")
    line.get_by_label("Reason").fill("her first guess was right here")
    line.get_by_role("button", name="Put these words back").click()
    expect(line.locator(".words").first).to_have_text("Always attack first.")
    expect(line.locator(".line-note")).to_contain_text("Put back older words of line #2.")
    history = line.locator(".history")
    expect(history).to_contain_text("older words put back")
    expect(history).to_contain_text("her first guess was right here")


def test_an_edits_history_shows_inserted_and_deleted_words(page, review_server):
    from playwright.sync_api import expect

    review_server.run("notebook", "edit", "zelda", "5", "The shop keeper sells bombs cheaper after the first dungeon.",
                      "--by", "dad", "--why", "she misread the sign")  # fmt: skip
    page.reload()
    line = page.locator("#line-5")
    line.get_by_role("link", name="History").click()
    diff = line.locator(".history .diff").last
    expect(diff.locator("del")).to_have_text(["arrows", "second"])
    expect(diff.locator("ins")).to_have_text(["bombs", "first"])
    expect(line.locator(".history ins")).to_have_count(2)


def test_with_the_browser_in_new_york_the_card_shows_new_york_times(browser, review_server, signed_in):
    from playwright.sync_api import expect

    context, page, errors = _open(browser, review_server, signed_in, timezone_id="America/New_York")
    try:
        expect(page.locator("html")).to_have_attribute("data-zone", "America/New_York")  # after zone.js told it
        stamp = page.locator("#line-1 time")
        utc = stamp.get_attribute("datetime")
        shown = datetime.fromisoformat(utc).astimezone(ZoneInfo("America/New_York")).strftime("%Y-%m-%d %H:%M")
        expect(stamp).to_have_text(shown)
        expect(stamp).to_have_attribute("title", re.compile(r" UTC$"))
        assert shown != datetime.fromisoformat(utc).strftime("%Y-%m-%d %H:%M")  # not UTC: five hours apart
        expect(page.locator("label[for=view-as_of]")).to_contain_text("America/New_York")
    finally:
        context.close()
    assert errors == []
