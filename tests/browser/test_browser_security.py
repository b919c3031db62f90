"""In Chromium: markup written into lines, reasons and session plans runs nothing on any page (the card in both
orders, a line's history inline and on its own page, the audit, the sessions), and the Content-Security-Policy
blocks nothing the app itself needs (no violation on any page, htmx swaps included).

The card's own browser tests cover editing markup lines in place; these cover every other page that shows them.
"""

from collections.abc import Iterator

import pytest

from tests.browser.support import WATCH, Server, sign_in
from tests.databases import Scratch

# Only the SQLite part runs it: its site always ran on SQLite, and nothing it tests depends on the database.
pytestmark = [pytest.mark.browser, pytest.mark.vendor("sqlite")]

PAYLOADS = [
    "<script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned = 2">',
    "<svg><script>window.__pwned = 3</script></svg>",
    '"><iframe srcdoc="<script>parent.__pwned = 4</script>"></iframe>',
    "{{ 7|add:7 }} {% now 'Y' %}",
]
PASSWORD = "browser-security-password-0123"


def _seed(db: Server) -> None:
    db.run("notebook", "create", "zelda")
    for words in PAYLOADS:
        db.run("notebook", "add", "zelda", words, "--source", "seen", "--by", "pippa", "--why", words)
    db.run("notebook", "edit", "zelda", "1", PAYLOADS[1] + " edited", "--by", "dad", "--why", PAYLOADS[2])
    db.run("notebook", "retire", "zelda", "2", "--by", "dad", "--why", PAYLOADS[3])
    db.run("notebook", "take", "zelda", "--plan", PAYLOADS[0], "--by", "pippa")


@pytest.fixture(scope="module")
def site(live_sites) -> Iterator[tuple[Scratch, str]]:  # noqa: ANN001
    # The pages are the same on both databases; the browser needs only a server.
    with live_sites.serve("browser-security", _seed, password=PASSWORD) as server:
        yield server.scratch, server.url


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
    sign_in(page, url, PASSWORD)
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
