"""0007_redaction on a database that already holds rows: no table rebuild, rows and hashes kept, triggers kept."""

import json

from notebooks.log.files import rowformat
from tests.databases import Scratch


def test_the_redaction_migration_keeps_existing_rows_and_triggers(scratch_templates, tmp_path):
    db: Scratch = scratch_templates.empty()
    db.manage("migrate", "auth", "--no-input", "-v", "0")  # the editors group (made after every migrate) needs it
    db.manage("migrate", "notebooks", "0002", "--no-input", "-v", "0")
    lines = [
        {"op": "add", "n": 1, "text": "a secret: hunter2", "source": "seen", "by": "pippa", "why": "x", "at": 1.0},
        {"op": "add", "n": 2, "text": "roll after the swing", "source": "seen", "by": "pippa", "why": "x", "at": 2.0},
    ]
    rows, prev = [], rowformat.GENESIS
    for seq, line in enumerate(lines, start=1):
        fields = {
            "seq": seq,
            "op": "add",
            "n": line["n"],
            "digest": rowformat.digest_of(line["text"]),
            "source": "seen",
            "by": "pippa",
            "why": "x",
            "how": "",
            "into": None,
            "at": line["at"],
            "was_at": None,
            "was_by": "",
        }
        prev = rowformat.row_hash(prev, fields)
        rows.append((fields, line["text"], prev))
    # Written as the pre-redaction schema had them, with SQL: today's models already know the new column.
    script = tmp_path / "old_rows.py"
    script.write_text(
        "import json, sys, django\n"
        "django.setup()\n"
        "from django.db import connection, transaction\n"
        "rows = json.loads(sys.argv[1])\n"
        "with transaction.atomic(), connection.cursor() as c:\n"
        '    c.execute("INSERT INTO notebooks_notebook (title, created_at, created_by)"\n'
        "              \" VALUES ('old', '2026-01-01', 't')\")\n"
        "    c.execute(\"SELECT id FROM notebooks_notebook WHERE title = 'old'\")\n"
        "    nb = c.fetchone()[0]\n"
        "    prev = '0' * 64\n"
        "    for f, text, h in rows:\n"
        "        c.execute('INSERT INTO notebooks_words (notebook_id, digest, body) VALUES (%s, %s, %s)',"
        " [nb, f['digest'], text])\n"
        '        c.execute(\'INSERT INTO notebooks_row (notebook_id, seq, op, n, digest, source, "by", why, how, at,'
        " was_by, prev_hash, hash) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)',"
        " [nb, f['seq'], f['op'], f['n'], f['digest'], f['source'], f['by'], f['why'], f['how'], f['at'],"
        " f['was_by'], prev, h])\n"
        "        prev = h\n"
    )
    db.run(str(script), json.dumps(rows))
    if db.vendor == "sqlite":
        sql = db.manage("sqlmigrate", "notebooks", "0007").stdout
        assert "ALTER TABLE" in sql and "CREATE TABLE" not in sql  # no rebuild that would drop the triggers
    db.manage("migrate", "--no-input", "-v", "0")
    with db.commands() as migrated:  # one process for what follows the migration, not one per command
        migrated.run("notebook", "editor", "dad")
        head_before = rows[-1][2]
        assert f"head {head_before}" in migrated.run("notebook", "verify", "old")
        migrated.run("notebook", "redact", "old", "1", "--by", "dad", "--why", "a password")
        assert "every chain verifies" in migrated.run("notebook", "verify", "old", "--pinned", head_before)
        assert "[redacted: a password]" in migrated.run("notebook", "view", "old")
