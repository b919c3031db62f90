import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('notebooks', '0003_tokens_sessions'),
    ]

    operations = [
        migrations.CreateModel(
            name='VaultAlarm',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('at', models.FloatField(help_text='When the vault found it, epoch seconds.')),
                ('title', models.CharField(max_length=80)),
                ('problem', models.CharField(max_length=24)),
                ('message', models.TextField()),
                ('evidence_ref', models.CharField(blank=True, default='', max_length=255)),
                ('evidence_sha', models.CharField(blank=True, default='', max_length=64)),
            ],
            options={
                'indexes': [models.Index(fields=['at'], name='vault_alarm_at_idx')],
            },
        ),
        migrations.CreateModel(
            name='VaultAlarmAck',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('by', models.CharField(max_length=80)),
                ('why', models.TextField(blank=True, default='')),
                ('at', models.FloatField()),
                ('alarm', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='ack', to='notebooks.vaultalarm')),
            ],
        ),
    ]
