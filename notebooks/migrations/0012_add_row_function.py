# PostgreSQL: notebooks_add_row, the storage half of an add in one round trip (notebooks/log/store/fast_add.py). Given a row
# already numbered and hashed in Python on a guessed head, it reads the notebook's head, next number and any redact
# row naming the words, and inserts the row and its words only if the row continues that head, no redaction names
# the words and the write guard had nothing to say. It checks no rule and hashes nothing: fold.py and checks.py keep
# those, rowformat.py the hash. Statements inside a function keep their plans for the connection's life (planning
# was a third of an add's time: bench/NOTES.md); generic plans from the first call on
# (by default PostgreSQL plans a query with parameters afresh at its first five calls, and for good when a generic
# plan looks dearer, as a LIMIT 1 by a parameter does). The caller holds the notebook's lock.
# SQLite: nothing (its add is one statement in-process).

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION notebooks_add_row(
    p_notebook_id bigint, p_title varchar, p_seq bigint, p_op varchar, p_n integer, p_digest varchar,
    p_source varchar, p_by varchar, p_why text, p_how varchar, p_into integer, p_at double precision, p_was_at double precision, p_was_by varchar,
    p_prev_hash varchar, p_hash varchar, p_session_id bigint, p_redacts varchar, p_body text, p_may_claim boolean
) RETURNS TABLE (
    head_seq bigint, head_hash varchar, head_at double precision, top_n bigint, redact_seq bigint, may_claim boolean,
    inserted boolean
) LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    -- One statement for the notebook, its head, next number and any redaction of the words (each statement run
    -- costs its own executor start).
    SELECT h.seq, h.hash, h.at,
           (SELECT max(x.n) FROM notebooks_row x WHERE x.notebook_id = nb.id),
           (SELECT x.seq FROM notebooks_row x
                WHERE x.notebook_id = nb.id AND x.op = 'redact' AND x.redacts = p_digest LIMIT 1)
        INTO head_seq, head_hash, head_at, top_n, redact_seq
        FROM notebooks_notebook nb
        LEFT JOIN LATERAL (SELECT r.seq, r.hash, r.at FROM notebooks_row r WHERE r.notebook_id = nb.id
                           ORDER BY r.seq DESC LIMIT 1) h ON true
        WHERE nb.id = p_notebook_id AND nb.title = p_title;
    IF NOT FOUND THEN
        RETURN;  -- no row: the title names another notebook than the one guessed
    END IF;
    may_claim := p_may_claim;
    inserted := COALESCE(head_seq = p_seq - 1 AND head_hash = p_prev_hash AND redact_seq IS NULL AND NOT p_may_claim,
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

# The sessions' write guard (sessions/claims.py, MAY_CLAIM_SQL) as a function, for the same reason: an open session of
# the actor or on the notebook, planned once per connection; tests/log/test_one_trip.py checks they agree.
MAY_CLAIM = """
CREATE OR REPLACE FUNCTION notebooks_may_claim(p_notebook_id bigint, p_actor varchar) RETURNS boolean
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM notebooks_session s WHERE (s.actor = p_actor OR s.notebook_id = p_notebook_id)
        AND NOT EXISTS (SELECT 1 FROM notebooks_sessionevent e WHERE e.session_id = s.id
                        AND e.kind IN ('land', 'abandon')));
END
$$
"""

DROP = ("DROP FUNCTION IF EXISTS notebooks_add_row", "DROP FUNCTION IF EXISTS notebooks_may_claim")


def create(apps, schema_editor):  # noqa: ANN001, ANN201
    if schema_editor.connection.vendor == "postgresql":
        for sql in (FUNCTION, MAY_CLAIM):
            schema_editor.execute(sql, params=None)  # no params: PL/pgSQL's text must not be read for placeholders


def drop(apps, schema_editor):  # noqa: ANN001, ANN201
    if schema_editor.connection.vendor == "postgresql":
        for sql in DROP:
            schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [("notebooks", "0011_review_marks_reader_zones")]

    operations = [migrations.RunPython(create, drop)]
