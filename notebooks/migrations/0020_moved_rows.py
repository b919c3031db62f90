# A line moved to another notebook: a strike how="moved" naming where it went, an add naming where it came from
# (fold.py). Only nullable columns, so SQLite never rebuilds the table (and its triggers stay).

from django.db import migrations, models


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    from notebooks.log.store import triggers

    triggers.install(schema_editor.connection)


class Migration(migrations.Migration):

    dependencies = [
        ("notebooks", "0019_writer_keys"),
    ]

    operations = [
        migrations.AddField(
            model_name="row",
            name="moved_notebook",
            field=models.CharField(blank=True, max_length=80, null=True),
        ),
        migrations.AddField(
            model_name="row",
            name="moved_n",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="row",
            name="how",
            field=models.CharField(
                blank=True,
                choices=[("retired", "Retired"), ("merged", "Merged"), ("moved", "Moved")],
                default="",
                max_length=8,
            ),
        ),
        migrations.RunPython(install, migrations.RunPython.noop),
    ]
