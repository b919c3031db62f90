"""Every argument of `manage.py notebook …` is checked as argparse reads it, by the core's rules (log/rules/checks.py):
a lone surrogate (bytes not UTF-8) or a NUL is refused in any, a control character in all but what someone wrote."""

import argparse
import sys
from collections.abc import Callable
from typing import Any

from django.core.management.base import CommandError

from notebooks.log.identity.roles import user_alike
from notebooks.log.rules.checks import problem_of_text

# Arguments carrying what someone wrote: the core allows any character but NUL in them, tabs and newlines included.
FREE_TEXT = frozenset({"words", "text", "why", "plan", "note", "summary"})
# Arguments naming an actor: one that reads like a user's name without being it would pass for that user in history.
ACTOR_NAMES = frozenset({"by", "actor"})

BAD_ARGUMENT = 2  # the CLI's exit status for bad input (docs/cli.md, "Exit codes")


def checked(action: argparse.Action) -> Callable[[str], Any]:
    """The action's type, preceded by the check of the raw value."""
    convert = action.type
    free_text = action.dest in FREE_TEXT
    name = max(action.option_strings, key=len) if action.option_strings else str(action.metavar or action.dest)

    def check(raw: str) -> Any:
        # The length is the core's to judge, with the limit of whatever the value becomes.
        problem = problem_of_text(raw, limit=sys.maxsize, required=False)
        if problem is None and not free_text and not raw.isprintable():
            problem = "contains a control character"  # check_name's rule: names, titles, numbers, times, paths
        if problem is None and action.dest in ACTOR_NAMES and (user := user_alike(raw)):
            problem = f"{raw!r} reads like the user {user!r} (compared without case, width or punctuation)"
            problem += f": use {user!r}"
        if problem:
            # Not an ArgumentTypeError: argparse would print its usage too; a CommandError leaves it as one line.
            raise CommandError(f"The argument {name} {problem}.", returncode=BAD_ARGUMENT)
        return raw if convert is None else convert(raw)

    # argparse names the type in its own refusals ("invalid int value"); keep that wording.
    check.__name__ = getattr(convert, "__name__", "str")
    return check


def check_every_argument(parser: argparse.ArgumentParser) -> None:
    """Put the check in front of every argument that takes a value, in this parser and every subcommand's."""
    # argparse has no public list of a parser's actions; Django's call_command reads _actions the same way.
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in {id(p): p for p in action.choices.values()}.values():
                check_every_argument(sub)
        elif action.nargs != 0:
            action.type = checked(action)
