"""Web security: check --deploy under the README's production settings, sign-in everywhere, CSRF on every POST,
a Content-Security-Policy with only the app's own scripts, no inline script or style, throttled sign-in."""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from notebooks.card import security, throttle
from notebooks.log import services
from notebooks.log.views import selectors
from tests.databases import ROOT

PAGES = [
    "/",
    "/audit/",
    "/sessions/",
    "/notebooks/zelda/",
    "/notebooks/zelda/?order=turn",
    "/notebooks/zelda/lines/1/",
    "/notebooks/zelda/lines/1/history/",
    "/notebooks/zelda/lines/1/edit/",
    "/notebooks/zelda/lines/1/retire/",
]


@pytest.fixture
def zelda(dad, notebook):
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="seen")
    return notebook


@pytest.fixture
def dad_client(dad) -> Client:
    client = Client()
    client.force_login(dad)
    return client


def production_env() -> dict[str, str]:
    """The environment the README documents under "Production", with its placeholders filled in."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## Production\n.*?```env\n(.*?)```", readme, re.S).group(1)
    env = dict(line.split("=", 1) for line in block.strip().splitlines())
    env["SECRET_KEY"] = "p" * 20 + "roduction-like-key-with-enough-entropy-0123456789"
    return env


def test_check_deploy_is_clean_under_the_documented_production_settings(scratch_db, tmp_path: Path):
    db = scratch_db()
    env = production_env()
    assert env["DEBUG"] == "0" and env["SECURE_SSL_REDIRECT"] == "1"
    env.update(DATABASE_URL=db.url, CACHE_DIR=str(tmp_path / "cache"))
    done = db.manage("check", "--deploy", "--fail-level", "WARNING", env=db.env(**env), check=False)
    assert done.returncode == 0, done.stderr
    assert "no issues" in done.stdout


def test_check_deploy_warns_without_them(scratch_db):
    db = scratch_db()
    done = db.manage("check", "--deploy", "--fail-level", "WARNING", check=False)
    assert done.returncode != 0 and "security.W004" in done.stderr


def _routes(resolver: URLResolver, prefix: str = "") -> list[str]:
    found = []
    for p in resolver.url_patterns:
        if isinstance(p, URLResolver):
            found += _routes(p, prefix + str(p.pattern))
        elif isinstance(p, URLPattern):
            found.append(prefix + str(p.pattern))
    return found


def _sample(route: str) -> str:
    route = route.replace("<str:title>", "zelda").replace("<int:n>", "1").replace("<str:n>", "1")
    route = route.replace("<int:mark>", "1").replace("<int:pk>", "1").replace("<int:suggestion>", "1")
    route = re.sub(r"<(?:line|id):\w+>", "1", route)  # the card's bounded numbers (notebooks/urls.py)
    route = route.replace("<str:session_id>", "1").replace("^(?P<rest>.*)$", "nowhere")
    return "/" + route.lstrip("^").rstrip("$")


def test_every_page_but_sign_in_needs_a_signed_in_user(zelda):
    client = Client()
    routes = [_sample(r) for r in _routes(get_resolver())]
    assert "/notebooks/zelda/lines/1/history/" in routes
    for url in routes:
        response = client.get(url)
        if url == "/accounts/login/":
            assert response.status_code == 200
        elif url == "/healthz":
            assert response.status_code == 200 and set(response.json()) == {"status", "database", "triggers"}
        elif url == "/accounts/logout/":
            assert response.status_code == 405  # POST only
        elif url == "/mcp":
            assert response.status_code == 405  # POST only, with a bearer token (tests/agents/test_mcp_http.py)
        elif url.startswith("/api/") and url not in ("/api/openapi.json", "/api/docs"):
            assert response.status_code >= 400, url  # the API wants a bearer token (or a POST)
        elif not url.startswith("/api/") or url == "/api/docs":
            assert response.status_code == 302 and response["Location"].startswith("/accounts/login/"), url


@pytest.mark.parametrize(
    "url",
    [
        "/notebooks/zelda/add/",
        "/notebooks/zelda/selected/",
        "/notebooks/zelda/lines/1/edit/",
        "/notebooks/zelda/lines/1/retire/",
        "/accounts/logout/",
        "/accounts/login/",
    ],
)
def test_every_post_without_the_csrf_token_is_refused(zelda, dad, url):
    client = Client(enforce_csrf_checks=True)
    client.force_login(dad)
    response = client.post(url, {"text": "x", "why": "y", "source": "dad", "to": "z", "username": "dad"})
    assert response.status_code == 403
    assert selectors.head(zelda).seq == 1


def test_every_page_carries_the_policy(zelda, dad_client):
    for url in [*PAGES, "/accounts/login/", "/api/openapi.json", "/api/notebooks"]:
        response = (Client() if url.startswith("/accounts") else dad_client).get(url)
        assert response["Content-Security-Policy"] == security.CONTENT_SECURITY_POLICY, url


def test_the_policy_lets_only_the_apps_own_files_run():
    policy = dict(part.split(" ", 1) for part in security.CONTENT_SECURITY_POLICY.split("; "))
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self'"
    assert policy["default-src"] == "'self'"
    assert policy["object-src"] == "'none'" and policy["base-uri"] == "'none'"
    assert "unsafe" not in security.CONTENT_SECURITY_POLICY


class InlineFinder(HTMLParser):
    """Everything in a page that a policy of script-src/style-src 'self' would block: inline code and styles."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        names = {name for name, _value in attrs}
        if tag == "style":
            self.found.append("<style>")
        if tag == "script" and "src" not in names:
            self._in_script = True
        self.found += [f"<{tag} {name}=…>" for name in names if name == "style" or name.startswith("on")]
        self.found += [
            f"<{tag} {n}=javascript:…>" for n, v in attrs if v and v.strip().lower().startswith("javascript:")
        ]

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.found.append(f"inline <script>{data[:40]}")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False


