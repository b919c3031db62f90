"""Dad's card: sign-in failures, review marks, reader zones, turn reads, archive marks, Not alike (card/)."""

from django.db import models

from notebooks.models.log import Notebook


class SigninFailure(models.Model):
    """One failed sign-in under one throttle key: rows, so parallel attempts in any process are all counted."""

    key = models.CharField(max_length=64, help_text="sha256 of what is counted: a username+address, or an address.")
    at = models.FloatField()

    class Meta:
        indexes = [
            models.Index(fields=["key", "at"], name="signin_failure_key_at"),
            models.Index(fields=["at"], name="signin_failure_at"),
        ]

    def __str__(self) -> str:
        return f"sign-in failure {self.key[:12]} at {self.at}"


class ReviewMark(models.Model):
    """An editor has reviewed a notebook up to row `seq`. Append-only: his latest mark counts."""

    notebook = models.ForeignKey(Notebook, on_delete=models.PROTECT, related_name="+", db_index=False)
    by = models.CharField(max_length=150, help_text="The editor's username.")
    seq = models.PositiveBigIntegerField(help_text="The notebook's head seq he reviewed up to.")
    hash = models.CharField(max_length=64)
    # The highest line number used up to seq: a line numbered above it was added since (numbers only grow).
    top_n = models.PositiveIntegerField(default=0)
    at = models.FloatField(help_text="When he marked it, epoch seconds.")

    class Meta:
        indexes = [models.Index(fields=["notebook", "by", "seq"], name="review_mark_latest")]

    def __str__(self) -> str:
        return f"{self.by} reviewed {self.notebook_id} up to {self.seq}"


class ReaderZone(models.Model):
    """The time zone a reader's browser reported (card/zones.py): the card shows his times in it."""

    user = models.OneToOneField("auth.User", on_delete=models.CASCADE, related_name="+")
    zone = models.CharField(max_length=64)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.zone}"


class TurnRead(models.Model):
    """When a turn last handed this notebook to an agent: one row per notebook, moved at most once a minute."""

    notebook = models.OneToOneField(Notebook, on_delete=models.PROTECT, primary_key=True, related_name="+")
    at = models.FloatField(help_text="When the turn was last read, epoch seconds.")
    by = models.CharField(max_length=150, help_text="Who read it: the agent's name, or the CLI's.")

    def __str__(self) -> str:
        return f"{self.notebook_id} read by {self.by} at {self.at}"


class ArchiveMark(models.Model):
    """Dad put a notebook with no live lines off the index (archived) or back on it. Append-only: his latest counts."""

    notebook = models.ForeignKey(Notebook, on_delete=models.PROTECT, related_name="+", db_index=False)
    archived = models.BooleanField(help_text="True: off the index; False: back on it.")
    by = models.CharField(max_length=150, help_text="The editor's username.")
    why = models.TextField(blank=True, default="")
    at = models.FloatField(help_text="When, epoch seconds.")

    class Meta:
        indexes = [models.Index(fields=["notebook", "id"], name="archive_mark_latest")]

    def __str__(self) -> str:
        return f"{self.notebook_id} {'archived' if self.archived else 'back on the index'} by {self.by}"


class NotAlike(models.Model):
    """Dad's word that lines the engine grouped are not alike. Append-only: undoing a mark is a new row naming it."""

    notebook = models.ForeignKey(Notebook, on_delete=models.PROTECT, related_name="+", db_index=False)
    lines = models.JSONField(help_text="The marked lines' numbers, ascending (a set).")
    by = models.CharField(max_length=150, help_text="The editor's username.")
    why = models.TextField(blank=True, default="")
    at = models.FloatField(help_text="When he marked it, epoch seconds.")
    undoes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="undone_by", db_index=False
    )

    class Meta:
        indexes = [models.Index(fields=["notebook", "id"], name="not_alike_by_notebook")]

    def __str__(self) -> str:
        what = f"undoes {self.undoes_id}" if self.undoes_id else f"lines {self.lines}"
        return f"not alike on {self.notebook_id}: {what} by {self.by}"
