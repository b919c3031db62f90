# A session's change is pending until it lands: a proposal row (op "propose", naming the op it proposes) and, at
# the land, a landed copy naming the proposal (fold.py). Only nullable columns, so SQLite never rebuilds the table.

from django.db import migrations, models


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    from notebooks.log.store import triggers

    triggers.install(schema_editor.connection)


class Migration(migrations.Migration):

    dependencies = [
        ("notebooks", "0024_keyed_digests"),
    ]

    operations = [
        migrations.AddField(
            model_name="row",
            name="proposes",
            field=models.CharField(blank=True, max_length=8, null=True),
        ),
        migrations.AddField(
            model_name="row",
            name="lands",
            field=models.PositiveBigIntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="row",
            name="op",
            field=models.CharField(
                choices=[
                    ("add", "Add"),
                    ("edit", "Edit"),
                    ("strike", "Strike"),
                    ("adopt", "Adopt"),
                    ("redact", "Redact"),
                    ("propose", "Propose"),
                ],
                max_length=8,
            ),
        ),
        migrations.RunPython(install, migrations.RunPython.noop),
    ]
