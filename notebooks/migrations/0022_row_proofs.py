# Row proofs (notebooks/log/files/imports.py): which writer key proved an outside row, and its mac, so a signed row
# proves one row once. Append-only with its triggers like the log's other tables; no row's hash changes.

import django.db.models.deletion
from django.db import migrations, models


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    from notebooks.log.store import triggers

    triggers.install(schema_editor.connection)


class Migration(migrations.Migration):

    dependencies = [
        ('notebooks', '0021_session_leases'),
    ]

    operations = [
        migrations.CreateModel(
            name='RowProof',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('seq', models.PositiveBigIntegerField(help_text="The row of the notebook's log the key proved.")),
                ('key_id', models.CharField(max_length=16)),
                ('mac', models.CharField(help_text='The row\'s HMAC as the writer signed it.', max_length=64, unique=True)),
                ('notebook', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='notebooks.notebook')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('notebook', 'seq'), name='row_proof_once')],
            },
        ),
        migrations.RunPython(install, migrations.RunPython.noop),
    ]
