"""Dad decides what the gate refused, in a real browser (Playwright, Debian's Chromium): an agent's land refused by
the land gates waits on /sessions/, where Dad lands it as his approval or discards it, each with his reason; with
htmx and by keyboard, at a desk's width and a phone's. A `manage.py runserver` on a scratch database."""

from collections.abc import Iterator

import pytest

from tests.browser.support import Server, save_sign_in

pytestmark = pytest.mark.browser
PASSWORD = "sessions-browser-test-password"
# An agent's session that retires two of a notebook's three lines without a successor: the gate refuses its land.
REFUSED = """
from notebooks.log import services
from notebooks.sessions import services as sessions
services.create_notebook(title="{title}", by="{agent}")
for words in ("the guard swings twice", "roll after the second swing", "rest at every camp"):
    services.add(notebook="{title}", text=words, source="seen", by="{agent}", why="seen in play")
taken = sessions.take(notebook="{title}", plan="tidy the {title} lines", by="{agent}")
for n in (1, 2):
    services.retire(notebook="{title}", n=n, by="{agent}", why="stale")
try:
    sessions.land(session=taken.id, summary="dropped two", by="{agent}")
except sessions.GateRefused:
    print(taken.id)
"""


class Site:
    """The sessions page's server, and someone else's writes against its database."""

    def __init__(self, server: Server) -> None:
        self.url = server.url
        self.server = server

    def refused_session(self, title: str) -> int:
        """A session of an agent of its own on a new notebook `title` whose land the gate refused: its id."""
        script = REFUSED.format(title=title, agent=f"pippa-{title}")
        return int(self.server.run("shell", "-c", script).split()[-1])


@pytest.fixture(scope="module")
def server(live_sites) -> Iterator[Site]:  # noqa: ANN001
    with live_sites.serve("sessions-browser", password=PASSWORD) as live:
        yield Site(live)


@pytest.fixture(scope="module")
def signed_in(browser, server, tmp_path_factory):  # noqa: ANN001, ANN201
    return save_sign_in(browser, server.url, PASSWORD, tmp_path_factory.mktemp("sessions-state") / "state.json")


@pytest.fixture
def open_page(browser, server, signed_in):  # noqa: ANN001, ANN201
    """A signed-in page of the given width on /sessions/ that fails the test on any script error or dialog."""
    made = []

    def opened(width: int = 1280, height: int = 900, javascript: bool = True):  # noqa: ANN202
        context = browser.new_context(
            viewport={"width": width, "height": height}, storage_state=signed_in, java_script_enabled=javascript
        )
        page = context.new_page()
        page.set_default_timeout(10_000)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("dialog", lambda dialog: (errors.append(dialog.message), dialog.dismiss()))
        page.goto(f"{server.url}/sessions/")
        made.append((context, errors))
        return page

    yield opened
    for context, errors in made:
        context.close()
        assert errors == [], f"script errors or dialogs: {errors}"


def test_dad_lands_a_refused_session_with_his_reason_and_the_page_shows_it_landed_by_him(server, open_page):
    from playwright.sync_api import expect

    sid = server.refused_session("bridge")
    page = open_page()
    section = page.locator(f"#session-{sid}")
    expect(section.locator(f"#session-{sid}-refused")).to_contain_text("retired 2 of the 3 lines")
    expect(section.locator(".state-refused")).to_have_text("refused")
    section.get_by_text("Land as Dad…").click()
    section.get_by_role("button", name=f"Land as my approval: session #{sid}").click()  # no reason yet
    expect(section.locator(f"#land-{sid}-error")).to_contain_text("A reason is required")
    page.locator(f"#session-{sid}").get_by_label("Reason to land it").fill("both lines were wrong; I checked")
    page.locator(f"#session-{sid}").get_by_role("button", name=f"Land as my approval: session #{sid}").click()
    section = page.locator(f"#session-{sid}")
    expect(section.locator(f"#session-{sid}-decision")).to_contain_text("Landed by dad as his approval")
    assert page.url == f"{server.url}/sessions/"  # swapped in place by htmx: no navigation
    expect(section.locator(f"#session-{sid}-decision")).to_contain_text("both lines were wrong; I checked")
    expect(section.locator(".state-landed")).to_have_text("landed")
    expect(section.locator(f"#session-{sid}-overruled")).to_contain_text("retired 2 of the 3 lines")
    expect(section.locator(".decide")).to_have_count(0)
    page.reload()  # it is recorded, not only swapped in
    expect(page.locator(f"#session-{sid}-decision")).to_contain_text("both lines were wrong; I checked")


