from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('notebooks', '0004_vault_alarms'),
    ]

    operations = [
        migrations.AddField(
            model_name='session',
            name='vault_base',
            field=models.CharField(blank=True, default='', max_length=64),
        ),
    ]
