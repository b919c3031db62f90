# PostgreSQL: notebooks_add_row takes the notebook's lock itself, and asks the write guard itself, after the lock
# (notebooks/log/store/fast_add.py). An add is then one prepared statement: outside a transaction, one message to the
# server and its answer, BEGIN and COMMIT included (an implicit transaction), where it was three round trips (BEGIN,
# the lock with the call, COMMIT), the call's text parsed and planned at each add.
# Why the reads can follow the lock inside one call: a VOLATILE function's statements each take a fresh snapshot, so
# the head it reads is the one after the lock (a single statement would read with the snapshot it started with).
# notebooks_may_claim (migration 0012) is STABLE, so the guard reads with the snapshot of the statement that calls it,
# the one after the lock. p_guard false: nothing asks (no guard registered, guards.py).
# SQLite: nothing.

import importlib

from django.db import migrations

FUNCTION = """
CREATE FUNCTION notebooks_add_row(
    p_lock_class integer, p_lock_key integer, p_notebook_id bigint, p_title varchar, p_seq bigint, p_op varchar,
    p_n integer, p_digest varchar, p_source varchar, p_by varchar, p_why text, p_how varchar, p_into integer,
    p_at double precision, p_was_at double precision, p_was_by varchar, p_prev_hash varchar, p_hash varchar,
    p_session_id bigint, p_redacts varchar, p_body text, p_guard boolean
) RETURNS TABLE (
    head_seq bigint, head_hash varchar, head_at double precision, top_n bigint, redact_seq bigint, may_claim boolean,
    inserted boolean
) LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(p_lock_class, p_lock_key);
    SELECT h.seq, h.hash, h.at,
           (SELECT x.seq FROM notebooks_row x
                WHERE x.notebook_id = nb.id AND x.op = 'redact' AND x.redacts = p_digest LIMIT 1)
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
            INSERT INTO notebooks_words (notebook_id, digest, body) VALUES (p_notebook_id, p_digest, p_body)
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
        before = importlib.import_module("notebooks.migrations.0012_add_row_function")
        schema_editor.execute(DROP, params=None)
        schema_editor.execute(before.FUNCTION, params=None)


class Migration(migrations.Migration):
    dependencies = [("notebooks", "0012_add_row_function")]

    operations = [migrations.RunPython(create, restore)]
