"""The `line` partial's output kept in this process, keyed by the line (words included) and the request (line_items).
A redaction leaves its words nowhere: fragments go when the count of redactions changes, or one commits here."""

from dataclasses import dataclass, field

from django.dispatch import receiver
from django.utils.safestring import SafeString

from notebooks.log.redaction import words_redacted
from notebooks.log.store.view_reads import count_redactions
from notebooks.log.views.lru import LRU, notebook_key
from notebooks.models import Notebook

FRAGMENTS_KEPT = 20_000  # about 1 kB each: a 1,000-line card for an editor, a reader and a few frozen views, twice


@dataclass
class Kept:
    """One notebook's kept fragments, valid while it has `redactions` redact rows."""

    redactions: int
    html: dict[tuple, SafeString] = field(default_factory=dict)

    def put(self, key: tuple, html: SafeString) -> None:
        # Past the bound a notebook starts again: one card's lines are then made afresh, never half-evicted per line.
        if len(self.html) >= FRAGMENTS_KEPT:
            self.html.clear()
        self.html[key] = html


# (alias, database name, notebook pk) -> its fragments
_kept: LRU[Kept] = LRU(weigh=lambda kept: len(kept.html), heaviest=lambda: FRAGMENTS_KEPT)


def for_notebook(notebook: Notebook) -> Kept:
    """The notebook's kept fragments, dropped first if a redaction came since they were kept."""
    redactions = count_redactions(notebook.pk)
    return _kept.keep(
        notebook_key(notebook),
        lambda kept: kept if kept is not None and kept.redactions == redactions else Kept(redactions),
    )


def forget(notebook: Notebook) -> None:
    key = notebook_key(notebook)
    _kept.drop(lambda found: found == key)


@receiver(words_redacted)
def _redacted(sender: object, notebook: Notebook, **kwargs: object) -> None:
    """A redaction committed in this process, through any door (card, API, CLI): its words leave the fragments."""
    forget(notebook)


def forget_all() -> None:
    _kept.clear()