def test_dad_discards_a_refused_session_by_keyboard_with_his_reason(server, open_page):
    from playwright.sync_api import expect

    sid = server.refused_session("camp")
    page = open_page()
    summary = page.locator(f"#session-{sid} .decide-discard summary")
    summary.focus()
    page.keyboard.press("Enter")  # a <details> opens by keyboard, no script needed
    field = page.locator(f"#discard-{sid}-reason")
    expect(field).to_be_visible()
    field.focus()
    page.keyboard.type("start again from the camp lines")
    page.keyboard.press("Enter")  # submits the form
    section = page.locator(f"#session-{sid}")
    expect(section.locator(f"#session-{sid}-decision")).to_contain_text("Discarded by dad")
    expect(section.locator(f"#session-{sid}-decision")).to_contain_text("start again from the camp lines")
    expect(section.locator(".state-abandoned")).to_have_text("abandoned")
    expect(section.locator('[role="status"]')).to_contain_text("Its rows never count")


def test_by_keyboard_a_decision_leaves_focus_on_what_it_says_and_escape_closes_an_open_one(server, open_page):
    from playwright.sync_api import expect

    sid = server.refused_session("keys")
    page = open_page(width=390)
    land, discard = (page.locator(f"#session-{sid} .decide-{verb}") for verb in ("land", "discard"))
    land.locator("summary").focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(page.locator(f"#land-{sid}-reason")).to_be_focused()
    page.keyboard.type("not this one")
    page.keyboard.press("Escape")  # closes the disclosure, focus back on its button; nothing sent
    expect(land).not_to_have_attribute("open", "")
    expect(land.locator("summary")).to_be_focused()
    discard.locator("summary").focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.type("start over")
    page.keyboard.press("Enter")
    status = page.locator(f'#session-{sid} [role="status"]')
    expect(status).to_contain_text(f"Session #{sid} discarded")
    expect(status).to_be_focused()  # not the page's top: the next Tab goes on from the session


def test_without_javascript_a_land_posts_the_form_and_comes_back_to_the_session(server, open_page):
    from playwright.sync_api import expect

    sid = server.refused_session("gate")
    page = open_page(javascript=False)
    section = page.locator(f"#session-{sid}")
    section.get_by_text("Land as Dad…").click()
    section.get_by_label("Reason to land it").fill("fine without script")
    section.get_by_role("button", name=f"Land as my approval: session #{sid}").click()
    page.wait_for_url(f"{server.url}/sessions/#session-{sid}")
    expect(page.locator(".message")).to_contain_text(f"Session #{sid} landed as your approval")
    expect(page.locator(f"#session-{sid}-decision")).to_contain_text("fine without script")


@pytest.mark.parametrize("width", [390, 1280])
def test_the_decision_buttons_are_big_enough_to_tap_and_nothing_overflows(server, open_page, width, tmp_path):
    sid = server.refused_session(f"wide{width}")
    page = open_page(width=width, height=844 if width == 390 else 900)
    section = page.locator(f"#session-{sid}")
    section.get_by_text("Land as Dad…").click()
    section.get_by_text("Discard…").click()
    targets = [
        section.locator(".decide-land summary"), section.locator(".decide-discard summary"),
        section.get_by_role("button", name=f"Land as my approval: session #{sid}"),
        section.get_by_role("button", name=f"Discard session #{sid}"),
    ]  # fmt: skip
    for target in targets:
        box = target.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, box
        if width == 390:
            assert box["height"] >= 44, box
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    section.scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / f"sessions-{width}.png"), full_page=False)
