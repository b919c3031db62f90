"""`manage.py notebook`: every subcommand, its --json forms, and refusals on stderr with a non-zero exit."""

import json
import os
import sqlite3
import subprocess
import sys
import threading
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from notebooks.log import services
from notebooks.log.store import triggers
from notebooks.log.views import selectors
from notebooks.models import Row

ROOT = Path(__file__).resolve().parents[2]


def notebook(*args: str, stdin: str | None = None) -> tuple[str, str]:
    """Run `manage.py notebook ARGS` in-process; returns (stdout, stderr)."""
    out, err = StringIO(), StringIO()
    if stdin is None:
        call_command("notebook", *args, stdout=out, stderr=err)
    else:
        old = sys.stdin
        sys.stdin = StringIO(stdin)
        try:
            call_command("notebook", *args, stdout=out, stderr=err)
        finally:
            sys.stdin = old
    return out.getvalue(), err.getvalue()


def refused(*args: str) -> CommandError:
    with pytest.raises(CommandError) as caught:
        notebook(*args)
    return caught.value


@pytest.fixture
def zelda(dad):
    notebook("create", "zelda")
    notebook("add", "zelda", "the bridge guard swings twice", "--source", "seen", "--by", "pippa", "--why", "saw it")
    notebook("add", "zelda", "always attack first", "--source", "guessed", "--by", "pippa", "--why", "a hunch")
    notebook("add", "zelda", "save before the boss", "--source", "dad", "--by", "dad", "--why", "a rule")
    return selectors.get_notebook("zelda")


# ----- writes -------------------------------------------------------------------------------------


def test_create_prints_what_it_created(db):
    assert notebook("create", "zelda") == ("created notebook 'zelda'\n", "")


def test_create_refuses_a_taken_title_with_the_conflict_code(db):
    notebook("create", "zelda")
    error = refused("create", "zelda")
    assert (error.returncode, str(error)) == (5, "A notebook titled 'zelda' already exists.")


def test_add_prints_the_new_number(zelda):
    out, _ = notebook("add", "zelda", "roll", "--source", "seen", "--by", "pippa", "--why", "died twice")
    assert out == "added line #4 (seq 4)\n"


def test_edit_prints_what_it_wrote_and_dad_makes_a_correction(zelda):
    out, _ = notebook("edit", "zelda", "2", "block first", "--by", "dad", "--why", "it got her killed")
    assert out == "edited line #2 (seq 4)\n"
    assert selectors.view(zelda)[1].source == "dad_correction"


def test_edit_with_a_stale_expected_seq_is_a_conflict(zelda):
    notebook("edit", "zelda", "2", "block first", "--by", "pippa", "--why", "w", "--expected", "2")
    error = refused("edit", "zelda", "2", "attack", "--by", "pippa", "--why", "w", "--expected", "2")
    assert error.returncode == 5 and "changed since you read it" in str(error)


def test_retire_prints_what_it_wrote(zelda):
    assert notebook("retire", "zelda", "1", "--by", "pippa", "--why", "stale")[0] == "retired line #1 (seq 4)\n"
    out, _ = notebook("retire", "zelda", "2", "--by", "dad", "--why", "his says it", "--into", "3")
    assert out == "retired line #2 into #3 (seq 5)\n"


def test_merge_prints_what_it_wrote(zelda):
    out, _ = notebook("merge", "zelda", "1", "2", "--text", "one line", "--by", "pippa", "--why", "same")
    assert out == "merged #1, #2 into new line #4 (seqs 4-6)\n"


def test_retire_takes_expected_and_merge_a_source_as_the_api_does(zelda):
    error = refused("retire", "zelda", "1", "--by", "pippa", "--why", "w", "--expected", "2")
    assert error.returncode == 5 and "changed since you read it" in str(error)
    assert notebook("retire", "zelda", "1", "--by", "pippa", "--why", "w", "--expected", "1")[0].startswith("retired")
    notebook("merge", "zelda", "2", "3", "--text", "one line", "--source", "dad", "--by", "dad", "--why", "same")
    assert selectors.live_line(zelda, 4).source == "dad"


