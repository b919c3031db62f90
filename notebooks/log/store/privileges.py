"""Least privilege on PostgreSQL: the SQL that gives the app's role only what it needs (docs/POSTGRES.md).

The log's tables (triggers.PROTECTED_TABLES) get SELECT and INSERT, nothing else, so an UPDATE, a DELETE, a
TRUNCATE or disabling a trigger fails with "permission denied" whatever the app's code does. The one exception
is DELETE on the words table, which redaction needs; its trigger lets through only words named by a redact row.
Migrations keep running as the owner, who then runs these grants again.
"""

from django.db import connection as default_connection
from django.db.backends.base.base import BaseDatabaseWrapper

from notebooks.log.store import triggers

READ_ONLY_TABLES = ("django_migrations", "django_content_type", "auth_permission")
EXTRA = {triggers.WORDS_TABLE: ", DELETE"}  # redaction's delete, gated by the words trigger


def _quote(connection: BaseDatabaseWrapper, name: str) -> str:
    return connection.ops.quote_name(name)


def grant_sql(role: str, connection: BaseDatabaseWrapper = default_connection) -> list[str]:
    """Statements (run as the owner) that leave `role` with least privilege on every table of this database."""
    if connection.vendor != "postgresql":
        raise NotImplementedError("roles and grants are PostgreSQL's; SQLite relies on its triggers and file access")
    who = _quote(connection, role)
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_database(), current_schema()")
        database, schema = cursor.fetchone()
    tables = sorted(connection.introspection.table_names())
    statements = [
        f"REVOKE ALL ON ALL TABLES IN SCHEMA {_quote(connection, schema)} FROM {who}",
        f"GRANT CONNECT ON DATABASE {_quote(connection, database)} TO {who}",
        f"GRANT USAGE ON SCHEMA {_quote(connection, schema)} TO {who}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {_quote(connection, schema)} TO {who}",
    ]
    for table in tables:
        if table in triggers.PROTECTED_TABLES:
            privileges = "SELECT, INSERT" + EXTRA.get(table, "")
        elif table in READ_ONLY_TABLES:
            privileges = "SELECT"
        else:
            privileges = "SELECT, INSERT, UPDATE, DELETE"
        statements.append(f"GRANT {privileges} ON {_quote(connection, table)} TO {who}")
    return statements


def apply(role: str, connection: BaseDatabaseWrapper = default_connection) -> list[str]:
    statements = grant_sql(role, connection)
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)
    return statements
