"""`/healthz`: for a load balancer or a process supervisor. No sign-in, and nothing in the answer but states."""

from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from notebooks.log.store import triggers


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database answers and every append-only trigger is in place; 503 otherwise."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        migrated = set(triggers.PROTECTED_TABLES) <= set(connection.introspection.table_names())
        missing = triggers.missing(connection) if migrated else []
    except DatabaseError:
        # The error's text may name the host, the role or the database: a caller without a sign-in sees none of it.
        return JsonResponse({"status": "unavailable", "database": "unreachable"}, status=503)
    if not migrated:
        return JsonResponse({"status": "unavailable", "database": "not migrated"}, status=503)
    if missing:
        return JsonResponse(
            {"status": "unavailable", "database": "ok", "triggers": f"{len(missing)} append-only trigger(s) missing"},
            status=503,
        )
    return JsonResponse({"status": "ok", "database": "ok", "triggers": "ok"})