def test_restore_and_put_back_print_what_they_wrote_and_refuse_clearly(zelda):
    notebook("retire", "zelda", "1", "--by", "dad", "--why", "stale")
    out, _ = notebook("restore", "zelda", "1", "--by", "dad", "--why", "it was right")
    assert out == "restored line #1 as new line #4 (seq 5)\n"
    assert selectors.live_line(zelda, 4).text == selectors.history(zelda, 1)[0].text
    with pytest.raises(CommandError, match="already"):
        notebook("restore", "zelda", "1", "--by", "dad", "--why", "again")
    notebook("edit", "zelda", "2", "new words", "--by", "dad", "--why", "w")
    first = selectors.history(zelda, 2)[0]
    out, _ = notebook("put-back", "zelda", "2", "--seq", str(first.seq), "--by", "dad", "--why", "older was right")
    assert out.startswith("put back the words of change 2 into line #2 (seq ")
    assert selectors.live_line(zelda, 2).text == first.text
    with pytest.raises(CommandError, match="999 is not a version of line #2"):
        notebook("put-back", "zelda", "2", "--seq", "999", "--by", "dad", "--why", "w")


def test_editor_gives_a_user_the_editors_role(db):
    notebook("create", "zelda")
    assert notebook("editor", "mum")[0] == "mum is an editor (new user, no password yet)\n"
    assert not User.objects.get(username="mum").has_usable_password()
    assert notebook("add", "zelda", "a rule", "--source", "dad", "--by", "mum", "--why", "w")[0].startswith("added")


def test_editor_keeps_an_existing_users_password(db):
    User.objects.create_user("mum", password="a-long-test-password")
    assert notebook("editor", "mum")[0] == "mum is an editor\n"
    assert User.objects.get(username="mum").check_password("a-long-test-password")


# ----- reads --------------------------------------------------------------------------------------


def test_view_prints_each_live_line_with_its_number_and_source(zelda):
    out, _ = notebook("view", "zelda")
    assert (
        out
        == "#1 [seen] the bridge guard swings twice\n#2 [guessed] always attack first\n#3 [dad] save before the boss\n"
    )


def test_view_json_is_the_apis_page_of_lines_in_number_order(zelda):
    notebook("retire", "zelda", "1", "--by", "pippa", "--why", "stale")
    page = json.loads(notebook("view", "zelda", "--json")[0])
    assert (page["notebook"], page["after"], page["next"], page["more"]) == ("zelda", None, None, False)
    lines = page["lines"]
    assert [(x["n"], x["text"], x["source"]) for x in lines] == [
        (2, "always attack first", "guessed"),
        (3, "save before the boss", "dad"),
    ]
    assert {"by", "at", "seq"} <= set(lines[0])


def test_view_until_reads_the_notebook_as_it_stood(zelda):
    (first, *_) = Row.objects.filter(notebook=zelda).order_by("seq")
    assert json.loads(notebook("view", "zelda", "--json", "--until", str(first.at))[0])["lines"][0]["n"] == 1
    assert json.loads(notebook("view", "zelda", "--json", "--until", "2000-01-01T00:00")[0])["lines"] == []
    assert notebook("view", "zelda", "--until", "2000-01-01T00:00Z") == ("", "(no live lines)\n")


def test_history_prints_every_text_with_who_and_why(zelda):
    notebook("edit", "zelda", "2", "block first", "--by", "dad", "--why", "it got her killed")
    notebook("retire", "zelda", "2", "--by", "dad", "--why", "said elsewhere", "--into", "3")
    lines = notebook("history", "zelda", "2")[0].splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == [
        "add     by pippa: [guessed] always attack first  (why: a hunch)",
        "edit    by dad: [dad_correction] block first  (why: it got her killed)",
        "strike  by dad: retired into #3  (why: said elsewhere)",
    ]


