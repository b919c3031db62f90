"""The vault's alarms: files it refused, kept as evidence and restored, shown to Dad until he acknowledges them."""

import time
from dataclasses import dataclass
from datetime import UTC, datetime

from django.db import connection, transaction

from notebooks.log.identity.roles import Actor, as_actor
from notebooks.log.rules.checks import bounded
from notebooks.log.rules.errors import Conflict, Forbidden, NotFound
from notebooks.models import VaultAlarm, VaultAlarmAck

from .results import FileResult

MAX_MESSAGE = 500  # an alarm's message quotes outside input: up to 50 are on every page Dad opens


def record_vault_alarm(refused: FileResult) -> VaultAlarm:
    """A file the vault refused: recorded for Dad's pages until he acknowledges it."""
    return VaultAlarm.objects.create(
        at=time.time(),
        title=refused.title[:80],
        problem=refused.problem[:24],
        message=bounded(refused.message, MAX_MESSAGE),
        evidence_ref=refused.evidence_ref,
        evidence_sha=refused.evidence_sha,
    )


def acknowledge_vault_alarm(*, alarm: int, by: "Actor | str", why: str = "") -> VaultAlarmAck:
    actor = as_actor(by)
    if not actor.editor:
        raise Forbidden(f"{actor.name} may not acknowledge a vault alarm; only the human editor may.")
    with transaction.atomic():
        found = VaultAlarm.objects.filter(pk=alarm).first()
        if found is None:
            raise NotFound(f"No vault alarm #{alarm}.")
        if VaultAlarmAck.objects.filter(alarm=found).exists():
            raise Conflict(f"Vault alarm #{alarm} is already acknowledged.")
        return VaultAlarmAck.objects.create(alarm=found, by=actor.name, why=why, at=time.time())


@dataclass(frozen=True)
class Alarm:
    id: int
    at: float
    title: str
    problem: str
    message: str
    evidence_ref: str
    evidence_sha: str
    acknowledged_by: str | None = None
    acknowledged_at: float | None = None

    @property
    def when(self) -> datetime:
        return datetime.fromtimestamp(self.at, tz=UTC)


def vault_alarms(*, include_acknowledged: bool = False, limit: int = 50) -> list[Alarm]:
    where = "" if include_acknowledged else "WHERE k.id IS NULL"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT a.id, a.at, a.title, a.problem, a.message, a.evidence_ref, a.evidence_sha, k.by, k.at "
            "FROM notebooks_vaultalarm a LEFT JOIN notebooks_vaultalarmack k ON k.alarm_id = a.id "
            f"{where} ORDER BY a.id DESC LIMIT %s",
            [limit],
        )
        return [Alarm(*values) for values in cursor.fetchall()]
