# When a turn last read each notebook (moved forward, not the log), and Dad's archive marks (append-only, with
# their triggers): an emptied notebook can go off the index and come back.

import django.db.models.deletion
from django.db import migrations, models


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    from notebooks.log.store import triggers

    triggers.install(schema_editor.connection)


class Migration(migrations.Migration):

    dependencies = [
        ('notebooks', '0015_row_struck_into_idx'),
    ]

    operations = [
        migrations.CreateModel(
            name='TurnRead',
            fields=[
                ('notebook', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, primary_key=True, related_name='+', serialize=False, to='notebooks.notebook')),
                ('at', models.FloatField(help_text='When the turn was last read, epoch seconds.')),
                ('by', models.CharField(help_text="Who read it: the agent's name, or the CLI's.", max_length=150)),
            ],
        ),
        migrations.CreateModel(
            name='ArchiveMark',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('archived', models.BooleanField(help_text='True: off the index; False: back on it.')),
                ('by', models.CharField(help_text="The editor's username.", max_length=150)),
                ('why', models.TextField(blank=True, default='')),
                ('at', models.FloatField(help_text='When, epoch seconds.')),
                ('notebook', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='notebooks.notebook')),
            ],
            options={
                'indexes': [models.Index(fields=['notebook', 'id'], name='archive_mark_latest')],
            },
        ),
        migrations.RunPython(install, migrations.RunPython.noop),
    ]