def test_history_json_gives_op_and_the_words_after_each_row(zelda):
    notebook("edit", "zelda", "2", "block first", "--by", "pippa", "--why", "w")
    notebook("retire", "zelda", "2", "--by", "pippa", "--why", "w")
    entries = json.loads(notebook("history", "zelda", "2", "--json")[0])
    assert [(e["op"], e["text"]) for e in entries] == [
        ("add", "always attack first"),
        ("edit", "block first"),
        ("strike", "block first"),
    ]


def test_turn_prints_dads_lines_first_and_ends_with_game_only(zelda):
    lines = notebook("turn", "zelda")[0].splitlines()
    assert lines[0].startswith("# Notebook 'zelda' as it stood at ")
    assert lines[1:] == [
        "[#3 dad] save before the boss",
        "[#1 seen] the bridge guard swings twice",
        "[#2 guessed] always attack first",
        "Write only what the game taught you in this notebook; it is not the coordination log.",
    ]


def test_turn_until_before_anything_is_the_header_and_the_sentence(zelda):
    assert len(notebook("turn", "zelda", "--until", "0")[0].splitlines()) == 2


# ----- import and export --------------------------------------------------------------------------


def test_export_then_import_gives_the_same_file(zelda, tmp_path):
    notebook("edit", "zelda", "1", "swings twice, then rests", "--by", "pippa", "--why", "w")
    notebook("merge", "zelda", "1", "2", "--text", "one", "--by", "pippa", "--why", "w")
    exported = notebook("export", "zelda")[0]
    (tmp_path / "zelda.jsonl").write_text(exported, encoding="utf-8")
    assert notebook("import", str(tmp_path / "zelda.jsonl"), "--title", "copy")[0] == "imported 7 rows into 'copy'\n"
    assert notebook("export", "copy")[0] == exported


def test_export_until_gives_a_prefix(zelda):
    (first, *_) = Row.objects.filter(notebook=zelda).order_by("seq")
    assert len(notebook("export", "zelda", "--until", str(first.at))[0].splitlines()) == 1


def test_import_reads_standard_input(zelda):
    exported = notebook("export", "zelda")[0]
    assert notebook("import", "-", "--title", "copy", stdin=exported)[0] == "imported 3 rows into 'copy'\n"


def test_import_adopt_from_recovers_a_hand_rewrite(zelda, tmp_path):
    backup = tmp_path / "zelda.backup.jsonl"
    backup.write_text(notebook("export", "zelda")[0])
    rewrite = tmp_path / "zelda.jsonl"
    rewrite.write_text(json.dumps({"op": "add", "n": 1, "text": "clean", "source": "seen", "at": 1}) + "\n")
    out, _ = notebook("import", str(rewrite), "--title", "clean", "--adopt-from", str(backup), "--by", "dad")
    assert out == "imported 1 row into 'clean', 3 adopted history rows\n"
    history = json.loads(notebook("history", "clean", "1", "--json")[0])
    assert [(e["op"], e["text"], e["adopted"]) for e in history] == [
        ("adopt", "the bridge guard swings twice", True),
        ("add", "clean", False),
    ]
    assert "adopted by pippa:" in notebook("history", "clean", "1")[0]
    assert [x["n"] for x in json.loads(notebook("view", "clean", "--json")[0])["lines"]] == [1]


def test_import_names_the_first_bad_line_and_writes_nothing(db, tmp_path):
    bad = tmp_path / "bad.jsonl"
    good = json.dumps({"op": "add", "n": 1, "text": "a", "source": "seen", "at": 1})
    bad.write_text(f"{good}\n{good}\n")
    error = refused("import", str(bad), "--title", "zelda")
    assert error.returncode == 2
    assert str(error) == "line 2: a new line takes number 2, not 1 (numbers are never reused)"
    assert not Row.objects.exists()


