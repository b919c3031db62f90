"""Dad's card workflow in Chromium (issue 21): a search never swallows the next click, ticks survive a search,
counts follow every action inside a search, text over a limit is refused (never cut), a draft outlives an expired
sign-in, and the card works on a phone (390x844) with 44 px tap targets.

The server is a `manage.py runserver` subprocess on a scratch database of the suite's vendor (tests/databases.py);
each test has a notebook of its own, so they may run in any order.
"""

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser_support import free_port, wait_for_server
from tests.databases import ROOT, Templates

pytestmark = pytest.mark.browser

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
TITLES = ("click", "ticks", "counts", "limits", "draft", "phone", "wide", "search", "nojs")


def _rows(start_at: float) -> list[str]:
    return [
        json.dumps(
            {"op": "add", "n": n, "text": text, "source": "seen", "by": "pippa", "why": "seen", "at": start_at + n}
        )
        for n, text in enumerate(LINES, start=1)
    ]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, scratch_templates: Templates) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("browser-cardflow")
    db = scratch_templates.new()
    db.manage(
        "shell",
        "-c",
        f"from django.contrib.auth.models import User; u = User.objects.get(username='dad'); "
        f"u.set_password('{PASSWORD}'); u.save()",
    )
    path = tmp / "lines.jsonl"
    path.write_text("\n".join(_rows(time.time() - 86400)) + "\n")
    for title in TITLES:
        db.manage("notebook", "import", str(path), "--title", title)
    port = free_port()
    log_path = tmp / "server.log"
    log = log_path.open("w")
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=db.env(DEBUG="1", ALLOWED_HOSTS="127.0.0.1"),
        stdout=log,
        stderr=log,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_server(f"{url}/accounts/login/", server, log_path.read_text)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)
        log.close()


def _sign_in(page, url: str) -> None:  # noqa: ANN001
    page.get_by_label("Username").fill("dad")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


@pytest.fixture(scope="module")
def signed_in(browser, site, tmp_path_factory) -> str:  # noqa: ANN001
    path = tmp_path_factory.mktemp("cardflow-session") / "state.json"
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{site}/accounts/login/")
    _sign_in(page, site)
    page.wait_for_url(f"{site}/")
    context.storage_state(path=str(path))
    context.close()
    return str(path)


@pytest.fixture
def open_card(browser, site, signed_in):  # noqa: ANN001, ANN201
    """open_card(title, width=1280, height=900): a signed-in page on that notebook's card; fails on script errors."""
    contexts, errors = [], []

    def opened(title: str, width: int = 1280, height: int = 900, query: str = ""):  # noqa: ANN202
        context = browser.new_context(viewport={"width": width, "height": height}, storage_state=signed_in)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{site}/notebooks/{title}/{query}")
        return page

    yield opened
    for context in contexts:
        context.close()
    assert errors == [], f"script errors: {errors}"


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
