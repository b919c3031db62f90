"""An add in one round trip (log/store/fast_add.py): on PostgreSQL, once this process wrote a notebook's head, an add
is one call of notebooks_add_row, which takes the lock itself; a wrong guess of the head is a second trip, never a
refusal nor a gap."""

import json

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from notebooks.log import redaction, services
from notebooks.log.files import verify
from notebooks.log.identity.roles import Actor
from notebooks.log.rules.errors import Conflict, Invalid
from notebooks.log.store import fast_add
from notebooks.log.views import selectors
from notebooks.models import Notebook
from notebooks.sessions import services as sessions


def add(text: str, by: str = "pippa", source: str = "seen") -> services.Written:
    return services.add(notebook="zelda", text=text, source=source, by=Actor(by), why="w")  # no lookup of the name


def _statements(fn) -> list[str]:  # noqa: ANN001
    with CaptureQueriesContext(connection) as seen:
        fn()
    return [q["sql"] for q in seen.captured_queries if "notebooks_" in q["sql"]]  # not BEGIN, SAVEPOINT, COMMIT


def _chain_ok() -> bool:
    return verify.verify_chain(Notebook.objects.get(title="zelda")) == []


@pytest.mark.vendor("postgresql")
def test_an_add_after_this_process_wrote_the_head_is_one_statement(notebook):
    first = _statements(lambda: add("one"))
    assert len(first) == 4  # no guess yet: lock, read, row, words
    then = _statements(lambda: add("two"))
    assert len(then) == 1 and "notebooks_add_row" in then[0]
    assert [line.text for line in selectors.view(notebook)] == ["one", "two"]
    assert _chain_ok()


@pytest.mark.vendor("sqlite")
def test_sqlite_guesses_nothing(notebook):
    add("one")
    assert fast_add.try_add("zelda", Actor("pippa"), {}) is None


def test_a_head_moved_by_another_write_is_read_again_not_refused(notebook, dad):
    add("one")
    services.edit(notebook="zelda", n=1, to="one, said again", by="pippa", why="w")  # the guess is now behind
    services.add(notebook="zelda", text="dad's", source="dad", by="dad", why="w")  # …and from another actor
    written = add("two")
    assert (written.n, written.seq) == (3, 4)
    assert add("three").seq == 5  # guessed right again
    assert _chain_ok()


def test_a_guess_from_a_rolled_back_add_is_corrected(notebook):
    add("one")
    with pytest.raises(RuntimeError), transaction.atomic():
        add("two")  # remembered as the head before the commit that never comes
        raise RuntimeError
    written = add("three")
    assert (written.n, written.seq) == (2, 2)
    assert [line.text for line in selectors.view(notebook)] == ["one", "three"]
    assert _chain_ok()


def test_adds_in_one_transaction_continue_each_other(notebook):
    with transaction.atomic():
        seqs = [add(f"line {i}").seq for i in range(5)]
    assert seqs == [1, 2, 3, 4, 5]
    assert _chain_ok()


def test_redacted_words_are_refused_when_the_guess_is_right(notebook, dad):
    add("a secret")
    redaction.redact(notebook="zelda", n=1, by="dad", why="private")
    add("after")  # the head is this process's again
    with pytest.raises(Invalid, match="redacted from notebook 'zelda'"):
        add("a secret")
    assert add("more").n == 3


def test_a_session_taken_after_the_guess_claims_the_next_add(notebook, dad):
    add("one")
    session = sessions.take(notebook="zelda", plan="tidy", by="pippa")  # no row: the guess still stands
    written = add("two")
    with connection.cursor() as cursor:
        cursor.execute("SELECT session_id FROM notebooks_row WHERE seq = %s", [written.seq])
        assert cursor.fetchone() == (session.id,)
    with pytest.raises(Conflict, match="claimed by pippa"):
        add("three", by="robin")
    assert _chain_ok()


def test_a_notebook_made_again_under_a_guessed_title_gets_its_own_rows(db):
    with pytest.raises(RuntimeError), transaction.atomic():
        services.create_notebook(title="zelda", by="test")
        add("one")
        raise RuntimeError
    services.create_notebook(title="zelda", by="test")  # another id, the same title
    written = add("one")
    assert (written.n, written.seq) == (1, 1)
    assert add("two").seq == 2
    assert _chain_ok()


@pytest.mark.vendor("postgresql")
def test_the_guards_function_answers_as_its_sql(notebook, dad):
    """sessions/claims.py's MAY_CLAIM_CALL (a function, migration 0012) and MAY_CLAIM_SQL, for every notebook and
    actor, as sessions open and close."""
    from notebooks.sessions.claims import MAY_CLAIM_CALL, MAY_CLAIM_SQL

    services.create_notebook(title="other", by="test")
    add("one")

    def answers() -> set[tuple]:
        got = set()
        with connection.cursor() as cursor:
            for actor in ("pippa", "robin"):
                cursor.execute(
                    f"SELECT nb.title, {MAY_CLAIM_CALL}, {MAY_CLAIM_SQL} FROM notebooks_notebook nb",
                    [actor, actor],
                )
                got |= {(actor, *row) for row in cursor.fetchall()}
        assert all(call == sql for _a, _t, call, sql in got), got
        return {(a, t) for a, t, call, _ in got if call}

    assert answers() == set()
    first = sessions.take(notebook="zelda", plan="tidy", by="pippa")
    assert answers() == {("pippa", "zelda"), ("pippa", "other"), ("robin", "zelda")}
    sessions.land(session=first.id, by="pippa", summary="done")
    assert answers() == set()
    second = sessions.take(notebook="other", plan="more", by="robin")
    assert answers() == {("robin", "zelda"), ("robin", "other"), ("pippa", "other")}
    sessions.abandon(session=second.id, why="later", by="robin")
    assert answers() == set()