def test_import_reads_a_pipe_once_and_a_file_not_utf_8_is_bad_input(db, tmp_path):
    rows = [json.dumps({"op": "add", "n": n, "text": f"line {n}", "source": "seen", "at": n}) for n in (1, 2, 3)]
    fifo = tmp_path / "rows.fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat > {fifo}"], stdin=subprocess.PIPE)
    writer.stdin.write(("\n".join(rows) + "\n").encode())
    writer.stdin.close()
    rescue = threading.Timer(30, lambda: open(fifo, "wb").close())  # a second open of the FIFO fails, not hangs
    rescue.start()
    try:
        assert notebook("import", str(fifo), "--title", "piped")[0] == "imported 3 rows into 'piped'\n"
    finally:
        rescue.cancel()
    writer.wait(timeout=10)
    (tmp_path / "latin.jsonl").write_bytes(rows[0].replace("line", "l\xefne").encode("latin-1") + b"\n")
    assert refused("import", str(tmp_path / "latin.jsonl"), "--title", "latin").returncode == 2


def test_import_refuses_a_file_that_is_not_there_or_not_text(db, tmp_path):
    assert "cannot read" in str(refused("import", str(tmp_path / "missing.jsonl"), "--title", "zelda"))
    assert "cannot read" in str(refused("import", str(tmp_path), "--title", "zelda"))
    (tmp_path / "binary").write_bytes(b"\xff\xfe\x00")
    assert "is not UTF-8 text" in str(refused("import", str(tmp_path / "binary"), "--title", "zelda"))
    (tmp_path / "ok.jsonl").write_text(json.dumps({"op": "add", "n": 1, "text": "a", "source": "seen", "at": 1}))
    error = refused("import", str(tmp_path / "ok.jsonl"), "--title", "zelda", "--adopt-from", str(tmp_path / "binary"))
    assert "binary is not UTF-8 text" in str(error)


# ----- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, code, message",
    [
        (("view", "zeldo"), 4, "No notebook is titled 'zeldo'. Did you mean 'zelda'?"),
        (("add", "zeldo", "t", "--source", "seen", "--by", "p", "--why", "w"), 4, "No notebook"),
        (("add", "zelda", "", "--source", "seen", "--by", "p", "--why", "w"), 2, "empty"),
        (("add", "zelda", "t", "--source", "dad", "--by", "pippa", "--why", "w"), 3, "agent"),
        (("add", "zelda", "t", "--source", "seen", "--by", "", "--why", "w"), 2, "actor"),
        (("edit", "zelda", "3", "t", "--by", "pippa", "--why", "w"), 3, "Dad's"),
        (("edit", "zelda", "9", "t", "--by", "dad", "--why", "w"), 4, "no line #9"),
        (("edit", "zelda", "99999999999999999999", "t", "--by", "dad", "--why", "w"), 2, "beyond any line"),
        (("retire", "zelda", "1", "--by", "dad", "--why", "w", "--into", "1"), 2, "into itself"),
        (("merge", "zelda", "1", "--text", "t", "--by", "dad", "--why", "w"), 2, "at least two"),
        (("history", "zelda", "9"), 4, "no line #9"),
        (("history", "zelda", "99999999999999999999"), 4, "no line"),
        (("view", "zelda", "--until", "yesterday"), 2, "not a time"),
        (("turn", "zelda", "--until", "nan"), 2, "not a time"),
        (("export", "zelda", "--until", "2026-13-01"), 2, "not a time"),
        (("verify", "zeldo"), 4, "No notebook"),
        (("create", "a/b"), 2, "not a valid title"),
        (("editor", " "), 2, "actor"),
    ],
)
def test_a_refusal_is_a_command_error_with_its_exit_code(zelda, args, code, message):
    before = Row.objects.count()
    error = refused(*args)
    assert error.returncode == code
    assert message in str(error)
    assert Row.objects.count() == before


