"""The app runs as a role with only SELECT and INSERT on the log's tables (docs/POSTGRES.md): a bug or an injected
UPDATE fails with "permission denied", and only the owner, who runs the migrations, could touch the triggers.
On SQLite there are no roles: the triggers are the guard, and the grants command says so."""

import io
import re

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction

from notebooks.log import redaction, services
from notebooks.log.store import triggers
from tests.databases import Commands, act_as_app_role, owner_tag, pg_execute, pg_url


def _refused(sql: str, match: str) -> None:
    with pytest.raises(DatabaseError, match=match), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql)


def test_the_app_role_may_only_read_and_append_the_log(dad, notebook):
    services.add(notebook="zelda", text="a line", source="seen", by="pippa", why="seen")
    if connection.vendor == "sqlite":
        _refused("UPDATE notebooks_row SET why = 'x'", "append-only: UPDATE refused")
        _refused("DELETE FROM notebooks_row", "append-only: DELETE refused")
        with pytest.raises(CommandError, match="PostgreSQL's; SQLite relies on its triggers"):
            call_command("notebook", "grants", "app", stdout=io.StringIO())
        return
    act_as_app_role("reliability_app")
    written = services.add(notebook="zelda", text="written as the app", source="seen", by="pippa", why="seen")
    services.edit(notebook="zelda", n=written.n, to="edited as the app", by="dad", why="clearer")
    redaction.redact(notebook="zelda", n=written.n, by="dad", why="a secret")  # the one DELETE, gated by the trigger
    for sql in (
        "UPDATE notebooks_row SET why = 'x'",
        "DELETE FROM notebooks_row",
        "UPDATE notebooks_words SET body = 'x'",
        "UPDATE notebooks_notebook SET title = 'x'",
        "TRUNCATE notebooks_row",
    ):
        _refused(sql, "permission denied")
    _refused("DELETE FROM notebooks_words", "append-only")
    _refused("ALTER TABLE notebooks_row DISABLE TRIGGER ALL", "must be owner")
    _refused("DROP TRIGGER notebooks_row_no_change ON notebooks_row", "must be owner")


def test_the_grants_command_prints_least_privilege(db):
    if connection.vendor == "sqlite":
        with pytest.raises(CommandError, match="PostgreSQL"):
            call_command("notebook", "grants", "app", stdout=io.StringIO())
        return
    out = io.StringIO()
    call_command("notebook", "grants", "app", stdout=out)
    statements = out.getvalue().splitlines()
    assert 'GRANT SELECT, INSERT ON "notebooks_row" TO "app";' in statements
    assert 'GRANT SELECT, INSERT, DELETE ON "notebooks_words" TO "app";' in statements
    assert 'GRANT SELECT ON "django_migrations" TO "app";' in statements
    for table in triggers.PROTECTED_TABLES:
        (grant,) = [s for s in statements if f'ON "{table}" TO' in s]
        assert "UPDATE" not in grant and "TRUNCATE" not in grant


def test_a_separate_login_role_runs_the_app_but_cannot_rewrite_it(scratch_db, tmp_path):
    db = scratch_db()
    if db.vendor == "sqlite":
        # No roles: the database file's owner is the only one, and the triggers refuse rewrites.
        import sqlite3

        db.manage("notebook", "create", "zelda")
        db.manage("notebook", "add", "zelda", "a line", "--source", "seen", "--by", "pippa", "--why", "seen")
        with sqlite3.connect(db.path) as conn, pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute("UPDATE notebooks_row SET why = 'x'")
        assert db.manage("notebook", "grants", "app", check=False).returncode == 2
        return
    role = f"reliability_login_{owner_tag()}"
    pg_execute(f"DROP ROLE IF EXISTS {role}", f"CREATE ROLE {role} LOGIN")
    try:
        db.manage("notebook", "grants", role, "--apply")  # as the owner
        app_env = db.env(DATABASE_URL=pg_url(db.name, user=role))
        app = Commands(app_env)  # one process for the app role's commands
        try:
            as_app = app.run
            as_app("notebook", "create", "zelda")
            as_app("notebook", "add", "zelda", "a secret: hunter2", "--source", "seen", "--by", "pippa", "--why", "x")
            as_app("notebook", "edit", "zelda", "1", "no secret", "--by", "dad", "--why", "x")
            # Its own process: the warning goes to the process's stderr, through logging.
            redacted = db.manage(
                "notebook", "redact", "zelda", "1", "--seq", "1", "--by", "dad", "--why", "a password", env=app_env
            )
            assert "not vacuumed after a redaction: this role does not own them" in redacted.stderr  # and it stands
            taken = as_app("notebook", "take", "zelda", "--plan", "tidy up", "--by", "pippa")
            session = re.search(r"#(\d+)", taken).group(1)
            as_app("notebook", "add", "zelda", "in a session", "--source", "seen", "--by", "pippa", "--why", "x")
            as_app("notebook", "land", session, "--summary", "one line", "--by", "pippa")
            as_app("notebook", "token", "pippa")
            exported = tmp_path / "zelda.jsonl"
            exported.write_text(as_app("notebook", "export", "zelda"))
            as_app("notebook", "import", str(exported), "--title", "copy")
            assert "every chain verifies" in as_app("notebook", "verify")
        finally:
            app.close()
        # Migrations need the owner: the app's role may not change the schema.
        migrate = db.manage("migrate", "--no-input", env=app_env, check=False)
        assert migrate.returncode != 0 and "permission denied" in migrate.stderr
        import psycopg

        with psycopg.connect(pg_url(db.name, user=role), autocommit=True) as conn:
            for sql in ("UPDATE notebooks_row SET why = 'x'", "DELETE FROM notebooks_row", "TRUNCATE notebooks_words"):
                with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
                    conn.execute(sql)
    finally:
        pg_execute(f"DROP OWNED BY {role}", dbname=db.name)
        pg_execute(f"DROP ROLE IF EXISTS {role}")