def _inline(html: str) -> list[str]:
    finder = InlineFinder()
    finder.feed(html)
    return finder.found


def test_the_finder_sees_inline_code():
    html = '<script>x()</script><b style="a" onclick="b()"><style>b{}</style><a href="javascript:x()">'
    assert len(_inline(html)) == 5
    assert _inline('<script src="/static/x.js"></script><p>&lt;script&gt; style=&quot;</p>') == []


def test_pages_hold_no_inline_script_style_or_handler(zelda, dad_client):
    services.add(
        notebook="zelda",
        text='<script>x()</script><b style="color:red" onclick="x()">',
        source="dad",
        by="dad",
        why="<style>b{}</style>",
    )
    for url in [*PAGES, "/notebooks/zelda/lines/2/history/", "/notebooks/zelda/?q=%3Cscript%3E"]:
        for headers in ({}, {"HTTP_HX_REQUEST": "true"}):  # the page, and the fragment htmx swaps in
            response = dad_client.get(url, follow=True, **headers)
            assert response.status_code == 200, url
            assert _inline(response.content.decode()) == [], url
    assert _inline(Client().get("/accounts/login/").content.decode()) == []


def _sign_in(client: Client, password: str, address: str = "10.0.0.1", username: str = "dad"):
    return client.post("/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=address)


def test_sign_in_is_refused_after_five_failures_even_with_the_right_password(dad):
    client = Client()
    for _ in range(5):
        assert _sign_in(client, "wrong").status_code == 200
    response = _sign_in(client, "a-long-test-password")
    assert response.status_code == 429
    assert "Too many failed sign-ins for this username from your address" in response.content.decode()
    assert int(response["Retry-After"]) > 0
    assert "_auth_user_id" not in client.session


def test_the_throttle_is_per_username_and_address(dad):
    client = Client()
    for _ in range(5):
        _sign_in(client, "wrong")
    assert _sign_in(Client(), "a-long-test-password", address="10.0.0.2").status_code == 302
    assert _sign_in(Client(), "wrong", username="pippa").status_code == 200


def test_a_success_clears_the_count(dad):
    client = Client()
    for _ in range(4):
        _sign_in(client, "wrong")
    assert _sign_in(client, "a-long-test-password").status_code == 302
    other = Client()
    for _ in range(4):
        assert _sign_in(other, "wrong").status_code == 200


def test_the_block_ends_with_its_window(dad, monkeypatch):
    client = Client()
    for _ in range(5):
        _sign_in(client, "wrong")
    assert _sign_in(client, "a-long-test-password").status_code == 429
    later = throttle.time.time() + 901
    monkeypatch.setattr(throttle.time, "time", lambda: later)
    assert _sign_in(client, "a-long-test-password").status_code == 302


def test_one_address_trying_many_usernames_is_stopped(dad, settings):
    settings.SIGNIN_MAX_FAILURES_PER_ADDRESS = 8
    client = Client()
    for i in range(8):
        _sign_in(client, "wrong", username=f"user{i}")
    assert _sign_in(client, "a-long-test-password").status_code == 429


def test_behind_the_proxy_the_address_is_the_one_it_appended(dad, settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    client = Client()
    for i in range(5):  # a client cannot dodge the count by forging the first entries
        client.post(
            "/accounts/login/",
            {"username": "dad", "password": "wrong"},
            HTTP_X_FORWARDED_FOR=f"1.1.1.{i}, 10.9.9.9",
            REMOTE_ADDR="127.0.0.1",
        )
    response = client.post(
        "/accounts/login/",
        {"username": "dad", "password": "a-long-test-password"},
        HTTP_X_FORWARDED_FOR="2.2.2.2, 10.9.9.9",
        REMOTE_ADDR="127.0.0.1",
    )
    assert response.status_code == 429
