"""Who may do what on the card: nothing anonymously, reading for anyone signed in, writing for the editor only,
and no write without the CSRF token."""

import re

import pytest
from django.test import Client

from tests.card_helpers import HX, rows, url

READS = ["/", "/audit/", url(), url(1), url(1, "history")]
WRITES = [
    (url(1, "edit"), {"words": "w", "reason": "r", "expected": 1}),
    (url(1, "retire"), {"reason": "r", "expected": 1}),
    (url(1, "redact"), {"reason": "r", "seq": 1}),
    (url(action="add"), {"words": "w", "reason": "r"}),
    (url(action="selected"), {"n": ["1", "2"], "reason": "r", "action": "retire"}),
]


@pytest.mark.parametrize("path", READS + [url(1, "edit"), url(1, "retire"), url(1, "redact")])
def test_an_anonymous_reader_is_sent_to_sign_in(client, lines, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


@pytest.mark.parametrize(("path", "data"), WRITES)
def test_an_anonymous_write_is_sent_to_sign_in_and_writes_nothing(client, lines, path, data):
    before = rows()
    response = client.post(path, data)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    # From htmx: the whole page goes to the sign-in (HX-Redirect), and back to the card it came from after it.
    response = client.post(path, data, HTTP_HX_CURRENT_URL="http://testserver/notebooks/zelda/?q=swing", **HX)
    assert response.status_code == 204
    assert response["HX-Redirect"] == "/accounts/login/?next=%2Fnotebooks%2Fzelda%2F%3Fq%3Dswing"
    assert rows() == before


def test_an_htmx_read_after_the_sign_in_expired_goes_to_the_sign_in_page(client, lines):
    response = client.get(url(1, "edit"), HTTP_HX_CURRENT_URL="http://testserver/notebooks/zelda/", **HX)
    assert response.status_code == 204 and response["HX-Redirect"] == "/accounts/login/?next=%2Fnotebooks%2Fzelda%2F"
    assert response.content == b""
    # Another site's address is never where it sends him back to.
    response = client.get(url(1, "edit"), HTTP_HX_CURRENT_URL="https://evil.example/x", **HX)
    assert response["HX-Redirect"] == "/accounts/login/?next=%2Fnotebooks%2Fzelda%2Flines%2F1%2Fedit%2F"


@pytest.mark.parametrize("path", READS)
def test_a_signed_in_agent_may_read(client, agent_user, lines, path):
    client.force_login(agent_user)
    assert client.get(path, **HX).status_code == 200


@pytest.mark.parametrize(("path", "data"), WRITES)
def test_a_signed_in_agent_may_not_write(client, agent_user, lines, path, data):
    client.force_login(agent_user)
    before = rows()
    assert client.post(path, data, **HX).status_code == 403
    assert client.post(path, data).status_code == 403
    assert rows() == before


@pytest.mark.parametrize("path", [url(1, "edit"), url(1, "retire")])
def test_a_signed_in_agent_may_not_open_a_write_form(client, agent_user, lines, path):
    client.force_login(agent_user)
    assert client.get(path, **HX).status_code == 403


@pytest.mark.parametrize(("path", "data"), WRITES)
def test_a_write_without_the_csrf_token_is_refused(dad, lines, path, data):
    client = Client(enforce_csrf_checks=True)
    client.force_login(dad)
    before = rows()
    assert client.post(path, data, **HX).status_code == 403
    assert rows() == before


def test_a_write_with_the_token_from_hx_headers_goes_through(dad, lines):
    client = Client(enforce_csrf_checks=True)
    client.force_login(dad)
    html = client.get(url()).content.decode()
    token = re.search(r'"X-CSRFToken": "([A-Za-z0-9]+)"', html).group(1)
    response = client.post(url(action="add"), {"words": "w", "reason": "r"}, HTTP_X_CSRFTOKEN=token, **HX)
    assert response.status_code == 200


@pytest.mark.parametrize("path", [url(action="add"), url(action="selected")])
def test_a_write_only_url_refuses_get(editor_client, lines, path):
    assert editor_client.get(path).status_code == 405


def test_sign_in_has_username_and_password_fields_and_signs_in(client, dad):
    html = client.get("/accounts/login/").content.decode()
    assert re.search(r'<label for="id_username">Username</label>', html)
    assert re.search(r'<label for="id_password">Password</label>', html)
    response = client.post("/accounts/login/", {"username": "dad", "password": "a-long-test-password"})
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.get("/").status_code == 200


def test_a_wrong_password_is_refused_in_place(client, dad):
    response = client.post("/accounts/login/", {"username": "dad", "password": "wrong"})
    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()


def test_sign_out_is_a_post_that_ends_the_session(editor_client):
    response = editor_client.post("/accounts/logout/")
    assert response.status_code == 302
    assert editor_client.get("/").status_code == 302


def test_a_superuser_is_an_editor(client, lines):
    from django.contrib.auth.models import User

    client.force_login(User.objects.create_superuser("root", password="a-long-test-password"))
    response = client.post(url(action="add"), {"words": "w", "reason": "r"}, **HX)
    assert response.status_code == 200


def test_refusal_pages_carry_no_inline_style(client, agent_user, lines):
    client.force_login(agent_user)
    forbidden = client.post(url(action="add"), {"words": "w", "reason": "r"})
    missing = client.get("/notebooks/nothing-here/")
    assert forbidden.status_code == 403 and "Only the human editor" in forbidden.content.decode()
    assert missing.status_code == 404 and "Not found" in missing.content.decode()
    csrf = Client(enforce_csrf_checks=True)
    csrf.force_login(agent_user)
    refused = csrf.post(url(action="add"), {"words": "w", "reason": "r"})
    assert refused.status_code == 403 and "nothing was changed" in refused.content.decode()
    for response in (forbidden, missing, refused):
        assert not re.search(r"<style|\sstyle=", response.content.decode())
