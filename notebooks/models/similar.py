"""Suggestions from outside (similar/suggestions.py) and Dad's decisions on them: append-only, never in the log."""

from django.db import models

from notebooks.models.log import Notebook

KINDS = ("repeat", "conflict", "stray")
OUTCOMES = ("merged", "kept", "retired", "not_alike", "dismissed")


class Suggestion(models.Model):
    """Lines someone outside thinks repeat, contradict each other, or stray; pending until decided or a line goes."""

    notebook = models.ForeignKey(Notebook, on_delete=models.PROTECT, related_name="+", db_index=False)
    lines = models.JSONField(help_text="The suggested lines' numbers, ascending (a set).")
    kind = models.CharField(max_length=8, choices=[(k, k) for k in KINDS])
    words = models.TextField(blank=True, default="", help_text="A repeat: the words to keep, if suggested.")
    keep = models.PositiveIntegerField(null=True, blank=True, help_text="A conflict: the line to keep, if suggested.")
    why = models.TextField(help_text="The suggester's reason.")
    by = models.CharField(max_length=150, help_text="Who suggested it: the token's actor.")
    at = models.FloatField(help_text="When it was received (server time), epoch seconds.")

    class Meta:
        indexes = [models.Index(fields=["notebook", "id"], name="suggestion_by_notebook")]

    def __str__(self) -> str:
        return f"{self.kind} of {self.lines} on {self.notebook_id} by {self.by}"


class SuggestionDecision(models.Model):
    """Dad's decision on a suggestion, with his reason; the rows it wrote are in their own tables."""

    suggestion = models.OneToOneField(Suggestion, on_delete=models.PROTECT, related_name="decision", db_index=False)
    outcome = models.CharField(max_length=10, choices=[(o, o) for o in OUTCOMES])
    by = models.CharField(max_length=150, help_text="The editor's username.")
    why = models.TextField()
    at = models.FloatField(help_text="When he decided, epoch seconds.")

    def __str__(self) -> str:
        return f"suggestion {self.suggestion_id} {self.outcome} by {self.by}"
