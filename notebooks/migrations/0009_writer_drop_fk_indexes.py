# Rows and words lose the indexes Django gave their foreign keys, each one more page to write per commit and one
# more index to fill per imported row:
# - rows.notebook_id and words.notebook_id: the unique (notebook, seq) and (notebook, digest) lead with that column
#   and serve every lookup by notebook;
# - rows.session_id: a session's rows all come after its base, found on (notebook, seq) (sessions.gates.own_rows,
#   session_selectors.change_of), and most rows have no session.
# Only DROP INDEX: Django's AlterField would rebuild the tables on SQLite (copy, drop, rename), which the
# append-only log must never go through.

from django.db import migrations, models

DROPPED = (("notebooks_row", "notebook_id"), ("notebooks_words", "notebook_id"), ("notebooks_row", "session_id"))


def _fk_indexes(schema_editor, table, column):  # noqa: ANN001, ANN202
    """The plain indexes on that column alone (Django names them itself: found, not guessed)."""
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    return sorted(
        name
        for name, c in constraints.items()
        if c["index"] and not c["unique"] and not c["primary_key"] and c["columns"] == [column]
    )


def drop(apps, schema_editor):  # noqa: ANN001, ANN201
    for table, column in DROPPED:
        for name in _fk_indexes(schema_editor, table, column):
            schema_editor.execute(f"DROP INDEX {schema_editor.quote_name(name)}")


def restore(apps, schema_editor):  # noqa: ANN001, ANN201
    for table, column in DROPPED:
        if not _fk_indexes(schema_editor, table, column):
            name = schema_editor._create_index_name(table, [column])
            quote = schema_editor.quote_name
            schema_editor.execute(f"CREATE INDEX {quote(name)} ON {quote(table)} ({quote(column)})")


class Migration(migrations.Migration):
    dependencies = [
        ("notebooks", "0008_snapshots"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="row",
                    name="notebook",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=models.deletion.PROTECT,
                        related_name="rows",
                        to="notebooks.notebook",
                    ),
                ),
                migrations.AlterField(
                    model_name="words",
                    name="notebook",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=models.deletion.PROTECT,
                        related_name="+",
                        to="notebooks.notebook",
                    ),
                ),
                migrations.AlterField(
                    model_name="row",
                    name="session",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=models.deletion.PROTECT,
                        related_name="rows",
                        to="notebooks.session",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(drop, restore)],
        ),
    ]
