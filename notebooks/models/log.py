"""The log: notebooks, their rows and words, snapshots, writer keys and the proofs of outside rows. Rows and words are
only ever inserted; the database refuses the rest (log/store/triggers.py)."""

from django.core.validators import RegexValidator
from django.db import models

from notebooks.log.rules.fold import SOURCES

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
    REDACT = "redact"
    PROPOSE = "propose"  # a session's pending change (fold.py): counts only once a land copies it


# The rule book's sources (log/rules/fold.py, pure), as the model's choices: SEEN, GUESSED, DAD, DAD_CORRECTION.
Source = models.TextChoices("Source", [(source.upper(), source) for source in SOURCES])


class How(models.TextChoices):
    RETIRED = "retired"
    MERGED = "merged"
    MOVED = "moved"  # to another notebook: the strike names it in moved_notebook / moved_n


class Role(models.TextChoices):
    AGENT = "agent"
    EDITOR = "editor"


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
    """A line's words, apart from the row (whose hash covers only their digest) so a leaked secret can be redacted."""

    # No index of its own: words_once_per_notebook (notebook, digest) leads with it (one index less to write).
    notebook = models.ForeignKey(Notebook, on_delete=models.PROTECT, related_name="+", db_index=False)
    digest = models.CharField(max_length=64)
    body = models.TextField()
    # The salt of a keyed digest (log/identity/wordkeys.py), deleted with the words; NULL: a plain, older digest.
    salt = models.CharField(max_length=32, null=True, blank=True)  # noqa: DJ001 - NULL: no table rebuild

    class Meta:
        constraints = [models.UniqueConstraint(fields=["notebook", "digest"], name="words_once_per_notebook")]

    def __str__(self) -> str:
        return self.digest[:12]


class Row(models.Model):
    # No index of its own: row_seq_once (notebook, seq) leads with it (one index less to write per row).
    notebook = models.ForeignKey(Notebook, on_delete=models.PROTECT, related_name="rows", db_index=False)
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
    # The session the row was written in, not hashed. No index: its rows are found after its base on (notebook, seq).
    session = models.ForeignKey(
        "Session", null=True, blank=True, on_delete=models.PROTECT, related_name="rows", db_index=False
    )
    # A redact row names the digest of the words it removed; nullable so adding it never rebuilds the table.
    redacts = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001 - NULL: no table rebuild
    # A move (fold.py): on a strike, the notebook and line it went to; on an add, whence. Hashed only when set.
    moved_notebook = models.CharField(max_length=80, null=True, blank=True)  # noqa: DJ001 - NULL: no table rebuild
    moved_n = models.PositiveIntegerField(null=True, blank=True)
    # A session's proposal (op "propose", fold.py): the op it proposes (add, edit, strike). Hashed only when set.
    proposes = models.CharField(max_length=8, null=True, blank=True)  # noqa: DJ001 - NULL: no table rebuild
    # A landed copy of a proposal: the proposal's seq. Hashed only when set.
    lands = models.PositiveBigIntegerField(null=True, blank=True)
    # The time an outside writer gave a row appended to an existing notebook (history only). Hashed only when set.
    claimed_at = models.FloatField(null=True, blank=True)

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
            models.Index(fields=["notebook", "redacts"], name="row_redacts_idx"),
            # The add that restored a line (its `into`), for the line's history: only restores are indexed.
            models.Index(
                fields=["notebook", "into"],
                name="row_restores_idx",
                condition=models.Q(op="add", into__isnull=False),
            ),
            # The strikes into a line (merged or retired into it), for that line's history: only those are indexed.
            models.Index(
                fields=["notebook", "into"],
                name="row_struck_into_idx",
                condition=models.Q(op="strike", into__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.notebook_id}#{self.seq} {self.op} n={self.n}"


class Snapshot(models.Model):
    """The live view at row `seq`, so a first read folds only the rows after it; derived, used while `hash`,
    `redactions` and `mac` still match (snapshots.py)."""

    notebook = models.ForeignKey(Notebook, on_delete=models.PROTECT, related_name="+", db_index=False)
    seq = models.PositiveBigIntegerField()
    hash = models.CharField(max_length=64)
    at = models.FloatField()
    live = models.PositiveIntegerField(help_text="How many lines the snapshot holds.")
    redactions = models.PositiveIntegerField(default=0)
    lines = models.BinaryField()
    mac = models.CharField(max_length=64)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["notebook", "seq"], name="snapshot_seq_once")]

    def __str__(self) -> str:
        return f"snapshot {self.notebook_id}@{self.seq}"


class WriterKey(models.Model):
    """A key an outside writer signs vault rows with; its secret is derived, never stored (writer_keys.py)."""

    key_id = models.CharField(max_length=16, unique=True, help_text="Public: each signed row names it in `kid`.")
    actor = models.CharField(max_length=80, help_text="Whom the rows it signs are by (through the one name check).")
    editor = models.BooleanField(
        default=False, help_text="May write as the editor, only while the actor's user holds the role."
    )
    salt = models.CharField(max_length=32, help_text="Random, hex; part of what the secret is derived from.")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.CharField(max_length=150, blank=True, default="")
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.CharField(max_length=150, blank=True, default="")
    revoked_why = models.TextField(blank=True, default="")

    def __str__(self) -> str:
        return f"{self.key_id} {self.actor} ({'editor' if self.editor else 'agent'})"


class RowProof(models.Model):
    """Which writer key proved an outside row, and its mac: a mac proves one row once. Append-only, never hashed."""

    notebook = models.ForeignKey(Notebook, on_delete=models.PROTECT, related_name="+", db_index=False)
    seq = models.PositiveBigIntegerField(help_text="The row of the notebook's log the key proved.")
    key_id = models.CharField(max_length=16)
    mac = models.CharField(max_length=64, unique=True, help_text="The row's HMAC as the writer signed it.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["notebook", "seq"], name="row_proof_once")]

    def __str__(self) -> str:
        return f"{self.notebook_id}#{self.seq} proved by {self.key_id}"
