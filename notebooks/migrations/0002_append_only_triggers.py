from django.db import migrations


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    from notebooks.log.store import triggers

    triggers.install(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [("notebooks", "0001_initial")]

    operations = [migrations.RunPython(install, migrations.RunPython.noop)]
