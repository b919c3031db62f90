"""Every argument of every `manage.py notebook` command, given bytes that are not UTF-8 (lone surrogates, as
surrogateescape delivers them) or a control character, is refused with exit status 2 and one line on stderr that
names the argument: never a traceback, and nothing written. The commands and their arguments come from the parser
itself, so a new command is covered without listing it here."""

import argparse
import contextlib
import io
import subprocess
import sys
from dataclasses import dataclass

import pytest
from django.core.management import call_command
from django.db import connections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notebooks.cli.arguments import FREE_TEXT
from notebooks.management.commands.notebook import Command
from notebooks.models import Notebook, Row, Session, Token
from tests.databases import ROOT

SURROGATES = [chr(c) for c in range(0xDC80, 0xDD00)] + ["\ud800", "\udfff"]  # 0xDC80-0xDCFF: bytes 0x80-0xFF
CONTROLS = [chr(c) for c in [*range(0x20), 0x7F, 0x85, 0x9B]]


PLACE = "<the argument under test>"


@dataclass(frozen=True)
class Slot:
    """One argument of one command, and a valid line for the rest of that command."""

    command: tuple[str, ...]
    label: str
    free_text: bool
    argv: tuple[str, ...]  # the command's other arguments, with PLACE where this one goes

    def line(self, value: str) -> list[str]:
        # An option's value joined to it with '=', so argparse takes it whatever it looks like.
        given = f"{self.label}={value}" if self.label.startswith("-") else value
        return [*self.command, *(given if part == PLACE else part for part in self.argv)]


def _label(action: argparse.Action) -> str:
    return max(action.option_strings, key=len) if action.option_strings else str(action.metavar or action.dest)


def _value(action: argparse.Action) -> str:
    """A valid-looking value, so that the one bad argument is all that is wrong with the line."""
    if action.choices:
        return str(next(iter(action.choices)))
    return "1" if getattr(action.type, "__name__", "") == "int" else "zelda"


def _slots(parser: argparse.ArgumentParser, command: tuple[str, ...] = ()) -> list[Slot]:
    """Every argument that takes a value, of every command and subcommand the parser has."""
    commands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if commands:
        return [slot for name, sub in commands[0].choices.items() for slot in _slots(sub, (*command, name))]
    own = [a for a in parser._actions if a.nargs != 0]
    slots = []
    for chosen in own:
        positionals: list[str] = []
        options: list[str] = []
        for action in own:
            if action is chosen:
                (options if action.option_strings else positionals).append(PLACE)
            elif action.option_strings and action.required:
                options += [_label(action), _value(action)]
            elif not action.option_strings and action.nargs not in ("?", "*"):
                positionals.append(_value(action))
        slots.append(Slot(command, _label(chosen), chosen.dest in FREE_TEXT, (*positionals, *options)))
    return slots


SLOTS = _slots(Command().create_parser("manage.py", "notebook"))


def _run(argv: list[str]) -> tuple[int | str | None, list[str]]:
    """The command line in this process: manage.py notebook ARGV; its exit status and its stderr's lines."""
    err = io.StringIO()
    command = Command(stdout=io.StringIO(), stderr=err)
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), pytest.raises(SystemExit) as done:
        command.run_from_argv(["manage.py", "notebook", *argv])
    return done.value.code, err.getvalue().splitlines()


@pytest.fixture
def world(dad, notebook, monkeypatch):
    # run_from_argv closes every connection when a command ends; the test's transaction must outlive it.
    monkeypatch.setattr(connections, "close_all", lambda: None)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    return notebook


def test_the_slots_cover_every_command_and_argument():
    found = {(" ".join(s.command), s.label) for s in SLOTS}
    assert ("take", "--plan") in found and ("take", "title") in found and ("vault ack", "--by") in found
    assert ("history", "n") in found and ("merge", "numbers") in found and ("first-editor", "--password-file") in found
    assert len({s.command for s in SLOTS}) >= 25


def bad_values(free_text: bool) -> st.SearchStrategy[str]:
    """Text with at least one character the argument may not hold; no leading '-', which argparse reads as an option."""
    bad = st.sampled_from(SURROGATES + ["\x00"] + ([] if free_text else CONTROLS))
    around = st.text(st.characters(codec="utf-8", exclude_characters="\x00-"), max_size=8)
    return st.tuples(around, bad, around).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_bad_character_in_any_argument_exits_2_with_one_line_naming_it(world, data):
    slot = data.draw(st.sampled_from(SLOTS), label="slot")
    value = data.draw(bad_values(slot.free_text), label="value")
    before = (Row.objects.count(), Notebook.objects.count(), Session.objects.count(), Token.objects.count())
    code, err = _run(slot.line(value))
    assert code == 2, err
    assert len(err) == 1 and err[0].startswith(f"CommandError: The argument {slot.label} "), err
    assert (Row.objects.count(), Notebook.objects.count(), Session.objects.count(), Token.objects.count()) == before


