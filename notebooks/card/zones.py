"""Times in the reader's zone, which his browser reports (zone.js's `tz` cookie), kept per user; UTC until known."""

import zoneinfo
from collections.abc import Callable
from urllib.parse import unquote

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from notebooks.card.services import set_zone, valid_zone
from notebooks.models import ReaderZone

COOKIE = "tz"
SESSION_KEY = "reader_zone"


def reader_zone(request: HttpRequest) -> str | None:
    """The reader's zone: his browser's (kept for him when it changed), else the one kept for him."""
    reported = valid_zone(unquote(request.COOKIES.get(COOKIE, "")))
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return reported
    kept = request.session.get(SESSION_KEY)
    if kept is None:
        kept = ReaderZone.objects.filter(user=user).values_list("zone", flat=True).first() or ""
        request.session[SESSION_KEY] = kept
    if reported and reported != kept:
        set_zone(user=user, zone=reported)
        request.session[SESSION_KEY] = kept = reported
    return valid_zone(kept) or reported


class ReaderZoneMiddleware:
    """Activates the reader's zone for the request (after AuthenticationMiddleware)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        zone = reader_zone(request)
        if zone:
            timezone.activate(zoneinfo.ZoneInfo(zone))
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
