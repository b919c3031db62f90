"""What a user would otherwise pick: a table of live lines whose history django-simple-history keeps."""

from django.db import models
from simple_history.models import HistoricalRecords


class PeerLine(models.Model):
    """One record per line: created on add, saved on edit, deleted on retirement or merge."""

    notebook = models.CharField(max_length=80)
    n = models.PositiveIntegerField()
    text = models.TextField()
    source = models.CharField(max_length=16)
    by = models.CharField(max_length=80)
    history = HistoricalRecords()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["notebook", "n"], name="peer_line_once")]

    def __str__(self) -> str:
        return f"{self.notebook}#{self.n}"
