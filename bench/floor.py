"""The web floors: the same request through the same middleware, answered by a view that does nothing of ours.

The bench's URL conf (bench/settings.py): the project's URLs plus these two, so a page or an API answer is timed as
a ratio to Django answering the same bytes (the API) or rendering the same lines in a bare template (the card)."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template import engines
from django.urls import include, path

# What the floors answer, set by bench/suite.py before they are timed: the API turn's own bytes, the card's lines.
ANSWER: dict[str, object] = {"json": b"{}", "lines": []}

PAGE = engines["django"].from_string(
    "<!doctype html><html><head><title>{{ title }}</title></head><body><ol>"
    "{% for line in lines %}<li id='line-{{ line.n }}'><span>{{ line.n }}</span> {{ line.text }}"
    " <small>{{ line.source }}</small></li>{% endfor %}</ol></body></html>"
)


def json_floor(request: HttpRequest) -> HttpResponse:
    return HttpResponse(ANSWER["json"], content_type="application/json")


@login_required
def page_floor(request: HttpRequest) -> HttpResponse:
    return HttpResponse(PAGE.render({"title": "floor", "lines": ANSWER["lines"]}, request))


urlpatterns = [
    path("bench-floor/json/", json_floor, name="bench-floor-json"),
    path("bench-floor/page/", page_floor, name="bench-floor-page"),
    path("", include("notebook_site.urls")),
]
