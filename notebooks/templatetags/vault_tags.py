"""{% vault_banner %}: the vault's unacknowledged alarms, for the top of Dad's pages."""

from typing import Any

from django import template

from notebooks.vault import alarms

register = template.Library()


@register.inclusion_tag("notebooks/_vault_banner.html", takes_context=True)
def vault_banner(context: template.Context) -> dict[str, Any]:
    return {"vault_alarms": alarms.vault_alarms(), "request": context.get("request")}
