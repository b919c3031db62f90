"""The card's subcommands: first-editor (`make run` calls it so a fresh machine ends with a way to sign in), demo."""

import secrets
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from notebooks.cli import Commands, arg

DEFAULT_PASSWORD_FILE = "var/editor-password.txt"
command = Commands()


@command(
    arg("--username", default="dad"),
    arg("--password-file", default=None, help=f"where to save it (default {DEFAULT_PASSWORD_FILE})"),
)
def first_editor(cmd: BaseCommand, o: dict) -> None:
    """When no editor can sign in, create the editor 'dad' with a random password (printed and saved)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from notebooks.log.identity.roles import EDITOR_GROUP, user_is_editor

    path = Path(o["password_file"] or settings.BASE_DIR / DEFAULT_PASSWORD_FILE)
    users = get_user_model().objects.filter(is_active=True)
    able = [u for u in users.filter(is_superuser=True) if u.has_usable_password()]
    able += [u for u in users.filter(groups__name=EDITOR_GROUP) if u.has_usable_password() and user_is_editor(u)]
    if able:
        names = ", ".join(sorted({u.get_username() for u in able}))
        saved = f" (a password made here is in {path})" if path.exists() else ""
        cmd.stdout.write(f"Sign in at /accounts/login/ as an editor: {names}{saved}.")
        return
    user, _ = get_user_model().objects.get_or_create(username=o["username"])
    password = secrets.token_urlsafe(12)
    user.set_password(password)
    user.is_active = True
    user.save()
    user.groups.add(Group.objects.get_or_create(name=EDITOR_GROUP)[0])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.write_text(password + "\n")  # only what its name says (the username is printed)
    cmd.stdout.write(
        f"Created the editor {user.get_username()!r}. Sign in at /accounts/login/ with\n"
        f"    username: {user.get_username()}\n    password: {password}\n"
        f"(saved in {path}; change it with: python manage.py changepassword {user.get_username()})"
    )


@command(arg("--title", default="zelda-demo"))
def demo(cmd: BaseCommand, o: dict) -> None:
    """Create a small demo notebook, unless a notebook of that title is already there."""
    # `make run` calls it every time: a notebook already there (the demo or not) is left alone.
    from notebooks.cli import demo as demo_rows
    from notebooks.log.files import imports
    from notebooks.models import Notebook

    if Notebook.objects.filter(title=o["title"]).exists():
        cmd.stdout.write(f"the demo notebook {o['title']!r} is already there")
        return
    result = imports.import_notebook(title=o["title"], lines=demo_rows.rows(), by="demo")
    cmd.stdout.write(f"created the demo notebook {result.notebook.title!r} ({result.rows} rows)")
