"""In Chromium: the API's docs page (/api/docs, ninja's Swagger UI) behind the card's sign-in, served as in
production (DEBUG off, collectstatic, whitenoise), renders the generated document with no Content-Security-Policy
violation: its scripts and styles are the app's own static files, no CDN, no inline script."""

from collections.abc import Iterator

import pytest

from tests.browser_support import WATCH, free_port, wait_for_server
from tests.databases import Scratch, Templates

pytestmark = pytest.mark.browser
PASSWORD = "browser-docs-password-0123"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("browser-docs")
    templates = Templates(base)
    templates.vendor = "sqlite"  # the page is the same on both; the browser needs only a server
    db: Scratch = templates.new()
    env = db.env(DEBUG="0", ALLOWED_HOSTS="127.0.0.1", STATIC_ROOT=str(base / "static"))
    db.run(
        "manage.py",
        "shell",
        "-c",
        f"from django.contrib.auth.models import User; u = User.objects.get(username='dad'); "
        f"u.set_password('{PASSWORD}'); u.save()",
    )
    db.run("manage.py", "collectstatic", "--no-input", "-v", "0", env=env)
    port = free_port()
    server = db.start("manage.py", "runserver", "--noreload", f"127.0.0.1:{port}", env=env)
    url = f"http://127.0.0.1:{port}"
    wait_for_server(f"{url}/accounts/login/", server, lambda: server.stderr.read())
    try:
        yield url
    finally:
        templates.cleanup()


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
        page.get_by_label("Username").fill("dad")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
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
