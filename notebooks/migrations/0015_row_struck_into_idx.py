# An index of the strikes that name a line in `into` (merged or retired into it), so the line's history finds them
# without scanning the notebook (only an index: SQLite does not rebuild the table). Numbered 0015: 0014 is the
# similarity engine's, on its own branch; whoever merges both makes this one depend on it.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("notebooks", "0013_add_row_takes_the_lock"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="row",
            index=models.Index(
                condition=models.Q(("into__isnull", False), ("op", "strike")),
                fields=["notebook", "into"],
                name="row_struck_into_idx",
            ),
        ),
    ]
