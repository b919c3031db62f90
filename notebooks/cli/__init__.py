"""Subcommands of `manage.py notebook`, one module per area; each module declares its `command` (a Commands)."""

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from notebooks.log.rules import checks
from notebooks.log.views.selectors import escaped

MODULES = [
    "notebooks.cli.log",
    "notebooks.cli.agent",
    "notebooks.cli.vault",
    "notebooks.cli.card",
    "notebooks.cli.reliability",
    "notebooks.cli.similar",
    "notebooks.cli.suggest",
    "notebooks.cli.keys",
]

Argument = Callable[[Any], Any]


def arg(*names: str, **options: Any) -> Argument:
    """An argument of a subcommand, as argparse's add_argument takes it."""
    return lambda parser: parser.add_argument(*names, **options)


TITLE = arg("title")
N = arg("n", type=int)
JSON = arg("--json", action="store_true")
# A list pages as the API's do (notebooks/agents/paging.py): --after the `next` of the page before, --limit a page.
AFTER = arg("--after", help="the `next` of the page before (a cursor; none for the first page)")
LIMIT = arg("--limit", type=int, help="how many a page holds (100 when not given, at most 1000)")


def more_after(cmd: Any, answer: Any) -> None:
    """A page with more after it says how to read on, on stderr: the text listing stays a listing."""
    if answer.next is not None:
        cmd.stderr.write(f"(more: --after {answer.next})")


class Commands:
    """A module's subcommands, added by register(subparsers) in the order declared. A subcommand is named for its
    handler (underscores as dashes, a trailing one dropped: import_ is `import`); the handler's docstring is its help,
    and its description unless one is given (None for none), followed by the module's `exits`. With a `group`, they
    are `notebook GROUP …`, its parser made with `texts` (help, description)."""

    def __init__(self, exits: str = "", *, group: str = "", **texts: str) -> None:
        self.exits, self.group, self.texts = exits, group, texts
        self.declared: list[tuple[Callable, tuple[Argument, ...], dict[str, Any]]] = []

    def __call__(self, *arguments: Argument, **options: Any) -> Callable[[Callable], Callable]:
        def declare(handler: Callable) -> Callable:
            self.declared.append((handler, arguments, options))
            return handler

        return declare

    def register(self, subparsers: Any) -> None:
        if self.group:
            parser = subparsers.add_parser(self.group, **self.texts)
            subparsers = parser.add_subparsers(dest=f"{self.group}_command", required=True, parser_class=type(parser))
        for handler, arguments, options in self.declared:
            help = " ".join((handler.__doc__ or "").split())
            description = f"{help} {self.exits}" if self.exits else help
            name = handler.__name__.rstrip("_").replace("_", "-")
            parser = subparsers.add_parser(name, help=help, **{"description": description, **options})
            parser.set_defaults(handler=handler)
            for argument in arguments:
                argument(parser)


def until_time(value: str | None) -> float | None:
    """An --until read: a time already come (a view of one not yet come would still change), or None for the head."""
    return None if value is None else checks.check_past(checks.parse_when(value), "--until")


def iso(at: float) -> str:
    return datetime.fromtimestamp(at, tz=UTC).isoformat(timespec="seconds")


def rows(count: int, noun: str = "row") -> str:
    """'1 row', '2 rows': the CLI's counts read as English."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def shown(text: str) -> str:
    """Text another wrote (words, a reason, a plan) as the terminal gets it: an escape code would retitle or clear it
    and a line break forge a line of the listing, so each control or format character shows as its escape."""
    if text.isprintable():
        return text  # the usual text, at once
    return escaped(text)
