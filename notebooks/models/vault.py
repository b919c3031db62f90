"""The vault's alarms and their acknowledgements (vault/)."""

from django.db import models


class VaultAlarm(models.Model):
    """A vault file that was not an append of the log: refused, kept as evidence, restored; shown until acknowledged."""

    at = models.FloatField(help_text="When the vault found it, epoch seconds.")
    title = models.CharField(max_length=80)
    problem = models.CharField(max_length=24)  # rewritten, truncated, deleted, refused_append
    message = models.TextField()
    evidence_ref = models.CharField(max_length=255, blank=True, default="")
    evidence_sha = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        indexes = [models.Index(fields=["at"], name="vault_alarm_at_idx")]

    def __str__(self) -> str:
        return f"{self.title}: {self.problem}"


class VaultAlarmAck(models.Model):
    """The editor has seen an alarm: a row of its own, since alarms are never updated."""

    alarm = models.OneToOneField(VaultAlarm, on_delete=models.PROTECT, related_name="ack")
    by = models.CharField(max_length=80)
    why = models.TextField(blank=True, default="")
    at = models.FloatField()

    def __str__(self) -> str:
        return f"ack of {self.alarm_id} by {self.by}"
