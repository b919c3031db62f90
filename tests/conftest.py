"""Shared fixtures, and a report of what ran that .ci/run reads (a skipped database or browser fails CI)."""

import json
import os
from collections import Counter
from pathlib import Path

import pytest

pytest_plugins = ["tests.databases"]  # scratch databases for tests that start other processes

_outcomes: Counter = Counter()


# A test that requests none of these, in a module that names no database nor starts a process (or is marked
# database_free), touches no database.
DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "django_db_setup",
    "live_server",
    "scratch_templates",
    "scratch_db",
    "live_sites",
}
DATABASE_WORDS = ("DATABASE_URL", "suite_vendor", "connection", "subprocess", "manage.py", "call_command", "Popen")
_module_words: dict[Path, bool] = {}


def touches_database(item: pytest.Item) -> bool:
    if DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())) or item.get_closest_marker("django_db"):
        return True
    if item.get_closest_marker("database_free"):
        return False  # its processes read no database (its author says so)
    path = Path(str(item.fspath))
    if path not in _module_words:
        source = path.read_text(encoding="utf-8")
        _module_words[path] = any(word in source for word in DATABASE_WORDS)
    return _module_words[path]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--database-only",
        action="store_true",
        help="run only the tests that touch a database (.ci/run's second part: the others ran in its first)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test marked vendor("sqlite") or vendor("postgresql") runs only in that part of the suite: deselected, not
    skipped, in the other (CI runs both parts, and fails on any skip). With --database-only, so are the tests that
    touch no database and those marked client_side; the report says so, and .ci/check_reports.py fails unless the
    other part ran them."""
    from tests.databases import suite_vendor

    vendor = suite_vendor()
    other = [item for item in items if (m := item.get_closest_marker("vendor")) and m.args[0] != vendor]
    if config.getoption("database_only"):
        # A page's script, focus and layout do not change with the database: the SQLite part runs them, once.
        once = {id(item) for item in items if item.get_closest_marker("client_side")}
        other += [item for item in items if item not in other and (id(item) in once or not touches_database(item))]
    if other:
        config.hook.pytest_deselected(items=other)
        chosen = set(map(id, other))
        items[:] = [item for item in items if id(item) not in chosen]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        _outcomes[report.outcome] += 1
        if "browser" in report.keywords and report.when == "call":
            _outcomes[f"browser_{report.outcome}"] += 1


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    target = os.environ.get("NOTEBOOKS_TEST_REPORT")
    if not target or hasattr(session.config, "workerinput"):
        return
    from django.db import connection

    Path(target).parent.mkdir(parents=True, exist_ok=True)
    database_only = bool(session.config.getoption("database_only"))
    report = {"vendor": connection.vendor, "exitstatus": int(exitstatus), "database_only": database_only, **_outcomes}
    Path(target).write_text(json.dumps(report))


@pytest.fixture(autouse=True)
def _no_guessed_heads() -> None:
    """Each test's database starts again (rolled back), so no head a write remembered from another test stands
    (log/store/fast_add.py: a wrong guess costs a round trip, and a test counting calls would count it)."""
    from notebooks.agents import conditional
    from notebooks.log.store import fast_add
    from notebooks.log.views import turn_reads
    from notebooks.sessions import leases
    from notebooks.similar import selectors as similar_selectors

    fast_add.forget()
    turn_reads.forget()  # nor a turn read this process remembers writing
    similar_selectors.forget()  # nor a nearest-line index of rows rolled back
    leases.forget()  # nor which actors' leases this process renewed lately
    conditional.forget()  # nor an API answer kept at a head of rows rolled back


@pytest.fixture
def dad(db):  # noqa: ANN001, ANN201
    """The human editor: a user holding the editor role."""
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user("dad", password="a-long-test-password")
    user.groups.add(Group.objects.get(name="editors"))
    return user


@pytest.fixture
def notebook(db):  # noqa: ANN001, ANN201
    from notebooks.log import services

    return services.create_notebook(title="zelda", by="test")


# ----- the card's fixtures (the card's own are in tests/card/conftest.py) -----------------------


@pytest.fixture
def editor_client(client, dad):  # noqa: ANN001, ANN201
    client.force_login(dad)
    return client


@pytest.fixture
def lines(notebook, dad):  # noqa: ANN001, ANN201
    """zelda with #1 seen, #2 guessed (hers) and #3 dad."""
    from notebooks.log import services

    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="seen")
    services.add(notebook="zelda", text="always attack first", source="guessed", by="pippa", why="a guess")
    services.add(notebook="zelda", text="write only what the game taught you", source="dad", by="dad", why="rule")
    return notebook


# ----- the agent's side: API clients holding a token (Dad's in tests/agents/conftest.py) ---------------------


@pytest.fixture
def pippa(db):  # noqa: ANN001, ANN201
    from notebooks.agents import tokens
    from tests.agent_helpers import Api

    return Api(tokens.issue(actor="pippa").secret)


@pytest.fixture
def reflector(db):  # noqa: ANN001, ANN201
    from notebooks.agents import tokens
    from tests.agent_helpers import Api

    return Api(tokens.issue(actor="reflector").secret)


@pytest.fixture
def zelda(notebook):  # noqa: ANN001, ANN201
    """Notebook zelda with two lines of Pippa's (#1, #2) and one of Dad's (#3); tests/vault/ has its own."""
    from notebooks.log import services
    from tests.agent_helpers import DAD

    services.add(notebook="zelda", text="the bridge guard swings twice", source="seen", by="pippa", why="seen")
    services.add(notebook="zelda", text="always attack first", source="guessed", by="pippa", why="a hunch")
    services.add(notebook="zelda", text="block first, then attack", source="dad", by=DAD, why="rule")
    return notebook


LEASE_TTL = 60.0  # NOTEBOOK_SESSION_TTL under the `clock` fixture


class Clock:
    """The leases' clock (notebooks.sessions.leases.now), moved by a test; rows keep the real time."""

    def __init__(self, start: float) -> None:
        self.at = start

    def __call__(self) -> float:
        return self.at

    def move(self, seconds: float) -> None:
        self.at += seconds


@pytest.fixture
def clock(monkeypatch, settings):  # noqa: ANN001, ANN201
    from notebooks.sessions import leases

    settings.NOTEBOOK_SESSION_TTL = LEASE_TTL
    moved = Clock(leases.time.time())
    monkeypatch.setattr(leases, "now", moved)
    return moved