# ----- outside any transaction the call is its own (PostgreSQL): one message, committed as it ends -----------------
# A test's database is inside the test's transaction, so this runs in a process of its own on a scratch database.

ALONE = """
import json, django
django.setup()
import psycopg
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from notebooks.log import redaction, services
from notebooks.log.views import snapshots
from notebooks.log.rules.errors import Conflict, Invalid
from notebooks.log.identity.roles import Actor
from notebooks.models import Notebook, Row, Snapshot
from notebooks.sessions import services as sessions

def add(text, by="pippa"):
    return services.add(notebook="zelda", text=text, source="seen", by=Actor(by), why="w")  # no lookup of the name

def elsewhere(sql):  # another connection: what is committed
    url = settings.DATABASES["default"]
    with psycopg.connect(dbname=url["NAME"], host=url["HOST"] or "127.0.0.1", port=url["PORT"] or 5432,
                         user=url["USER"] or "postgres", autocommit=True) as other:
        return other.execute(sql).fetchall()

def idle():
    return connection.connection.info.transaction_status == 0  # psycopg: IDLE, no transaction open

out = {}
services.create_notebook(title="zelda", by="test")
add("one")  # no guess yet: the general path
with CaptureQueriesContext(connection) as seen:
    two = add("two")
out["two"] = [two.seq, idle(), [q["sql"].split("(")[0] for q in seen.captured_queries]]
out["committed"] = elsewhere("SELECT count(*) FROM notebooks_row")
session = sessions.take(notebook="zelda", plan="tidy", by="pippa")  # after the guess: the guard must see it
three = add("three")
out["claimed"] = elsewhere(f"SELECT session_id = {session.id} FROM notebooks_row WHERE seq = {three.seq}")
try:
    add("robin's", by="robin")
except Conflict as exc:
    out["refused"] = [str(exc).split(";")[0], idle(), Row.objects.count()]
sessions.land(session=session.id, by="pippa", summary="done")
add("four")
redaction.redact(notebook="zelda", n=4, by="dad", why="private")
add("five")  # the head is this process's again
try:
    add("four")
except Invalid as exc:
    out["redacted"] = ["redacted from" in str(exc), idle(), Row.objects.count()]
head = Row.objects.count()
for i in range(head, snapshots.EVERY + 2):
    add(f"line {i}")
nb = Notebook.objects.get(title="zelda")
out["snapshot"] = list(Snapshot.objects.filter(notebook=nb).values_list("seq", flat=True))
out["end"] = [idle(), elsewhere("SELECT count(*), count(DISTINCT seq) FROM notebooks_row")]
print(json.dumps(out))
"""


@pytest.mark.vendor("postgresql")
def test_outside_a_transaction_an_add_is_one_statement_committed_and_the_guard_reads_after_the_lock(
    scratch_db, tmp_path
):
    db = scratch_db()
    script = tmp_path / "alone.py"
    script.write_text(ALONE)
    out = json.loads(db.run(str(script)).stdout)
    assert out["two"] == [2, True, ["SELECT * FROM notebooks_add_row"]]  # no BEGIN, no COMMIT: one message
    assert out["committed"] == [[2]]
    assert out["claimed"] == [[True]]  # the session taken after the guess was read after the lock
    assert out["refused"][1:] == [True, 3] and "claimed by pippa" in out["refused"][0]
    assert out["redacted"][:2] == [True, True]
    assert out["snapshot"] == [250]  # a row reaching a snapshot is written with it, on the general path
    assert out["end"][0] is True and out["end"][1][0][0] == out["end"][1][0][1]


PREPARED = """
import json, django
django.setup()
from django.db import connection
from notebooks.log import redaction, services
from notebooks.log.identity.roles import Actor

services.create_notebook(title="zelda", by="test")
for i in range(3):
    services.add(notebook="zelda", text=f"line {i}", source="seen", by=Actor("pippa"), why="w")
with connection.cursor() as cursor:
    cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%%notebooks_add_row%%'")
    print(json.dumps(cursor.fetchone()[0]))
"""


@pytest.mark.vendor("postgresql")
@pytest.mark.parametrize(("setting", "prepared"), [("1", 1), ("0", 0)])
def test_the_adds_call_is_prepared_unless_pg_prepare_is_off(scratch_db, tmp_path, setting, prepared):
    """PG_PREPARE=0 is for a pooler that cannot keep prepared statements: then not even the add's call is prepared."""
    db = scratch_db()
    script = tmp_path / "prepared.py"
    script.write_text(PREPARED)
    assert json.loads(db.run(str(script), env=db.env(PG_PREPARE=setting)).stdout) == prepared
