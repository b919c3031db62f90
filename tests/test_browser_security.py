"""In Chromium: markup written into lines, reasons and session plans runs nothing on any page (the card in both
orders, a line's history inline and on its own page, the audit, the sessions), and the Content-Security-Policy
blocks nothing the app itself needs (no violation on any page, htmx swaps included).

The card's own browser tests cover editing markup lines in place; these cover every other page that shows them.
"""

from collections.abc import Iterator

import pytest

from tests.browser_support import WATCH, free_port, wait_for_server
from tests.databases import Scratch, Templates

pytestmark = pytest.mark.browser

PAYLOADS = [
    "<script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned = 2">',
    "<svg><script>window.__pwned = 3</script></svg>",
    '"><iframe srcdoc="<script>parent.__pwned = 4</script>"></iframe>',
    "{{ 7|add:7 }} {% now 'Y' %}",
]
PASSWORD = "browser-security-password-0123"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Scratch, str]]:
    templates = Templates(tmp_path_factory.mktemp("browser-security"))
    templates.vendor = "sqlite"  # the pages are the same on both; the browser needs only a server
    db = templates.new()
    db.run(
        "manage.py",
        "shell",
        "-c",
        f"from django.contrib.auth.models import User; u = User.objects.get(username='dad'); "
        f"u.set_password('{PASSWORD}'); u.save()",
    )
    db.manage("notebook", "create", "zelda")
    for words in PAYLOADS:
        db.manage("notebook", "add", "zelda", words, "--source", "seen", "--by", "pippa", "--why", words)
    db.manage("notebook", "edit", "zelda", "1", PAYLOADS[1] + " edited", "--by", "dad", "--why", PAYLOADS[2])
    db.manage("notebook", "retire", "zelda", "2", "--by", "dad", "--why", PAYLOADS[3])
    db.manage("notebook", "take", "zelda", "--plan", PAYLOADS[0], "--by", "pippa")
    port = free_port()
    env = db.env(DEBUG="1", ALLOWED_HOSTS="127.0.0.1")  # DEBUG: runserver serves the static files
    server = db.start("manage.py", "runserver", "--noreload", f"127.0.0.1:{port}", env=env)
    url = f"http://127.0.0.1:{port}"
    wait_for_server(f"{url}/accounts/login/", server, lambda: server.stderr.read())
    try:
        yield db, url
    finally:
        templates.cleanup()


@pytest.fixture
def page(browser, site):  # noqa: ANN001, ANN201
    _db, url = site
    context = browser.new_context()
    context.add_init_script(WATCH)
    page = context.new_page()
    page.set_default_timeout(10_000)
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"script error: {exc}"))
    page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    page.on("console", lambda m: "Content Security Policy" in m.text and problems.append(f"console: {m.text}"))
    page.goto(f"{url}/accounts/login/")
    page.get_by_label("Username").fill("dad")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{url}/")
    yield page, url, problems
    context.close()


def _nothing_ran(page, problems: list[str]) -> None:  # noqa: ANN001
    page.wait_for_timeout(200)
    assert page.evaluate("window.__pwned") is None
    assert page.evaluate("window.__violations") == []
    assert problems == []
    assert page.locator("iframe").count() == 0
    assert page.locator("main img").count() == 0


@pytest.mark.parametrize(
    "path",
    [
        "/notebooks/zelda/",
        "/notebooks/zelda/?order=turn",
        "/notebooks/zelda/lines/1/history/",
        "/notebooks/zelda/lines/2/history/",
        "/audit/",
        "/sessions/",
    ],
)
def test_markup_runs_nothing_and_shows_as_text(page, path):
    page, url, problems = page
    page.goto(url + path)
    text = page.locator("main").inner_text()
    shown = [p for p in PAYLOADS if p in text]
    assert shown, f"no payload shown as text on {path}"
    assert "{{ 7|add:7 }}" in text or path.startswith("/sessions")  # no template evaluated the text
    _nothing_ran(page, problems)


def test_history_swapped_in_by_htmx_runs_nothing(page):
    page, url, problems = page
    page.goto(url + "/notebooks/zelda/")
    for n in (1, 3, 4):
        line = page.locator(f"#line-{n}")
        line.get_by_role("link", name="History").click()
        line.locator(".history").wait_for()
    assert PAYLOADS[2] in page.locator("#line-1 .history").inner_text()
    _nothing_ran(page, problems)


def test_the_policy_blocks_an_inline_script_the_page_did_not_ship(page):
    """The watch itself works: a script injected into the DOM is refused and reported."""
    page, url, problems = page
    page.goto(url + "/notebooks/zelda/")
    page.evaluate("""() => { const s = document.createElement('script');
        s.textContent = 'window.__pwned = 99'; document.body.appendChild(s); }""")
    page.wait_for_timeout(200)
    assert page.evaluate("window.__pwned") is None
    assert any("script-src" in v for v in page.evaluate("window.__violations"))
