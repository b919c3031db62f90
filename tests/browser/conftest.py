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
    """Live servers for this worker's browser tests, each on a copy of a template migrated once per session."""

    def __init__(self, suite: Templates, factory: pytest.TempPathFactory) -> None:
        self.suite = suite
        self.factory = factory
        self.sqlite: Templates | None = None

    def templates(self, vendor: str | None) -> Templates:
        if vendor in (None, self.suite.vendor):
            return self.suite
        assert vendor == "sqlite", f"a live site on {vendor} needs the suite on {vendor}"
        if self.sqlite is None:
            self.sqlite = Templates(self.factory.mktemp("browser-sqlite"))
            self.sqlite.vendor = "sqlite"
        return self.sqlite

    @contextmanager
    def serve(
        self,
        name: str,
        seed: Callable[[Server], None] | None = None,
        *,
        password: str | None = None,
        vendor: str | None = None,
        seed_first: bool = False,
        **env: str,
    ) -> Iterator[Server]:
        """A server on a new database of `vendor` (the suite's when None), seeded by `seed`, until the block ends."""
        scratch = self.templates(vendor).new()
        with serve(scratch, self.factory.mktemp(name), seed, password, seed_first, **env) as server:
            yield server

    def cleanup(self) -> None:
        if self.sqlite is not None:
            self.sqlite.cleanup()


@pytest.fixture(scope="session")
def live_sites(scratch_templates: Templates, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveSites]:
    sites = LiveSites(scratch_templates, tmp_path_factory)
    yield sites
    sites.cleanup()


@pytest.fixture(scope="module")
def signed_in(browser, site: Server, tmp_path_factory: pytest.TempPathFactory) -> str:  # noqa: ANN001
    """Dad signed in once on the module's `site`: the saved state each of its pages opens with."""
    return save_sign_in(browser, site.url, site.password, tmp_path_factory.mktemp("signed-in") / "state.json")


@pytest.fixture
def open_card(browser, site: Server, signed_in: str):  # noqa: ANN001, ANN201
    """open_card(title, width=1280, height=900): a signed-in page on that notebook's card; fails on script errors."""
    with card_pages(browser, site.url, signed_in) as opened:
        yield opened
