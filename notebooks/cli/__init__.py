"""Subcommands of `manage.py notebook`, one module per area; each module has register(subparsers)."""

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
