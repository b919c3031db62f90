"""The agents' doors: API tokens and the idempotency keys of their writes (agents/)."""

from django.db import models

from notebooks.models.log import Role


class Token(models.Model):
    """An API bearer token. Only the sha256 of its secret is kept; revoking sets revoked_at."""

    actor = models.CharField(max_length=80)
    role = models.CharField(max_length=8, choices=Role.choices, default=Role.AGENT)
    digest = models.CharField(max_length=64, unique=True)
    hint = models.CharField(max_length=16, help_text="The secret's first characters, to tell tokens apart.")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.CharField(max_length=80, blank=True, default="")
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_why = models.TextField(blank=True, default="")

    def __str__(self) -> str:
        return f"{self.hint}… {self.actor} ({self.role})"


class IdempotencyKey(models.Model):
    """An agent's write as first answered under its Idempotency-Key, stored in the write's own transaction."""

    actor = models.CharField(max_length=150, help_text="Whose key: the token's actor.")
    key = models.CharField(max_length=255)
    what = models.CharField(max_length=300, help_text="The request it answered: 'POST /api/…' or 'mcp add'.")
    fingerprint = models.CharField(max_length=64, help_text="sha256 of the request and its canonical body.")
    status = models.PositiveSmallIntegerField()
    answer = models.TextField(help_text="The answer's body, as first sent.")
    at = models.FloatField(help_text="When it was first answered, epoch seconds.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["actor", "key"], name="idempotency_key_once_per_actor")]
        indexes = [models.Index(fields=["at"], name="idempotency_key_at")]

    def __str__(self) -> str:
        return f"{self.actor}'s key {self.key[:40]} for {self.what}"
