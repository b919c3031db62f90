"""Redaction: words removed from the database for good, in the transaction of the redact row naming their digest;
every copy a process keeps in memory, and PostgreSQL's dead rows, lose them once it commits."""

import logging

from django.db import DatabaseError, connection, transaction
from django.dispatch import Signal

from notebooks.log.identity import wordkeys
from notebooks.log.identity.roles import Actor, as_actor
from notebooks.log.rules import decision, fold
from notebooks.log.rules.checks import check_number, check_reason
from notebooks.log.rules.errors import Invalid
from notebooks.log.services import Written, lock_for_write
from notebooks.log.store import rows as stored
from notebooks.log.store.append import append
from notebooks.log.store.locked_reads import redacted_digests_of
from notebooks.log.store.view_reads import fetch_one
from notebooks.log.views import kept, snapshots
from notebooks.models import Notebook

logger = logging.getLogger(__name__)


def redact(
    *, notebook: str, n: int, by: "Actor | str", why: str, seq: int | None = None, digest: str | None = None
) -> Written:
    """The words of row `seq` of line n, or with `digest`, or else its current words, read "[redacted: why]" after."""
    actor = as_actor(by)
    decision.precheck({"op": "redact", "by": actor.name}, editor=actor.editor)  # before any read
    check_number(n)
    check_reason(why)
    if seq is not None and digest is not None:
        raise Invalid("Name the words to redact by seq or by digest, not both.")
    with transaction.atomic():
        nb, claim = lock_for_write(notebook, actor)
        found = stored.line_digests(nb.pk, n)
        digests = {s: d for s, _op, d in found if d}
        state = decision.State(title=nb.title, worded={n: set(digests.values())} if found else {})
        if not found or (digest is not None and seq is None):
            target = digest or ""
        else:
            taken = fold.redacted_seq([(s, op) for s, op, d in found if d], seq)
            if taken is None and seq is not None:
                raise Invalid(f"Seq {seq} is not a row of line #{n} that carries words.")
            if taken is None:
                raise Invalid(f"Line #{n} has no words of its own to redact; name an adopted row by its seq.")
            target = digests[taken]
        state.redacted = redacted_digests_of(nb, [target]) if target else {}
        fields = {"op": "redact", "by": actor.name, "why": why, **claim}
        decision.decide(state, {**fields, "n": n, "redacts": target}, editor=actor.editor)
        targets = [(n, target), *_other_copies(nb, target)]
        row, *_ = append(nb, [{**fields, "n": m, "redacts": d} for m, d in targets])
        with connection.cursor() as cursor:
            # The words' DELETE trigger allows exactly this: words named by a redact row of their notebook.
            for _m, d in targets:
                cursor.execute("DELETE FROM notebooks_words WHERE notebook_id = %s AND digest = %s", [nb.pk, d])
        snapshots.rebuild(nb.pk)  # they held the words too: made again, with the redaction's mark

        def forget_words() -> None:  # a function, not a lambda: Django's robust on_commit logs its __qualname__
            kept.forget_notebook(nb)  # and the layers above that keep words drop theirs (words_redacted)
            words_redacted.send(sender=Notebook, notebook=nb)
            if connection.vendor == "postgresql":
                vacuum_words()  # PostgreSQL's dead rows hold them too

        transaction.on_commit(forget_words, robust=True)  # an error is logged: the redaction itself is committed
    return Written.of(n, [row])


def _other_copies(notebook: Notebook, target: str) -> list[tuple[int, str]]:
    """The same words under their other digest (plain or keyed), each with the first line that carried it."""
    found = fetch_one("SELECT body FROM notebooks_words WHERE notebook_id = %s AND digest = %s", [notebook.pk, target])
    others = [d for d in wordkeys.lookups(notebook.title, found[0]) if d != target] if found else []
    firsts = [(stored.first_line_keeping(notebook.pk, d), d) for d in others]
    return [(line, d) for line, d in firsts if line is not None]


# Sent once a redaction commits (notebook=): a layer above that keeps the words in memory (the card's rendered
# lines) drops them; the core imports none of them.
words_redacted = Signal()


VACUUMED = "notebooks_words, notebooks_snapshot"  # the tables whose deleted rows held the words


def vacuum_words() -> bool:
    """Whether the words' tables were vacuumed (PostgreSQL); a role not owning them may not: logged, never raised."""
    if connection.in_atomic_block:
        logger.warning("The words' tables were not vacuumed after a redaction: a transaction is still open.")
        return False
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT bool_and(pg_has_role(c.relowner, 'USAGE')) FROM pg_class c "
                "WHERE c.oid IN ('notebooks_words'::regclass, 'notebooks_snapshot'::regclass)"
            )
            (owner,) = cursor.fetchone()
            if not owner:  # VACUUM would only warn and skip them
                logger.warning(
                    "The words' tables were not vacuumed after a redaction: this role does not own them. "
                    "Autovacuum will, or run VACUUM %s as their owner (docs/POSTGRES.md).",
                    VACUUMED,
                )
                return False
            cursor.execute(f"VACUUM {VACUUMED}")
    except DatabaseError as exc:
        logger.warning("The words' tables were not vacuumed after a redaction: %s", exc)
        return False
    return True
