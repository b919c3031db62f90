"""Site-wide answers to failures no view can help: a database whose disk is full is a 503, not a traceback."""

import logging
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

from notebooks.log.storage import STORAGE_FULL, storage_full

log = logging.getLogger("notebooks.storage")

RETRY_SECONDS = "10"


class StorageFullMiddleware:
    """A write refused because the database's disk is full answers 503 with Retry-After; the transaction rolled
    back, so nothing of it stands (docs/RELIABILITY.md, section 2)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not storage_full(exception):
            return None
        log.warning("refused %s %s: the database's disk is full (%s)", request.method, request.path, exception)
        message = STORAGE_FULL
        if request.path.startswith("/api/"):
            response: HttpResponse = JsonResponse({"error": {"code": "unavailable", "message": message}}, status=503)
        else:
            response = HttpResponse(message, status=503, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = RETRY_SECONDS
        return response
