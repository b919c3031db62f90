"""The peer's tables from the same rows the notebook holds: through simple-history itself (save and delete,
each recorded at the row's own time), or, for big notebooks, by writing the very records it would write."""

from datetime import UTC, datetime
from typing import Any

from django.db import transaction

from .models import PeerLine

HistoricalPeerLine = PeerLine.history.model


def when(at: float) -> datetime:
    return datetime.fromtimestamp(at, tz=UTC)


def through_the_model(title: str, rows: list[dict[str, Any]]) -> None:
    """Each add a create, each edit a save, each strike a delete, as a user of simple-history writes them."""
    lines: dict[int, PeerLine] = {}
    with transaction.atomic():
        for row in rows:
            op, n = row["op"], row["n"]
            if op == "add":
                line = PeerLine(notebook=title, n=n, text=row["text"], source=row["source"], by=row["by"])
            elif op == "edit":
                line = lines[n]
                line.text, line.source, line.by = row["to"], row["source"], row["by"]
            else:
                line = lines.pop(n)
            line._history_date = when(row["at"])
            line._change_reason = row.get("why") or None
            if op == "strike":
                line.delete()
            else:
                line.save()
                lines[n] = line


def in_bulk(title: str, rows: list[dict[str, Any]], first_id: int) -> None:
    """The same records through_the_model writes (line ids given from first_id), inserted in batches."""
    lines: dict[int, dict[str, Any]] = {}
    history: list[HistoricalPeerLine] = []
    for row in rows:
        op, n = row["op"], row["n"]
        if op == "add":
            line = {"id": first_id + n, "notebook": title, "n": n, "text": row["text"], "source": row["source"]}
            lines[n] = line
            kind = "+"
        elif op == "edit":
            line = lines[n]
            line.update(text=row["to"], source=row["source"])
            kind = "~"
        else:
            line = lines.pop(n)
            kind = "-"
        line["by"] = row["by"] if op != "strike" else line["by"]
        history.append(
            HistoricalPeerLine(
                **line,
                history_date=when(row["at"]),
                history_type=kind,
                history_change_reason=row.get("why") or None,
                history_user=None,
            )
        )
    with transaction.atomic():
        PeerLine.objects.bulk_create([PeerLine(**line) for line in lines.values()], batch_size=2000)
        HistoricalPeerLine.objects.bulk_create(history, batch_size=2000)


def records(title: str) -> list[tuple]:
    """The peer's history of a notebook, as comparable tuples (line ids relative to the first)."""
    found = list(
        HistoricalPeerLine.objects.filter(notebook=title)
        .order_by("history_date", "history_id")
        .values_list("n", "text", "source", "by", "history_date", "history_type", "history_change_reason")
    )
    live = sorted(PeerLine.objects.filter(notebook=title).values_list("n", "text", "source", "by"))
    return [*found, ("live", live)]
