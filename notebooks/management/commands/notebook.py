import importlib
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from notebooks.cli import MODULES
from notebooks.cli.arguments import check_every_argument
from notebooks.log.rules.errors import NotebookError

EXIT_CODES = {400: 2, 403: 3, 404: 4, 409: 5, 429: 7}  # a refusal's status: its exit code (docs/cli.md); any other is 1


class Command(BaseCommand):
    help = "Read and write notebooks: create, import, export, view, history, turn, add, edit, retire, merge, verify…"

    def add_arguments(self, parser: CommandParser) -> None:
        subparsers = parser.add_subparsers(dest="subcommand", required=True, parser_class=type(parser))
        for name in MODULES:
            importlib.import_module(name).command.register(subparsers)
        check_every_argument(parser)

    def run_from_argv(self, argv: list[str]) -> None:
        try:
            super().run_from_argv(argv)
        except CommandError as exc:
            # A bad argument is refused while argparse reads it, where Django's own handler does not reach.
            if "--traceback" in argv:
                raise
            self.stderr.write(f"{type(exc).__name__}: {exc}")
            sys.exit(exc.returncode)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            options["handler"](self, options)
        except NotebookError as exc:
            raise CommandError(exc.message, returncode=EXIT_CODES.get(exc.status, 1)) from None
        except DatabaseError as exc:  # a role without the rights, a server gone: one line (--traceback for the rest)
            said = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            unmigrated = "no such table" in said or ("relation" in said and "does not exist" in said)
            said += " (is the database migrated? manage.py migrate)" if unmigrated else ""
            raise CommandError(f"The database refused: {said}", returncode=1) from exc
        except BrokenPipeError:
            sys.stderr.close()
