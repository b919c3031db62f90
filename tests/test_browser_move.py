"""Move to notebook… in a real browser: from a line's actions and from the selection bar, answered in place."""

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser_support import free_port, wait_for_server

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A card server on its own SQLite file: zelda (the demo's 17 lines) and a stray notebook of three lines."""
    tmp = tmp_path_factory.mktemp("move-browser")
    env = {
        **os.environ, "DJANGO_SETTINGS_MODULE": "notebook_site.settings",
        "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}", "DEBUG": "1", "SECRET_KEY": "browser-tests-only",
        "ALLOWED_HOSTS": "127.0.0.1",
    }  # fmt: skip
    manage = [sys.executable, str(ROOT / "manage.py")]

    def run(*args: str) -> None:
        done = subprocess.run([*manage, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr

    run("migrate", "--no-input")
    run("notebook", "first-editor", "--password-file", str(tmp / "pw.txt"))
    run("notebook", "demo", "--title", "zelda")
    run("notebook", "create", "zelda heading")
    for words in ("the owl statue saves", "the fairy fountain heals", "deku nuts stun"):
        run("notebook", "add", "zelda heading", words, "--source", "seen", "--by", "pippa", "--why", "seen")
    port = free_port()
    log = (tmp / "server.log").open("w")
    proc = subprocess.Popen(
        [*manage, "runserver", "--noreload", f"127.0.0.1:{port}"], env=env, cwd=ROOT, stdout=log, stderr=log
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_server(f"{url}/accounts/login/", proc, (tmp / "server.log").read_text)
        yield url, (tmp / "pw.txt").read_text().split()[-1]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


@pytest.fixture
def page(browser, server):  # noqa: ANN001, ANN201
    """Signed in as dad on the stray notebook's card; fails the test on any script error."""
    url, password = server
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{url}/accounts/login/")
    page.get_by_label("Username").fill("dad")
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{url}/")
    page.goto(f"{url}/notebooks/zelda%20heading/")
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
    expect(form.get_by_label("Words")).to_be_hidden()
    form.get_by_label("To notebook").select_option("zelda")
    form.get_by_label("Reason").fill("strays")
    form.get_by_role("button", name="Move selected…").click()
    expect(page.locator("#announce")).to_contain_text("Moved #2, #3 to zelda as #")
    expect(page.locator("#line-2")).to_contain_text("Line #2 was moved to zelda #")
    expect(page.locator("#line-3")).to_contain_text("Line #3 was moved to zelda #")
    assert page.evaluate("window.__same_page === true")
