# Keyed digests (notebooks/log/identity/wordkeys.py): words written from now on are stored with their salt, and their rows
# name a keyed digest, which no guess can be checked against once the words and their salt are redacted. No row's
# hash changes: older words keep their plain digest and their rows their hashes.
# PostgreSQL: notebooks_add_row stores the words' salt, and refuses words a redact row names by either digest
# (keyed, or plain from before), so a redaction from before keyed digests still keeps the words out.

import importlib

from django.db import migrations, models

FUNCTION = """
CREATE FUNCTION notebooks_add_row(
    p_lock_class integer, p_lock_key integer, p_notebook_id bigint, p_title varchar, p_seq bigint, p_op varchar,
    p_n integer, p_digest varchar, p_source varchar, p_by varchar, p_why text, p_how varchar, p_into integer,
    p_at double precision, p_was_at double precision, p_was_by varchar, p_prev_hash varchar, p_hash varchar,
    p_session_id bigint, p_redacts varchar, p_body text, p_guard boolean, p_salt varchar, p_plain varchar
) RETURNS TABLE (
    head_seq bigint, head_hash varchar, head_at double precision, top_n bigint, redact_seq bigint, may_claim boolean,
    inserted boolean
) LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(p_lock_class, p_lock_key);
    SELECT h.seq, h.hash, h.at,
           (SELECT x.seq FROM notebooks_row x
                WHERE x.notebook_id = nb.id AND x.op = 'redact' AND x.redacts IN (p_digest, p_plain) LIMIT 1)
        INTO head_seq, head_hash, head_at, redact_seq
        FROM notebooks_notebook nb
        LEFT JOIN LATERAL (SELECT r.seq, r.hash, r.at FROM notebooks_row r WHERE r.notebook_id = nb.id
                           ORDER BY r.seq DESC LIMIT 1) h ON true
        WHERE nb.id = p_notebook_id AND nb.title = p_title;
    IF NOT FOUND THEN
        RETURN;  -- no row: the title names another notebook than the one guessed
    END IF;
    -- The head guessed is the row this process added last, numbered after every line then: while it is still the
    -- head, p_n is the next number. Only a wrong guess needs the highest number, for the caller's next try.
    IF head_seq IS DISTINCT FROM p_seq - 1 OR head_hash IS DISTINCT FROM p_prev_hash THEN
        SELECT max(x.n) INTO top_n FROM notebooks_row x WHERE x.notebook_id = p_notebook_id;
    ELSE
        top_n := p_n - 1;
    END IF;
    may_claim := p_guard AND notebooks_may_claim(p_notebook_id, p_by);
    inserted := COALESCE(head_seq = p_seq - 1 AND head_hash = p_prev_hash AND redact_seq IS NULL AND NOT may_claim,
                         false);
    IF inserted THEN
        INSERT INTO notebooks_row (notebook_id, seq, op, n, digest, source, "by", why, how, "into", at, was_at, was_by,
                                   prev_hash, hash, session_id, redacts)
            VALUES (p_notebook_id, p_seq, p_op, p_n, p_digest, p_source, p_by, p_why, p_how, p_into, p_at, p_was_at,
                    p_was_by, p_prev_hash, p_hash, p_session_id, p_redacts);
        IF p_body IS NOT NULL THEN
            INSERT INTO notebooks_words (notebook_id, digest, body, salt) VALUES (p_notebook_id, p_digest, p_body, p_salt)
                ON CONFLICT DO NOTHING;
        END IF;
    END IF;
    RETURN NEXT;
END
$$
"""

DROP = "DROP FUNCTION IF EXISTS notebooks_add_row"


def create(apps, schema_editor):  # noqa: ANN001, ANN201
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)
        schema_editor.execute(FUNCTION, params=None)  # no params: PL/pgSQL's text must not be read for placeholders


def restore(apps, schema_editor):  # noqa: ANN001, ANN201
    if schema_editor.connection.vendor == "postgresql":
        before = importlib.import_module("notebooks.migrations.0013_add_row_takes_the_lock")
        schema_editor.execute(DROP, params=None)
        schema_editor.execute(before.FUNCTION, params=None)


class Migration(migrations.Migration):
    dependencies = [("notebooks", "0023_session_refusals")]

    operations = [
        migrations.AddField(
            model_name="words",
            name="salt",
            field=models.CharField(blank=True, max_length=32, null=True),
        ),
        migrations.RunPython(create, restore),
    ]
