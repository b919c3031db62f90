"""The notebook log. Rows and words are only ever inserted; the database refuses the rest (triggers.py)."""

from django.core.validators import RegexValidator
from django.db import models

TITLE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9 ._+-]{0,79}$"
title_validator = RegexValidator(
    TITLE_PATTERN,
    "A title is 1-80 characters: letters, digits, spaces, '.', '_', '+', '-', starting with a letter or digit.",
)


class Op(models.TextChoices):
    ADD = "add"
    EDIT = "edit"
    STRIKE = "strike"
    ADOPT = "adopt"


class Source(models.TextChoices):
    SEEN = "seen"
    GUESSED = "guessed"
    DAD = "dad"
    DAD_CORRECTION = "dad_correction"


class How(models.TextChoices):
    RETIRED = "retired"
    MERGED = "merged"


class Notebook(models.Model):
    title = models.CharField(max_length=80, unique=True, validators=[title_validator])
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.CharField(max_length=80)

    class Meta:
        ordering = ["title"]
        permissions = [("edit_any_line", "Is the human editor: may write any source and change any line")]

    def __str__(self) -> str:
        return self.title


class Words(models.Model):
    """A line's words, kept apart from the row so a leaked secret can later be redacted.

    The row's hash covers only the words' digest, so the chain still verifies once the
    words themselves are gone.
    """

    notebook = models.ForeignKey(Notebook, on_delete=models.PROTECT, related_name="+")
    digest = models.CharField(max_length=64)
    body = models.TextField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["notebook", "digest"], name="words_once_per_notebook")]

    def __str__(self) -> str:
        return self.digest[:12]


class Row(models.Model):
    notebook = models.ForeignKey(Notebook, on_delete=models.PROTECT, related_name="rows")
    seq = models.PositiveBigIntegerField()
    op = models.CharField(max_length=8, choices=Op.choices)
    n = models.PositiveIntegerField()
    # Digest of the row's words (add: text, edit: to, adopt: was); the words live in Words.
    digest = models.CharField(max_length=64, blank=True, default="")
    source = models.CharField(max_length=16, choices=Source.choices, blank=True, default="")
    by = models.CharField(max_length=80)
    why = models.TextField(blank=True, default="")
    how = models.CharField(max_length=8, choices=How.choices, blank=True, default="")
    into = models.PositiveIntegerField(null=True, blank=True)
    at = models.FloatField(help_text="Recording time, epoch seconds; never goes backwards within a notebook.")
    # Adopted rows keep the time and author of the words they recovered.
    was_at = models.FloatField(null=True, blank=True)
    was_by = models.CharField(max_length=80, blank=True, default="")
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["notebook", "seq"], name="row_seq_once"),
            models.UniqueConstraint(
                fields=["notebook", "n"], condition=models.Q(op="add"), name="row_number_given_once"
            ),
            models.CheckConstraint(condition=models.Q(seq__gte=1), name="row_seq_positive"),
            models.CheckConstraint(condition=models.Q(n__gte=1), name="row_n_positive"),
        ]
        indexes = [
            # A line's rows in order, with op: VIEW_SQL groups them by an index-only scan (also serves history).
            models.Index(fields=["notebook", "n", "seq", "op"], name="row_fold_idx"),
            # The last row at or before a time, by a seek (times never go backwards within a notebook).
            models.Index(fields=["notebook", "at", "seq"], name="row_cut_idx"),
            models.Index(fields=["by"], name="row_by_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.notebook_id}#{self.seq} {self.op} n={self.n}"
