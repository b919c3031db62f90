# Session leases (notebooks/sessions/leases.py): when a session's holder last called. A session open at this
# migration gets a lease renewed now, so no holder at work loses its notebook the moment this is deployed.

import time

import django.db.models.deletion
from django.db import migrations, models


def lease_open_sessions(apps, schema_editor):  # noqa: ANN001, ANN201
    Session = apps.get_model("notebooks", "Session")
    SessionLease = apps.get_model("notebooks", "SessionLease")
    closed = apps.get_model("notebooks", "SessionEvent").objects.filter(kind__in=("land", "abandon"))
    now = time.time()
    open_ids = Session.objects.exclude(pk__in=closed.values("session_id")).values_list("pk", flat=True)
    SessionLease.objects.bulk_create([SessionLease(session_id=pk, renewed_at=now) for pk in open_ids])


class Migration(migrations.Migration):

    dependencies = [
        ('notebooks', '0020_moved_rows'),
    ]

    operations = [
        migrations.CreateModel(
            name='SessionLease',
            fields=[
                ('session', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='lease', serialize=False, to='notebooks.session')),
                ('renewed_at', models.FloatField()),
            ],
        ),
        migrations.AlterField(
            model_name='sessionevent',
            name='kind',
            field=models.CharField(choices=[('take', 'Take'), ('drift', 'Drift'), ('checkpoint', 'Checkpoint'), ('land', 'Land'), ('abandon', 'Abandon'), ('lapse', 'Lapse')], max_length=12),
        ),
        migrations.RunPython(lease_open_sessions, migrations.RunPython.noop),
    ]
