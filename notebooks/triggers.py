"""The SQL that makes the log append-only, in one place: installed by a migration and again after
every migrate (Django's SQLite table rebuild drops triggers silently)."""

from django.db import connection as default_connection
from django.db.backends.base.base import BaseDatabaseWrapper

# Tables whose rows are never updated nor deleted.
PROTECTED_TABLES = (
    "notebooks_notebook",
    "notebooks_row",
    "notebooks_words",
    "notebooks_vaultalarm",
    "notebooks_vaultalarmack",
    "notebooks_session",
    "notebooks_sessionevent",
)


def _sqlite_sql(table: str) -> list[str]:
    return [
        f"DROP TRIGGER IF EXISTS {table}_no_update",
        f"DROP TRIGGER IF EXISTS {table}_no_delete",
        f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} "
        f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: UPDATE refused'); END",
        f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
        f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: DELETE refused'); END",
    ]


PG_FUNCTION = """
CREATE OR REPLACE FUNCTION notebooks_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$
"""


def _postgres_sql(table: str) -> list[str]:
    return [
        f"DROP TRIGGER IF EXISTS {table}_no_change ON {table}",
        f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}",
        f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON {table} "
        "FOR EACH ROW EXECUTE FUNCTION notebooks_refuse_change()",
        f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
        "FOR EACH STATEMENT EXECUTE FUNCTION notebooks_refuse_change()",
    ]


def expected_triggers(vendor: str, tables: "tuple[str, ...] | set[str]" = PROTECTED_TABLES) -> set[str]:
    suffixes = ("no_update", "no_delete") if vendor == "sqlite" else ("no_change", "no_truncate")
    return {f"{t}_{s}" for t in tables for s in suffixes}


def install(connection: BaseDatabaseWrapper = default_connection) -> None:
    """Drop and create every trigger; safe to run any number of times."""
    # An early migration runs before later tables exist; the post_migrate pass covers them.
    existing = set(connection.introspection.table_names())
    tables = [t for t in PROTECTED_TABLES if t in existing]
    statements: list[str] = []
    if connection.vendor == "postgresql":
        statements.append(PG_FUNCTION)
        for table in tables:
            statements += _postgres_sql(table)
    elif connection.vendor == "sqlite":
        for table in tables:
            statements += _sqlite_sql(table)
    else:
        raise NotImplementedError(
            f"append-only triggers are written for SQLite and PostgreSQL, not {connection.vendor}"
        )
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)  # no params: PL/pgSQL's % must not be taken for placeholders


def installed(connection: BaseDatabaseWrapper = default_connection) -> set[str]:
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        else:
            cursor.execute(
                "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgenabled <> 'D' "
                "AND tgrelid::regclass::text = ANY(%s)",
                [list(PROTECTED_TABLES)],
            )
        return {name for (name,) in cursor.fetchall()}


def missing(connection: BaseDatabaseWrapper = default_connection) -> list[str]:
    # A table a pending migration will create has no triggers yet; migrate installs them (and must not be blocked).
    tables = set(PROTECTED_TABLES) & set(connection.introspection.table_names())
    return sorted(expected_triggers(connection.vendor, tables) - installed(connection))