def test_a_bad_argument_is_a_command_error(zelda):
    assert "invalid int value" in str(refused("history", "zelda", "abc"))
    assert "--source" in str(refused("add", "zelda", "t", "--by", "p", "--why", "w"))
    assert "invalid choice" in str(refused("add", "zelda", "t", "--source", "heard", "--by", "p", "--why", "w"))


# ----- verify -------------------------------------------------------------------------------------


def test_verify_passes_an_intact_log(zelda):
    services.create_notebook(title="mario", by="dad")
    out, err = notebook("verify")
    assert err == ""
    assert out.splitlines()[-1] == "triggers installed; every chain verifies"
    assert {line.split(":")[0] for line in out.splitlines()[:-1]} == {"mario", "zelda"}
    assert notebook("verify", "zelda")[0].startswith(f"zelda: 3 rows, chain intact, head {selectors.head(zelda).hash}")


def _behind_the_triggers_back(sql: str, params: list) -> None:  # noqa: ANN001
    """What only an owner can do: drop the triggers and change a row. The test's transaction rolls it all back."""
    with connection.cursor() as cursor:
        for name in triggers.expected_triggers(connection.vendor):
            table = name.rsplit("_no_", 1)[0]
            on = f" ON {table}" if connection.vendor == "postgresql" else ""
            cursor.execute(f"DROP TRIGGER {name}{on}")
        cursor.execute(sql, params)


def _verify_problems() -> tuple[int, list[str]]:
    err = StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("notebook", "verify", stdout=StringIO(), stderr=err)
    assert str(caught.value).endswith("problem(s) found")
    return caught.value.returncode, err.getvalue().splitlines()


def test_verify_catches_a_row_changed_behind_the_triggers_back(zelda):
    _behind_the_triggers_back("UPDATE notebooks_row SET why = %s WHERE notebook_id = %s AND seq = 2", ["x", zelda.pk])
    code, problems = _verify_problems()
    assert code == 1
    assert "zelda: seq 2: content does not match its hash (row changed)" in problems
    assert "append-only trigger missing: notebooks_row_no_update" in problems or connection.vendor != "sqlite"
    assert "append-only trigger missing: notebooks_row_no_change" in problems or connection.vendor != "postgresql"


def test_verify_catches_a_changed_row_even_with_the_triggers_put_back(zelda):
    _behind_the_triggers_back(
        "UPDATE notebooks_row SET \"by\" = 'mallory' WHERE notebook_id = %s AND seq = 1", [zelda.pk]
    )
    triggers.install()
    assert _verify_problems() == (1, ["zelda: seq 1: content does not match its hash (row changed)"])


def test_verify_catches_changed_words(zelda):
    _behind_the_triggers_back(
        "UPDATE notebooks_words SET body = %s WHERE body = %s", ["attack!", "always attack first"]
    )
    triggers.install()
    assert _verify_problems() == (1, ["zelda: seq 2: words do not match their digest (words changed)"])


def test_verify_catches_a_deleted_row(zelda):
    _behind_the_triggers_back("DELETE FROM notebooks_row WHERE notebook_id = %s AND seq = 2", [zelda.pk])
    triggers.install()
    _, problems = _verify_problems()
    assert problems == [
        "zelda: seq 3: expected seq 2 (a row is missing or inserted)",
        "zelda: seq 3: does not follow the row before it (chain broken)",
    ]


def test_verify_catches_a_missing_trigger_alone(zelda):
    _behind_the_triggers_back("SELECT 1", [])
    _, problems = _verify_problems()
    assert sorted(problems) == sorted(
        f"append-only trigger missing: {t}" for t in triggers.expected_triggers(connection.vendor)
    )


# ----- the real command line: exit codes, stderr, no traceback ------------------------------------


@pytest.fixture(scope="module")
def cli_db(tmp_path_factory):
    """A migrated SQLite file of its own: the command line runs in other processes, which see only committed data."""
    path = tmp_path_factory.mktemp("cli") / "notebooks.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{path}", "DJANGO_SETTINGS_MODULE": "notebook_site.settings"}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, capture_output=True)
    assert run(env, "create", "zelda").returncode == 0
    return env, path


