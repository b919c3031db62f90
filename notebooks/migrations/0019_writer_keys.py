# Writer keys (notebooks/log/identity/writer_keys.py): which outside writer signed a vault row. Not append-only: a revoke
# sets revoked_at, like an API token; no secret is stored (docs/vault.md, "Writer keys").

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('notebooks', '0018_idempotency_keys'),
    ]

    operations = [
        migrations.CreateModel(
            name='WriterKey',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key_id', models.CharField(help_text='Public: each signed row names it in `kid`.', max_length=16, unique=True)),
                ('actor', models.CharField(help_text='Whom the rows it signs are by (through the one name check).', max_length=80)),
                ('editor', models.BooleanField(default=False, help_text="May write as the editor, only while the actor's user holds the role.")),
                ('salt', models.CharField(help_text='Random, hex; part of what the secret is derived from.', max_length=32)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('created_by', models.CharField(blank=True, default='', max_length=150)),
                ('revoked_at', models.DateTimeField(blank=True, null=True)),
                ('revoked_by', models.CharField(blank=True, default='', max_length=150)),
                ('revoked_why', models.TextField(blank=True, default='')),
            ],
        ),
    ]
