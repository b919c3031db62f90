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
    "notebooks_reviewmark",
    "notebooks_archivemark",
    "notebooks_notalike",
    "notebooks_rowproof",
    "notebooks_suggestion",
    "notebooks_suggestiondecision",
)

# The one delete the log allows: a line's words, once a redact row of the same notebook names their digest.
WORDS_TABLE = "notebooks_words"
REDACTED = (
    "EXISTS (SELECT 1 FROM notebooks_row r WHERE r.notebook_id = OLD.notebook_id "
    "AND r.op = 'redact' AND r.redacts = OLD.digest)"
)


def _sqlite_sql(table: str, redaction: bool = True) -> list[str]:
    gated = table == WORDS_TABLE and redaction
    allow = f"WHEN NOT {REDACTED} " if gated else ""
    refused = "DELETE refused (only words named by a redact row may go)" if gated else "DELETE refused"
    return [
        f"DROP TRIGGER IF EXISTS {table}_no_update",
        f"DROP TRIGGER IF EXISTS {table}_no_delete",
        f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} "
        f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: UPDATE refused'); END",
        f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} {allow}"
        f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {refused}'); END",
    ]


PG_FUNCTION = """
CREATE OR REPLACE FUNCTION notebooks_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$
"""

PG_WORDS_FUNCTION = f"""
CREATE OR REPLACE FUNCTION notebooks_words_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND {REDACTED} THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION '% is append-only: % refused (only words named by a redact row may go)', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$
"""


def _postgres_sql(table: str, redaction: bool = True) -> list[str]:
    gated = table == WORDS_TABLE and redaction
    row_function = "notebooks_words_guard" if gated else "notebooks_refuse_change"
    return [
        f"DROP TRIGGER IF EXISTS {table}_no_change ON {table}",
        f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}",
        f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION {row_function}()",
        f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
        "FOR EACH STATEMENT EXECUTE FUNCTION notebooks_refuse_change()",
    ]


def expected_triggers(vendor: str, tables: "tuple[str, ...] | set[str]" = PROTECTED_TABLES) -> set[str]:
    suffixes = ("no_update", "no_delete") if vendor == "sqlite" else ("no_change", "no_truncate")
    return {f"{t}_{s}" for t in tables for s in suffixes}


def install(connection: BaseDatabaseWrapper = default_connection, *, gate_redactions: bool = False) -> None:
    """Drop and create every trigger; safe to run any number of times. SQLite refuses to rename a rebuilt table while
    a trigger names one briefly missing: the words' gate, naming notebooks_row, goes in after migrate only."""
    # An early migration runs before later tables exist; the post_migrate pass covers them.
    existing = set(connection.introspection.table_names())
    tables = [t for t in PROTECTED_TABLES if t in existing]
    # Before 0007_redaction there is no redacts column: a trigger naming it would break SQLite's table rebuilds.
    redaction = False
    if "notebooks_row" in existing:
        with connection.cursor() as cursor:
            columns = connection.introspection.get_table_description(cursor, "notebooks_row")
        redaction = any(c.name == "redacts" for c in columns)
    if connection.vendor == "postgresql":
        statements = [PG_FUNCTION, PG_WORDS_FUNCTION, *(sql for t in tables for sql in _postgres_sql(t, redaction))]
    elif connection.vendor == "sqlite":
        statements = [sql for t in tables for sql in _sqlite_sql(t, redaction and gate_redactions)]
    else:
        raise NotImplementedError(
            f"append-only triggers are written for SQLite and PostgreSQL, not {connection.vendor}"
        )
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)  # no params: PL/pgSQL's % must not be taken for placeholders


def ungate(connection: BaseDatabaseWrapper = default_connection) -> None:
    """SQLite, before migrate: the words refuse every delete, naming no other table, so rebuilds can rename."""
    if connection.vendor != "sqlite" or WORDS_TABLE not in connection.introspection.table_names():
        return
    with connection.cursor() as cursor:
        for sql in _sqlite_sql(WORDS_TABLE, redaction=False):
            cursor.execute(sql)


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
