"""The views' caches kept up with every append (the store's follower, registered in apps.py): the snapshots the rows
reach, made in their transaction, and once it commits, the rows folded into this process's kept view."""

from django.db import transaction

from notebooks.log.rules.lines import Head
from notebooks.log.store.append import Follower, RowWritten
from notebooks.log.store.locked_reads import AnyNotebook
from notebooks.log.views import kept, snapshots


class Caches(Follower):
    def writes_after(self, before: int, after: int) -> bool:
        """Whether a snapshot is due between the two rows."""
        return after // snapshots.EVERY != before // snapshots.EVERY

    def appended(
        self, notebook: AnyNotebook, top: Head, written: list[RowWritten], *, fold: bool, words_missing: bool
    ) -> None:
        after = written[-1].seq if written else top.seq
        if self.writes_after(top.seq, after):
            _snapshot(notebook, top, written, after, words_missing=words_missing)
        if len(written) <= kept.FOLD_STEP and fold:
            # Not a big import, nor where words were redacted (a rebuild shows the redaction's mark).
            def fold_in() -> None:  # a function, not a partial: Django's robust on_commit logs its __qualname__
                kept.fold_in(notebook, top, written)

            transaction.on_commit(fold_in, robust=True)  # an error is logged: the write itself is committed


def _snapshot(notebook: AnyNotebook, top: Head, written: list[RowWritten], after: int, *, words_missing: bool) -> None:
    if top.seq == 0 and not words_missing:
        # Rows into an empty notebook (an import), folded from memory; with words missing the snapshots are made from
        # the log, with the redaction's mark.
        folder = snapshots.Folder(spacing=snapshots.IMPORT_SPACING)
        folder.feed((w.seq, w.op, w.n, w.source, w.by, w.at, w.hash, w.body, False) for w in written)
        folder.finish()
        snapshots.store(notebook.pk, folder.made, redactions=0)
    else:
        snapshots.catch_up(notebook.pk, after)
