# Suggestions from outside and Dad's decisions on them (notebooks/similar/suggestions.py), append-only with their
# triggers like the log's other tables; neither is a row of the notebook's log.

import django.db.models.deletion
from django.db import migrations, models


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    from notebooks.log.store import triggers

    triggers.install(schema_editor.connection)


class Migration(migrations.Migration):

    dependencies = [
        ('notebooks', '0026_claimed_at'),
    ]

    operations = [
        migrations.CreateModel(
            name='Suggestion',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('lines', models.JSONField(help_text="The suggested lines' numbers, ascending (a set).")),
                ('kind', models.CharField(choices=[('repeat', 'repeat'), ('conflict', 'conflict'), ('stray', 'stray')], max_length=8)),
                ('words', models.TextField(blank=True, default='', help_text='A repeat: the words to keep, if suggested.')),
                ('keep', models.PositiveIntegerField(blank=True, help_text='A conflict: the line to keep, if suggested.', null=True)),
                ('why', models.TextField(help_text="The suggester's reason.")),
                ('by', models.CharField(help_text="Who suggested it: the token's actor.", max_length=150)),
                ('at', models.FloatField(help_text='When it was received (server time), epoch seconds.')),
                ('notebook', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='notebooks.notebook')),
            ],
        ),
        migrations.CreateModel(
            name='SuggestionDecision',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('outcome', models.CharField(choices=[('merged', 'merged'), ('kept', 'kept'), ('retired', 'retired'), ('not_alike', 'not_alike'), ('dismissed', 'dismissed')], max_length=10)),
                ('by', models.CharField(help_text="The editor's username.", max_length=150)),
                ('why', models.TextField()),
                ('at', models.FloatField(help_text='When he decided, epoch seconds.')),
                ('suggestion', models.OneToOneField(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='decision', to='notebooks.suggestion')),
            ],
        ),
        migrations.AddIndex(
            model_name='suggestion',
            index=models.Index(fields=['notebook', 'id'], name='suggestion_by_notebook'),
        ),
        migrations.RunPython(install, migrations.RunPython.noop),
    ]
