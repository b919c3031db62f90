# A session's `withdraw` event: its holder (or the editor) takes back one proposal of the open session, which then
# never counts nor lands (notebooks/sessions/services.py). An event kind and a nullable column naming the proposal,
# so SQLite never rebuilds the table; the triggers are installed again all the same.

from django.db import migrations, models


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    from notebooks.log.store import triggers

    triggers.install(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [
        ("notebooks", "0027_suggestions"),
    ]

    operations = [
        migrations.AddField(
            model_name="sessionevent",
            name="proposal",
            field=models.PositiveBigIntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="sessionevent",
            name="kind",
            field=models.CharField(
                choices=[
                    ("take", "Take"),
                    ("drift", "Drift"),
                    ("checkpoint", "Checkpoint"),
                    ("land", "Land"),
                    ("abandon", "Abandon"),
                    ("lapse", "Lapse"),
                    ("refuse", "Refuse"),
                    ("withdraw", "Withdraw"),
                ],
                max_length=12,
            ),
        ),
        migrations.RunPython(install, migrations.RunPython.noop),
    ]