@pytest.mark.parametrize("slot", SLOTS, ids=lambda s: f"{' '.join(s.command)} {s.label}")
def test_undecodable_bytes_in_each_argument_are_refused(world, slot):
    code, err = _run(slot.line("\udcff"))  # what the shell's $'\xff' becomes
    assert (code, err) == (
        2,
        [f"CommandError: The argument {slot.label} is not valid Unicode text (a lone surrogate)."],
    )


def test_a_tab_and_a_newline_in_words_and_reasons_are_kept(world):
    argv = ["add", "zelda", "block\tfirst\nthen roll", "--source", "seen", "--by", "pippa", "--why", "two\tlines"]
    call_command("notebook", *argv, stdout=io.StringIO())
    assert Row.objects.get().why == "two\tlines"


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["create", "zel\tda"], "CommandError: The argument title contains a control character."),
        (
            ["add", "zelda", "w", "--source", "seen", "--by", "pip\x1bpa", "--why", "w"],
            "CommandError: The argument --by contains a control character.",
        ),
        (
            ["add", "zelda", "nul\x00", "--source", "seen", "--by", "pippa", "--why", "w"],
            "CommandError: The argument words contains a NUL character.",
        ),
        (["history", "zelda", "1\n"], "CommandError: The argument n contains a control character."),
    ],
)
def test_control_characters_outside_free_text_are_refused_by_name(world, argv, line):
    assert _run(argv) == (2, [line])


@pytest.mark.parametrize("name", ["Dad", "dad ", "ｄａｄ", "d.a.d"])
@pytest.mark.parametrize(
    "argv",
    [
        ["add", "zelda", "w", "--source", "seen", "--why", "w", "--by"],
        ["token"],
        ["mcp", "--actor"],
        ["take", "zelda", "--plan", "p", "--by"],
    ],
)
def test_a_name_that_reads_like_a_users_is_refused_at_every_actor_argument(world, argv, name):
    code, err = _run([*argv, name])
    assert code == 2 and len(err) == 1
    assert "reads like the user 'dad'" in err[0] and "use 'dad'" in err[0]
    assert not Row.objects.exists() and not Token.objects.exists() and not Session.objects.exists()


def test_the_users_own_name_and_other_names_pass(world):
    argv = ["add", "zelda", "w", "--source", "seen", "--by", "pippa", "--why", "w"]
    call_command("notebook", *argv, stdout=io.StringIO())
    call_command("notebook", "token", "daddy", stdout=io.StringIO())
    assert Row.objects.get().by == "pippa" and Token.objects.get().actor == "daddy"


def test_other_refusals_stay_one_line_with_their_own_code(world):
    assert _run(["view", "zeldo"]) == (4, ["CommandError: No notebook is titled 'zeldo'. Did you mean 'zelda'?"])
    code, err = _run(["add", "zelda", "w", "--source", "dad", "--by", "pippa", "--why", "w"])
    assert code == 3 and len(err) == 1 and err[0].startswith("CommandError: ")


def test_a_malformed_command_line_prints_its_usage_and_exits_2_without_a_traceback(world):
    for argv in (["\udcff"], ["take", "zelda", "--pl\udcffan", "x", "--by", "p"], ["history", "zelda", "abc"]):
        code, err = _run(argv)
        assert code == 2 and err[0].startswith("usage: ") and not any("Traceback" in line for line in err)


def test_the_real_command_line_refuses_undecodable_bytes_in_one_line(tmp_path):
    """The issue's reproduction: `notebook take zelda --plan $'\\xff'`, from a shell, bytes and all."""
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
    done = subprocess.run(
        [sys.executable, b"manage.py", b"notebook", b"take", b"zelda", b"--plan", b"\xff", b"--by", b"pippa"],
        cwd=ROOT,
        env={**env, "SECRET_KEY": "cli-arguments-test-key-0123456789abcdefghijklmnopqrstuvwxyz"},
        capture_output=True,
    )
    assert done.returncode == 2
    assert done.stderr.decode().splitlines() == [
        "CommandError: The argument --plan is not valid Unicode text (a lone surrogate)."
    ]
