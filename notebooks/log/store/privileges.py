"""Least privilege on PostgreSQL (docs/POSTGRES.md): the log's tables get SELECT and INSERT only (the words DELETE too,
for redaction, which its trigger gates), so no code of the app can change them. Migrations run as the owner."""

from django.db import connection as default_connection
from django.db.backends.base.base import BaseDatabaseWrapper

from notebooks.log.store import triggers

READ_ONLY_TABLES = ("django_migrations", "django_content_type", "auth_permission")
EXTRA = {triggers.WORDS_TABLE: ", DELETE"}  # redaction's delete, gated by the words trigger


def grant_sql(role: str, connection: BaseDatabaseWrapper = default_connection) -> list[str]:
    """Statements (run as the owner) that leave `role` with least privilege on every table of this database."""
    if connection.vendor != "postgresql":
        raise NotImplementedError("roles and grants are PostgreSQL's; SQLite relies on its triggers and file access")
    quote = connection.ops.quote_name
    who = quote(role)
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_database(), current_schema()")
        database, schema = map(quote, cursor.fetchone())
    statements = [
        f"REVOKE ALL ON ALL TABLES IN SCHEMA {schema} FROM {who}",
        f"GRANT CONNECT ON DATABASE {database} TO {who}",
        f"GRANT USAGE ON SCHEMA {schema} TO {who}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {who}",
    ]
    for table in sorted(connection.introspection.table_names()):
        if table in triggers.PROTECTED_TABLES:
            privileges = "SELECT, INSERT" + EXTRA.get(table, "")
        elif table in READ_ONLY_TABLES:
            privileges = "SELECT"
        else:
            privileges = "SELECT, INSERT, UPDATE, DELETE"
        statements.append(f"GRANT {privileges} ON {quote(table)} TO {who}")
    return statements


def apply(role: str, connection: BaseDatabaseWrapper = default_connection) -> list[str]:
    statements = grant_sql(role, connection)
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)
    return statements
