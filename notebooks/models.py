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
    REDACT = "redact"


class Source(models.TextChoices):
    SEEN = "seen"
    GUESSED = "guessed"
    DAD = "dad"
    DAD_CORRECTION = "dad_correction"


class How(models.TextChoices):
    RETIRED = "retired"
    MERGED = "merged"
    MOVED = "moved"  # to another notebook: the strike names it in moved_notebook / moved_n


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

    # No index of its own: words_once_per_notebook (notebook, digest) leads with it (one index less to write).
    notebook = models.ForeignKey(Notebook, on_delete=models.PROTECT, related_name="+", db_index=False)
    digest = models.CharField(max_length=64)
    body = models.TextField()
    # The salt of a keyed digest (log/wordkeys.py), deleted with the words; NULL for older words (a plain digest).
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
    # The take/land session the row was written in (sessions.py): provenance kept beside the row, not hashed.
    # No index: a session's rows are found after its base on (notebook, seq); most rows have none.
    session = models.ForeignKey(
        "Session", null=True, blank=True, on_delete=models.PROTECT, related_name="rows", db_index=False
    )
    # A redact row names the digest of the words it removed; nullable so adding it never rebuilds the table.
    redacts = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001 - NULL: no table rebuild
    # A move between notebooks (fold.py): on a strike how="moved", the notebook and line it went to; on an add,
    # the notebook and line it came from. Nullable, so adding them never rebuilt the table; hashed only when set.
    moved_notebook = models.CharField(max_length=80, null=True, blank=True)  # noqa: DJ001 - NULL: no table rebuild
    moved_n = models.PositiveIntegerField(null=True, blank=True)

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


class VaultAlarm(models.Model):
    """A vault file that was not an append of the log: refused, kept as evidence, restored. Shown until acknowledged."""

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


class Role(models.TextChoices):
    AGENT = "agent"
    EDITOR = "editor"


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


class WriterKey(models.Model):
    """A key an outside writer signs vault rows with (log/writer_keys.py). No secret is stored: the writer's secret
    is derived from the server's secret, the key id and the salt, so this row alone proves nothing."""

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
    """Which writer key proved an outside row of the log (log/imports.py), and its mac: a mac proves one row once,
    so the same signed row appended again is refused. Append-only (triggers.py); never part of the row's hash."""

    notebook = models.ForeignKey(Notebook, on_delete=models.PROTECT, related_name="+", db_index=False)
    seq = models.PositiveBigIntegerField(help_text="The row of the notebook's log the key proved.")
    key_id = models.CharField(max_length=16)
    mac = models.CharField(max_length=64, unique=True, help_text="The row's HMAC as the writer signed it.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["notebook", "seq"], name="row_proof_once")]

    def __str__(self) -> str:
        return f"{self.notebook_id}#{self.seq} proved by {self.key_id}"


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
    """When a session's holder last called (sessions/leases.py). Not part of the log: the one row a session has that
    is updated, so it lives apart from the append-only session and its events."""

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

    class Meta:
        constraints = [models.UniqueConstraint(fields=["session", "seq"], name="session_event_seq_once")]

    def __str__(self) -> str:
        return f"session {self.session_id} #{self.seq} {self.kind}"


class Snapshot(models.Model):
    """The live view as the log stood at row `seq`, so a first read folds only the rows after it (snapshots.py).

    Derived, never the source of truth: a reader uses it only while row `seq` still carries `hash`, the notebook's
    count of redactions is still `redactions`, and `mac` (keyed by SECRET_KEY) matches. Deleting one only makes
    reads slower; a redaction deletes the notebook's snapshots and makes them again without the words.
    """

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


class SigninFailure(models.Model):
    """One failed sign-in under one throttle key (card/throttle.py): a count is an INSERT and a COUNT, so parallel
    attempts in any number of worker processes are all counted. Not part of the log: expired rows are deleted."""

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
    """An editor has reviewed a notebook up to row `seq` (its hash as he saw it): what is new for him starts after.
    Append-only like the log (triggers.py): his latest mark counts, earlier ones stay as the record of his reviews."""

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
    """The time zone a reader's browser reported (card/zones.py): the card shows his times in it. Not the log."""

    user = models.OneToOneField("auth.User", on_delete=models.CASCADE, related_name="+")
    zone = models.CharField(max_length=64)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.zone}"


class TurnRead(models.Model):
    """When a turn last handed this notebook to an agent (log/reads.py): the index shows one never read. Not the log:
    one row per notebook, moved forward at most once a minute."""

    notebook = models.OneToOneField(Notebook, on_delete=models.PROTECT, primary_key=True, related_name="+")
    at = models.FloatField(help_text="When the turn was last read, epoch seconds.")
    by = models.CharField(max_length=150, help_text="Who read it: the agent's name, or the CLI's.")

    def __str__(self) -> str:
        return f"{self.notebook_id} read by {self.by} at {self.at}"


class ArchiveMark(models.Model):
    """Dad put a notebook with no live lines off the index (archived) or back on it. Append-only like the log: his
    latest mark counts, earlier ones stay as the record; a notebook is never deleted."""

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
    """Dad's word that a set of lines the similar-lines engine grouped are not alike (notebooks/similar), so the
    group is not offered again. Append-only like the log (triggers.py), never in it: undoing a mark is a new row
    naming it in `undoes`."""

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


class IdempotencyKey(models.Model):
    """An agent's write as first answered, under the Idempotency-Key it sent (agents/idempotency.py): the same
    request again within NOTEBOOK_IDEMPOTENCY_TTL answers this again and writes nothing. Stored in the write's own
    transaction, so a key never stands without its rows nor rows without their key. Not part of the log: expired
    keys are deleted."""

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
