# Idempotency keys (notebooks/agents/idempotency.py): an agent's write as first answered, per actor and key, kept a day;
# not part of the log (expired keys are deleted), so not among the append-only tables.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('notebooks', '0017_not_alike'),
    ]

    operations = [
        migrations.CreateModel(
            name='IdempotencyKey',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('actor', models.CharField(help_text="Whose key: the token's actor.", max_length=150)),
                ('key', models.CharField(max_length=255)),
                ('what', models.CharField(help_text="The request it answered: 'POST /api/…' or 'mcp add'.", max_length=300)),
                ('fingerprint', models.CharField(help_text='sha256 of the request and its canonical body.', max_length=64)),
                ('status', models.PositiveSmallIntegerField()),
                ('answer', models.TextField(help_text="The answer's body, as first sent.")),
                ('at', models.FloatField(help_text='When it was first answered, epoch seconds.')),
            ],
            options={
                'indexes': [models.Index(fields=['at'], name='idempotency_key_at')],
                'constraints': [models.UniqueConstraint(fields=('actor', 'key'), name='idempotency_key_once_per_actor')],
            },
        ),
    ]
