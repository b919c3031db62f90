# The notebook foreign keys of rows and words lose their own indexes: the unique (notebook, seq) and
# (notebook, digest) constraints lead with the same column and serve every lookup by notebook, and each index
# is one more page to write per commit. Only DROP INDEX: Django's AlterField would rebuild the tables on SQLite
# (copy, drop, rename), which the append-only log must never go through.

from django.db import migrations, models

TABLES = ("notebooks_row", "notebooks_words")


def _fk_indexes(schema_editor, table):  # noqa: ANN001, ANN202
    """The plain indexes on notebook_id alone (Django names them itself: found, not guessed)."""
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    return sorted(
        name
        for name, c in constraints.items()
        if c["index"] and not c["unique"] and not c["primary_key"] and c["columns"] == ["notebook_id"]
    )


def drop(apps, schema_editor):  # noqa: ANN001, ANN201
    for table in TABLES:
        for name in _fk_indexes(schema_editor, table):
            schema_editor.execute(f"DROP INDEX {schema_editor.quote_name(name)}")


def restore(apps, schema_editor):  # noqa: ANN001, ANN201
    for table in TABLES:
        if not _fk_indexes(schema_editor, table):
            name = schema_editor._create_index_name(table, ["notebook_id"])
            schema_editor.execute(
                f"CREATE INDEX {schema_editor.quote_name(name)} ON {schema_editor.quote_name(table)} (notebook_id)"
            )


class Migration(migrations.Migration):
    dependencies = [
        ("notebooks", "0007_redaction"),
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
            ],
            database_operations=[migrations.RunPython(drop, restore)],
        ),
    ]
