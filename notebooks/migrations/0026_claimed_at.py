# The log keeps time: a row appended to an existing notebook takes the server's time as `at`, and the time its writer
# gave is kept apart in `claimed_at` (docs/file-format.md). A nullable column, so SQLite never rebuilds the table.

from django.db import migrations, models


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    from notebooks.log.store import triggers

    triggers.install(schema_editor.connection)


class Migration(migrations.Migration):

    dependencies = [
        ("notebooks", "0025_proposals"),
    ]

    operations = [
        migrations.AddField(
            model_name="row",
            name="claimed_at",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.RunPython(install, migrations.RunPython.noop),
    ]
