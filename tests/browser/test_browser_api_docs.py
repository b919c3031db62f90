"""In Chromium: the API's docs page (/api/docs, ninja's Swagger UI) behind the card's sign-in, served as in
production (DEBUG off, collectstatic, whitenoise), renders the generated document with no Content-Security-Policy
violation: its scripts and styles are the app's own static files, no CDN, no inline script."""

from collections.abc import Iterator

import pytest

from tests.browser.support import WATCH, Server, fill_sign_in

# Only the SQLite part runs it: its site always ran on SQLite, and nothing it tests depends on the database.
pytestmark = [pytest.mark.browser, pytest.mark.vendor("sqlite")]
PASSWORD = "browser-docs-password-0123"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, live_sites) -> Iterator[str]:  # noqa: ANN001
    static = tmp_path_factory.mktemp("browser-docs") / "static"

    def collect(server: Server) -> None:
        server.run("collectstatic", "--no-input", "-v", "0")

    # The page is the same on both databases; the browser needs only a server, run as in production (DEBUG off).
    with live_sites.serve(
        "browser-docs", collect, password=PASSWORD, seed_first=True, DEBUG="0", STATIC_ROOT=str(static)
    ) as server:
        yield server.url


def test_the_docs_need_the_sign_in_and_render_under_the_policy(browser, site):
    context = browser.new_context()
    context.add_init_script(WATCH)
    page = context.new_page()
    page.set_default_timeout(20_000)
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"script error: {exc}"))
    page.on("console", lambda m: "Content Security Policy" in m.text and problems.append(f"console: {m.text}"))
    outside: list[str] = []
    page.on("request", lambda r: r.url.startswith(site) or r.url.startswith("data:") or outside.append(r.url))
    try:
        page.goto(f"{site}/api/docs")
        assert page.url.startswith(f"{site}/accounts/login/")  # the card's sign-in first
        fill_sign_in(page, PASSWORD)
        page.wait_for_url(f"{site}/api/docs")
        page.locator(".swagger-ui .info .title").wait_for()
        assert "Notebooks API" in page.locator(".swagger-ui .info .title").inner_text()
        page.locator(".opblock").first.wait_for()
        paths = page.locator(".opblock-summary-path").all_inner_texts()
        assert any("/api/notebooks/{notebook}/lines" in p.replace("\u200b", "") for p in paths), paths
        page.wait_for_timeout(300)
        assert page.evaluate("window.__violations") == []
        assert problems == []
        assert outside == []  # no CDN: every file came from the app
    finally:
        context.close()
