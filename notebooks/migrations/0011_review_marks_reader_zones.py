# Review marks (append-only, with their triggers), the time zone each reader's browser reported, and an index of
# the adds that restore a line (only an index: SQLite does not rebuild the table).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    from notebooks.log.store import triggers

    triggers.install(schema_editor.connection)


class Migration(migrations.Migration):

    dependencies = [
        ('notebooks', '0010_signin_failures'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='ReaderZone',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('zone', models.CharField(max_length=64)),
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.CreateModel(
            name='ReviewMark',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('by', models.CharField(help_text="The editor's username.", max_length=150)),
                ('seq', models.PositiveBigIntegerField(help_text="The notebook's head seq he reviewed up to.")),
                ('hash', models.CharField(max_length=64)),
                ('top_n', models.PositiveIntegerField(default=0)),
                ('at', models.FloatField(help_text='When he marked it, epoch seconds.')),
                ('notebook', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='notebooks.notebook')),
            ],
            options={
                'indexes': [models.Index(fields=['notebook', 'by', 'seq'], name='review_mark_latest')],
            },
        ),
        migrations.AddIndex(
            model_name="row",
            index=models.Index(
                condition=models.Q(("into__isnull", False), ("op", "add")),
                fields=["notebook", "into"],
                name="row_restores_idx",
            ),
        ),
        migrations.RunPython(install, migrations.RunPython.noop),
    ]
