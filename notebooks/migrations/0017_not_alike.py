# Dad's "Not alike" marks on groups of similar lines (notebooks/similar/services.py), append-only with their
# triggers like the log's other tables; a reversal is a new row naming the mark in `undoes`.

import django.db.models.deletion
from django.db import migrations, models


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    from notebooks.log.store import triggers

    triggers.install(schema_editor.connection)


class Migration(migrations.Migration):

    dependencies = [
        ('notebooks', '0016_turn_reads_archive_marks'),
    ]

    operations = [
        migrations.CreateModel(
            name='NotAlike',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('lines', models.JSONField(help_text="The marked lines' numbers, ascending (a set).")),
                ('by', models.CharField(help_text="The editor's username.", max_length=150)),
                ('why', models.TextField(blank=True, default='')),
                ('at', models.FloatField(help_text='When he marked it, epoch seconds.')),
                ('notebook', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='notebooks.notebook')),
                ('undoes', models.OneToOneField(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='undone_by', to='notebooks.notalike')),
            ],
            options={
                'indexes': [models.Index(fields=['notebook', 'id'], name='not_alike_by_notebook')],
            },
        ),
        migrations.RunPython(install, migrations.RunPython.noop),
    ]
