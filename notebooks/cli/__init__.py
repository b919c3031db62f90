"""Subcommands of `manage.py notebook`, one module per area; each module has register(subparsers)."""

import unicodedata

MODULES = [
    "notebooks.cli.log",
    "notebooks.cli.agent",
    "notebooks.cli.vault",
    "notebooks.cli.card",
    "notebooks.cli.reliability",
    "notebooks.cli.similar",
    "notebooks.cli.keys",
]


def rows(count: int, noun: str = "row") -> str:
    """'1 row', '2 rows': the CLI's counts read as English."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


_KEPT = frozenset("\t\u200c\u200d")  # tab and the zero-width joiners of scripts and emoji


def shown(text: str) -> str:
    """Text another wrote (words, a reason, a plan) as the terminal gets it: an escape code would retitle or clear it
    and a line break forge a line of the listing, so each control or format character shows as its escape."""
    if text.isprintable():
        return text  # the usual text, at once
    return "".join(
        ch if ch.isprintable() or ch in _KEPT or unicodedata.category(ch) == "Zs" else ascii(ch)[1:-1] for ch in text
    )
