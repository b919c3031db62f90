"""Move to notebook… in a real browser: from a line's actions and from the selection bar, answered in place."""

from collections.abc import Iterator

import pytest

from tests.browser.support import Server, open_signed_in

# Only the SQLite part runs it: its site always ran on SQLite, and nothing it tests depends on the database.
pytestmark = [pytest.mark.browser, pytest.mark.vendor("sqlite")]


def _seed(server: Server) -> None:
    server.run("notebook", "demo", "--title", "zelda")
    server.run("notebook", "create", "zelda heading")
    for words in ("the owl statue saves", "the fairy fountain heals", "deku nuts stun"):
        server.run("notebook", "add", "zelda heading", words, "--source", "seen", "--by", "pippa", "--why", "seen")


@pytest.fixture(scope="module")
def server(live_sites) -> Iterator[tuple[str, str]]:  # noqa: ANN001
    """A card server on its own SQLite file: zelda (the demo's 17 lines) and a stray notebook of three lines."""
    with live_sites.serve("move-browser", _seed) as site:
        yield site.url, site.password


@pytest.fixture
def page(browser, server):  # noqa: ANN001, ANN201
    """Signed in as dad on the stray notebook's card; fails the test on any script error."""
    context, page, errors = open_signed_in(browser, *server, "/notebooks/zelda%20heading/")
    page.evaluate("window.__same_page = true")  # gone if an action reloads the page instead of swapping
    yield page
    context.close()
    assert errors == [], f"script errors: {errors}"


def test_move_a_line_from_its_actions(page):
    from playwright.sync_api import expect

    page.locator("#line-1").focus()
    page.keyboard.press("m")  # the line's Move…, as its link opens it
    form = page.locator("#line-1 form")
    form.get_by_label("To notebook").select_option("zelda")
    form.get_by_label("Reason").fill("written under a wrong title")
    form.get_by_role("button", name="Move").click()
    expect(page.locator("#line-1")).to_contain_text("Line #1 was moved to zelda #18")
    expect(page.locator("#announce")).to_have_text("Moved line #1 to zelda as line #18.")
    assert page.evaluate("window.__same_page === true")


def test_move_selected_opens_the_notebook_then_moves_the_ticked_lines(page):
    from playwright.sync_api import expect

    page.get_by_label("Select line #2").check()
    page.get_by_label("Select line #3").check()
    form = page.locator("#select-form")
    form.get_by_role("button", name="Move selected…").click()  # opens the notebook and the reason
    expect(form.get_by_label("To notebook")).to_be_visible()
    expect(form.get_by_label("Words", exact=True)).to_be_hidden()
    form.get_by_label("To notebook").select_option("zelda")
    form.get_by_label("Reason").fill("strays")
    form.get_by_role("button", name="Move selected…").click()
    expect(page.locator("#announce")).to_contain_text("Moved #2, #3 to zelda as #")
    expect(page.locator("#line-2")).to_contain_text("Line #2 was moved to zelda #")
    expect(page.locator("#line-3")).to_contain_text("Line #3 was moved to zelda #")
    assert page.evaluate("window.__same_page === true")
