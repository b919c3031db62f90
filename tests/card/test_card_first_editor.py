"""`manage.py notebook first-editor`: `make run` ends with a way to sign in."""

from io import StringIO

from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.core.management import call_command

from notebooks.log.identity.roles import user_is_editor


def _run(path) -> str:
    out = StringIO()
    call_command("notebook", "first-editor", "--password-file", str(path), stdout=out)
    return out.getvalue()


def test_it_creates_the_editor_dad_with_a_printed_and_saved_password(db, tmp_path):
    path = tmp_path / "pw.txt"
    out = _run(path)
    password = out.split("password: ")[1].split()[0]
    assert path.read_text() == password + "\n"  # the password alone, as the file's name says
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    user = authenticate(username="dad", password=password)
    assert user is not None and user_is_editor(user)


def test_it_does_nothing_when_an_editor_can_already_sign_in(db, tmp_path):
    User.objects.create_superuser("root", password="a-long-test-password")
    out = _run(tmp_path / "pw.txt")
    assert "as an editor: root" in out
    assert not User.objects.filter(username="dad").exists()
    assert not (tmp_path / "pw.txt").exists()


def test_it_gives_a_password_to_an_editor_made_without_one(db, tmp_path):
    call_command("notebook", "editor", "dad", stdout=StringIO())
    out = _run(tmp_path / "pw.txt")
    password = out.split("password: ")[1].split()[0]
    assert authenticate(username="dad", password=password) is not None
    again = _run(tmp_path / "pw.txt")
    assert "as an editor: dad" in again and str(tmp_path / "pw.txt") in again


def test_the_demo_notebook_is_made_once_and_left_alone_after(db):
    """`make run` runs `notebook demo` every time: a fresh machine's first screen is not an empty list."""
    from pathlib import Path

    from notebooks.log.views import selectors

    out = StringIO()
    call_command("notebook", "demo", stdout=out)
    assert "created the demo notebook 'zelda-demo'" in out.getvalue()
    notebook = selectors.get_notebook("zelda-demo")
    head = selectors.head(notebook)
    again = StringIO()
    call_command("notebook", "demo", stdout=again)
    assert "already there" in again.getvalue()
    assert selectors.head(notebook) == head  # nothing written the second time
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    run = makefile.split("\nrun:")[1].split("\n\n")[0]
    assert "manage.py notebook demo" in run
