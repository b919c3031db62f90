"""Take/land sessions: a session, its lease and its append-only events (sessions/)."""

from django.db import models

from notebooks.models.log import Notebook, Role


class Session(models.Model):
    """A take/land session: one actor's claim on one notebook. Its state comes from its events (append-only)."""

    notebook = models.ForeignKey(Notebook, on_delete=models.PROTECT, related_name="sessions")
    actor = models.CharField(max_length=80)
    role = models.CharField(max_length=8, choices=Role.choices)
    plan = models.TextField()
    base = models.PositiveBigIntegerField(help_text="The notebook's head seq at take; the final gates compare with it.")
    at = models.FloatField()
    # The vault's commit at take (notebooks.vault.wiring); empty when no vault is configured.
    vault_base = models.CharField(max_length=64, blank=True, default="")

    def __str__(self) -> str:
        return f"session {self.pk} {self.actor} on {self.notebook_id}"


class SessionLease(models.Model):
    """When a session's holder last called: the one row of a session that is updated, apart from the append-only."""

    session = models.OneToOneField(Session, on_delete=models.CASCADE, primary_key=True, related_name="lease")
    renewed_at = models.FloatField()

    def __str__(self) -> str:
        return f"lease of session {self.session_id} renewed at {self.renewed_at}"


class EventKind(models.TextChoices):
    TAKE = "take"
    DRIFT = "drift"
    CHECKPOINT = "checkpoint"
    LAND = "land"
    ABANDON = "abandon"
    LAPSE = "lapse"  # no call of the holder for NOTEBOOK_SESSION_TTL seconds: the notebook is free (sessions/leases.py)
    REFUSE = "refuse"  # the land gates' reasons: a land they refused, or overruled by the editor's land (decisions.py)
    WITHDRAW = "withdraw"  # one proposal taken back while the session is open: it no longer counts (services.py)


class SessionEvent(models.Model):
    """One step of a session, in order. Drift covers the rows by others in (after, head]."""

    session = models.ForeignKey(Session, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=12, choices=EventKind.choices)
    by = models.CharField(max_length=80)
    at = models.FloatField()
    head = models.PositiveBigIntegerField(help_text="The notebook's head seq when the event was recorded.")
    after = models.PositiveBigIntegerField(null=True, blank=True)
    note = models.TextField(blank=True, default="")
    result = models.CharField(max_length=12, blank=True, default="")
    rows = models.PositiveIntegerField(default=0)
    # A withdraw: the seq of the session's proposal it takes back (that row stays in the log; it never lands).
    proposal = models.PositiveBigIntegerField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["session", "seq"], name="session_event_seq_once")]

    def __str__(self) -> str:
        return f"session {self.session_id} #{self.seq} {self.kind}"
