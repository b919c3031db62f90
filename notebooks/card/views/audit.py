"""The audit: every row across notebooks, filtered, newest first."""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from notebooks.card import selectors as card_selectors
from notebooks.card.forms import AuditForm
from notebooks.card.views.respond import (
    render_page,
)


@login_required
@require_GET
def audit(request: HttpRequest) -> HttpResponse:
    form = AuditForm(request.GET or None, titles=card_selectors.titles(), actors=card_selectors.actors())
    filters: dict[str, Any] = {}
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        filters = {
            "notebook": data["notebook"],
            "by": data["by"],
            "op": data["op"],
            "since": data["since"].timestamp() if data["since"] else None,
            "until": data["until"].timestamp() if data["until"] else None,
            "page": data["page"] or 1,
        }
    page = card_selectors.audit(**filters)
    return render_page(request, "notebooks/audit.html", {"form": form, "page": page})
