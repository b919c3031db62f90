# Redaction: a redact row names the digest of words removed from notebooks_words; the words' DELETE trigger lets
# exactly those go. Only a nullable column and an index, so SQLite never rebuilds the table.

from django.db import migrations, models


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    from notebooks.log.store import triggers

    triggers.install(schema_editor.connection)


class Migration(migrations.Migration):

    dependencies = [
        ("notebooks", "0006_bench_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="row",
            name="redacts",
            field=models.CharField(blank=True, max_length=64, null=True),
        ),
        migrations.AlterField(
            model_name="row",
            name="op",
            field=models.CharField(
                choices=[("add", "Add"), ("edit", "Edit"), ("strike", "Strike"), ("adopt", "Adopt"), ("redact", "Redact")],
                max_length=8,
            ),
        ),
        migrations.AddIndex(
            model_name="row",
            index=models.Index(fields=["notebook", "redacts"], name="row_redacts_idx"),
        ),
        migrations.RunPython(install, migrations.RunPython.noop),
    ]
