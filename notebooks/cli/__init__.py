"""Subcommands of `manage.py notebook`, one module per area; each module has register(subparsers)."""

MODULES = ["notebooks.cli.log", "notebooks.cli.agent", "notebooks.cli.vault", "notebooks.cli.card"]
