"""The card's own writes, none of them the log's: review and archive marks (append-only), a reader's time zone."""

import time
import zoneinfo

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from notebooks.log.rules.errors import Invalid
from notebooks.log.store import rows as stored
from notebooks.log.views import kept, selectors
from notebooks.models import ArchiveMark, ReaderZone, ReviewMark


def mark_reviewed(*, notebook: str, by: str, seq: int | None = None) -> ReviewMark:
    """The editor reviewed the notebook up to row `seq` (the head when not given): a new mark each time."""
    with transaction.atomic():
        nb = selectors.get_notebook(notebook)
        top = selectors.head_at(nb)
        if seq is None:
            seq = top.seq
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= top.seq:
            raise Invalid(f"Notebook {nb.title!r} has no change {seq!r} to mark as reviewed (its last is {top.seq}).")
        found = selectors.row_hash(nb, seq) if seq else ""
        top_n = stored.top_number(nb.pk, seq)  # once per mark, so the card never scans for it
        return ReviewMark.objects.create(
            notebook=nb, by=by, seq=seq, hash=found or "", top_n=top_n or 0, at=time.time()
        )


def valid_zone(name: object) -> str | None:
    """The IANA time zone `name` names (e.g. "America/New_York"), or None when it names none."""
    if not isinstance(name, str) or not 0 < len(name) <= 64 or name.startswith(("/", ".")) or ".." in name:
        return None
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return None
    return name


def set_zone(*, user: AbstractBaseUser, zone: str) -> None:
    """Keep the reader's time zone (written only when it changed)."""
    if valid_zone(zone) is None:
        raise Invalid(f"{zone!r} is not a time zone.")
    ReaderZone.objects.update_or_create(user=user, defaults={"zone": zone})  # in its own transaction


def set_archived(*, notebook: str, archived_: bool, by: str, why: str = "") -> ArchiveMark:
    """Put a notebook with no live lines off the index, or back on it: a new mark each time, never a deletion."""
    with transaction.atomic():
        nb = selectors.get_notebook(notebook)
        marks = ArchiveMark.objects.filter(notebook=nb).order_by("-id")
        now_archived = bool(marks.values_list("archived", flat=True).first())  # its latest mark says
        if archived_ == now_archived:
            state = "already archived" if now_archived else "not archived"
            raise Invalid(f"Notebook {nb.title!r} is {state}; nothing to change.")
        if archived_:
            live = len(kept.live(nb)[0])
            if live:
                raise Invalid(
                    f"Notebook {nb.title!r} still has {live} live line{'s' if live != 1 else ''}: only a notebook with "
                    "none can be archived. Move or retire them first."
                )
        return ArchiveMark.objects.create(notebook=nb, archived=archived_, by=by, why=why, at=time.time())
