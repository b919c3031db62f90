# The sign-in throttle's failures, counted in the database every worker process shares (card/throttle.py).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("notebooks", "0009_writer_drop_fk_indexes")]

    operations = [
        migrations.CreateModel(
            name="SigninFailure",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "key",
                    models.CharField(
                        help_text="sha256 of what is counted: a username+address, or an address.", max_length=64
                    ),
                ),
                ("at", models.FloatField()),
            ],
            options={
                "indexes": [
                    models.Index(fields=["key", "at"], name="signin_failure_key_at"),
                    models.Index(fields=["at"], name="signin_failure_at"),
                ],
            },
        ),
    ]
