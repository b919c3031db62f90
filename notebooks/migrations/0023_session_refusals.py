# A session's `refuse` event: the land gates' reasons, for a land they refused or the editor's land that overruled
# them (notebooks/sessions/decisions.py). Choices only: no table changes.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("notebooks", "0022_row_proofs"),
    ]

    operations = [
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
                ],
                max_length=12,
            ),
        ),
    ]
