"""A database whose disk is full or whose connection was lost answers 503 with Retry-After (docs/RELIABILITY.md)."""

import logging
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

from notebooks.log.store.storage import unavailable

log = logging.getLogger("notebooks.storage")

RETRY_SECONDS = "10"


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        message = unavailable(exception)
        if message is None:
            return None
        log.warning("refused %s %s: the database could not take it (%s)", request.method, request.path, exception)
        if request.path.startswith("/api/"):
            response: HttpResponse = JsonResponse({"error": {"code": "unavailable", "message": message}}, status=503)
        else:
            response = HttpResponse(message, status=503, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = RETRY_SECONDS
        return response
