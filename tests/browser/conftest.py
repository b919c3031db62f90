"""The browser tests' fixtures: one Chromium per module, and the session's live servers (tests/browser/support.py)."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.browser.support import ARGS, CHROMIUM, Server, card_pages, save_sign_in, serve
from tests.databases import Templates


@pytest.fixture(scope="module")
def browser():  # noqa: ANN201
    """Module-scoped: Playwright's sync API keeps an event loop running in this thread until it stops, which
    would break later tests that start their own (asyncio.run, anyio)."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: apt-get install chromium (make browser), or CHROMIUM=/path"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


class LiveSites:
    """Live servers for this worker's browser tests, each on a copy of the suite's template, migrated once per
    session. A module whose site must be SQLite is marked vendor("sqlite"): a run on PostgreSQL leaves it out."""

    def __init__(self, suite: Templates, factory: pytest.TempPathFactory) -> None:
        self.suite = suite
        self.factory = factory

    @contextmanager
    def serve(
        self,
        name: str,
        seed: Callable[[Server], None] | None = None,
        *,
        password: str | None = None,
        seed_first: bool = False,
        **env: str,
    ) -> Iterator[Server]:
        """A server on a new database of the suite's vendor, seeded by `seed`, until the block ends."""
        scratch = self.suite.new()
        with serve(scratch, self.factory.mktemp(name), seed, password, seed_first, **env) as server:
            yield server


@pytest.fixture(scope="session")
def live_sites(scratch_templates: Templates, tmp_path_factory: pytest.TempPathFactory) -> LiveSites:
    return LiveSites(scratch_templates, tmp_path_factory)


@pytest.fixture(scope="module")
def signed_in(browser, site: Server, tmp_path_factory: pytest.TempPathFactory) -> str:  # noqa: ANN001
    """Dad signed in once on the module's `site`: the saved state each of its pages opens with."""
    return save_sign_in(browser, site.url, site.password, tmp_path_factory.mktemp("signed-in") / "state.json")


@pytest.fixture
def open_card(browser, site: Server, signed_in: str):  # noqa: ANN001, ANN201
    """open_card(title, width=1280, height=900): a signed-in page on that notebook's card; fails on script errors."""
    with card_pages(browser, site.url, signed_in) as opened:
        yield opened
