# Snapshots of the live view (notebooks/log/views/snapshots.py): a new table, derived from the log, never trusted unchecked.

import django.db.models.deletion
from django.db import migrations, models


def store_uncompressed(apps, schema_editor):  # noqa: ANN001, ANN201
    # PostgreSQL would otherwise compress each snapshot on write and inflate it on every read (bench/NOTES.md).
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE notebooks_snapshot ALTER COLUMN lines SET STORAGE EXTERNAL")


class Migration(migrations.Migration):

    dependencies = [
        ('notebooks', '0007_redaction'),
    ]

    operations = [
        migrations.CreateModel(
            name='Snapshot',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('seq', models.PositiveBigIntegerField()),
                ('hash', models.CharField(max_length=64)),
                ('at', models.FloatField()),
                ('live', models.PositiveIntegerField(help_text='How many lines the snapshot holds.')),
                ('redactions', models.PositiveIntegerField(default=0)),
                ('lines', models.BinaryField()),
                ('mac', models.CharField(max_length=64)),
                ('notebook', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='notebooks.notebook')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('notebook', 'seq'), name='snapshot_seq_once')],
            },
        ),
        migrations.RunPython(store_uncompressed, migrations.RunPython.noop),
    ]
