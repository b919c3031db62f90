"""The card page and the API turn, requested through Django's test client (server time, no network).

Each returns a request to time, or a string saying why there is nothing to time yet: the card and the
API are built on their own branches, and the table says "not built yet" rather than show a made-up figure.
"""

from collections.abc import Callable

from django.test import Client
from django.urls import NoReverseMatch, reverse

from notebooks import urls
from notebooks.agents import urls as api_urls

Request = Callable[[], object]
# URL names the card page may have (with a `title` or `notebook` argument): the first that resolves is timed.
CARD_NAMES = ("card:notebook", "notebooks:card", "notebooks:notebook")


def _first_url(names: tuple[str, ...], title: str) -> str | None:
    for name in names:
        for kwargs in ({"title": title}, {"notebook": title}):
            try:
                return reverse(name, kwargs=kwargs)
            except NoReverseMatch:
                continue
    return None


def _editor(client: Client) -> None:
    from django.contrib.auth.models import Group, User

    user, created = User.objects.get_or_create(username="dad")
    if created:
        user.groups.add(Group.objects.get(name="editors"))
    client.force_login(user)


def card_page(client: Client, title: str) -> "Request | str":
    url = _first_url(CARD_NAMES, title) if urls.urlpatterns else None
    if url is None:
        return "not built yet (no card URL on main)"
    _editor(client)

    def get() -> object:
        response = client.get(url)
        assert response.status_code == 200, response.status_code
        return response

    return get


def api_turn(client: Client, title: str) -> "Request | str":
    if not api_urls.urlpatterns:
        return "not built yet (no API URL on main)"
    url = _first_url(("api-turn", "api:turn", "turn"), title)
    if url is None:
        return "not measured: no API turn URL name the bench knows (see bench/web.py)"
    from notebooks.agents import tokens

    headers = {"HTTP_AUTHORIZATION": f"Bearer {tokens.issue(actor='pippa', by='bench').secret}"}

    def get() -> object:
        response = client.get(url, **headers)
        assert response.status_code == 200, response.status_code
        return response

    return get


def floor(client: Client, name: str) -> Request:
    """A floor of bench/floor.py (`bench-floor-json` or `bench-floor-page`) through the same middleware."""

    def get() -> object:
        response = client.get(reverse(name))
        assert response.status_code == 200, response.status_code
        return response

    return get