def run(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "notebook", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_the_command_line_writes_and_reads(cli_db):
    env, _ = cli_db
    added = run(env, "add", "zelda", "roll after the second swing", "--source", "seen", "--by", "pippa", "--why", "w")
    assert (added.returncode, added.stdout, added.stderr) == (0, "added line #1 (seq 1)\n", "")
    view = run(env, "view", "zelda", "--json")
    assert [(x["n"], x["text"]) for x in json.loads(view.stdout)["lines"]] == [(1, "roll after the second swing")]
    assert run(env, "verify").returncode == 0


@pytest.mark.parametrize(
    "args, code",
    [
        (("view", "zeldo"), 4),
        (("add", "zelda", " ", "--source", "seen", "--by", "pippa", "--why", "w"), 2),
        (("add", "zelda", "t", "--source", "dad", "--by", "pippa", "--why", "w"), 3),
        (("history", "zelda", "99999999999999999999"), 4),
        (("import", "/nonexistent/zelda.jsonl", "--title", "x"), 1),
    ],
)
def test_the_command_line_refuses_on_stderr_with_a_code_and_no_traceback(cli_db, args, code):
    done = run(cli_db[0], *args)
    assert done.returncode == code
    assert done.stdout == ""
    assert done.stderr.startswith("CommandError: ")
    assert "Traceback" not in done.stderr


def test_the_command_line_prints_usage_for_a_bad_argument(cli_db):
    done = run(cli_db[0], "history", "zelda", "abc")
    assert (done.returncode, done.stdout) == (2, "")
    assert "error: argument n: invalid int value: 'abc'" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_command_line_refuses_when_a_trigger_is_missing_until_migrate_puts_it_back(cli_db):
    env, path = cli_db
    with sqlite3.connect(path) as db:
        db.execute("DROP TRIGGER notebooks_row_no_delete")
    done = run(env, "verify")
    assert done.returncode == 1
    assert "notebooks.E001" in done.stderr and "notebooks_row_no_delete" in done.stderr
    assert "Traceback" not in done.stderr
    subprocess.run([sys.executable, "manage.py", "migrate", "--skip-checks", "-v0"], cwd=ROOT, env=env, check=True)
    assert run(env, "verify").returncode == 0


def test_the_cli_add_names_the_lines_most_like_it(lines, capsys):
    from django.core.management import call_command

    call_command("notebook", "add", "zelda", "Roll after the second swing!", "--source", "seen", "--by", "pippa",
                 "--why", "again")  # fmt: skip
    said = capsys.readouterr().out
    assert "added line #4" in said and "most like it: #1 (" in said


def test_words_reasons_and_plans_an_agent_wrote_reach_the_terminal_without_escape_codes_or_line_breaks(db):
    """An agent's text is printed for Dad's terminal: an escape code would retitle or clear it, a line break forge a
    line of the listing. Each shows as its escape; the JSON outputs keep the text as written."""
    from notebooks.sessions import services as sessions

    evil = "roll \x1b]0;owned\x07 \x1b[2J late\n#9 [dad] a forged line"
    services.create_notebook(title="zelda", by="test")
    services.add(notebook="zelda", text=evil, source="seen", by="pippa", why=evil)
    sessions.take(notebook="zelda", plan=evil, by="pippa")  # after the add: a session's add would be pending
    for args in (("view", "zelda"), ("history", "zelda", "1"), ("sessions",)):
        out = notebook(*args)[0]
        assert "\x1b" not in out and "\x07" not in out, args
        assert len(out.splitlines()) == 1 and "\\x1b]0;owned\\x07" in out and "late\\n#9 [dad]" in out, args
    assert json.loads(notebook("view", "zelda", "--json")[0])["lines"][0]["text"] == evil
