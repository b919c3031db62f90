"""The fast write paths: an add reads its notebook, head, next number, redaction and session claim in one
statement; rows go in through Django's cursor in atomic(); 0009 drops the FK indexes of rows and words."""

import io
import json
import time

import pytest
from django.core.management import call_command
from django.db import connection

from notebooks.log import redaction, services
from notebooks.log.files import importing, imports, rowformat
from notebooks.log.identity.roles import Actor
from notebooks.log.rules.errors import Conflict, Invalid, NotFound
from notebooks.log.store import append, fast_add, triggers
from notebooks.log.views import queries, selectors
from notebooks.models import Notebook, Row, Words
from notebooks.sessions import services as sessions
from tests.databases import Scratch

ADD = {"op": "add", "source": "seen", "by": "pippa", "why": "seen"}


def _nulls() -> list[tuple]:
    """Per row: whether into, was_at, session_id and redacts are NULL (not a stand-in value)."""
    with connection.cursor() as cursor:
        cursor.execute(
            'SELECT "into" IS NULL, was_at IS NULL, session_id IS NULL, redacts IS NULL FROM notebooks_row ORDER BY id'
        )
        return cursor.fetchall()


def test_unset_fields_of_written_rows_are_null(notebook, dad):
    services.add(notebook="zelda", text="one", source="seen", by="pippa", why="w")
    services.add(notebook="zelda", text="two", source="seen", by="pippa", why="w")
    services.retire(notebook="zelda", n=1, by="pippa", why="w")
    services.retire(notebook="zelda", n=2, into=None, by="pippa", why="w")
    assert _nulls() == [(True, True, True, True)] * 4


def test_set_fields_are_kept_beside_unset_ones(notebook, dad):
    services.add(notebook="zelda", text="one", source="seen", by="pippa", why="w")
    services.add(notebook="zelda", text="two", source="seen", by="pippa", why="w")
    taken = sessions.take(notebook="zelda", plan="merge them", by="pippa")
    services.retire(notebook="zelda", n=1, into=2, by="pippa", why="said by #2")
    redaction.redact(notebook="zelda", n=1, by="dad", why="a secret")
    assert _nulls()[2:] == [(False, True, False, True), (True, True, True, False)]
    with connection.cursor() as cursor:
        cursor.execute('SELECT "into", session_id FROM notebooks_row WHERE seq = 3')
        assert cursor.fetchone() == (2, taken.id)


@pytest.mark.parametrize("size", [5, append.COPY_FROM + 5])  # PostgreSQL: INSERT below COPY_FROM, COPY above
def test_an_import_stores_unset_fields_as_null_and_set_ones_as_given(db, size):
    rows = [{**ADD, "n": i, "text": f"line {i}", "at": float(i)} for i in range(1, size)]
    rows.append({"op": "strike", "n": 1, "how": "merged", "into": 2, "by": "pippa", "why": "w", "at": 1e4})
    rows.append({"op": "adopt", "n": 1, "was": "old words", "was_at": 0.5, "was_by": "dad", "why": "w", "at": 1e4})
    imports.import_notebook(title="big", lines=[json.dumps(r) for r in rows], by="test")
    nulls = _nulls()
    assert nulls[: size - 1] == [(True, True, True, True)] * (size - 1)
    assert nulls[size - 1 :] == [(False, True, True, True), (True, False, True, True)]
    with connection.cursor() as cursor:
        cursor.execute('SELECT "into", was_at FROM notebooks_row WHERE op <> %s ORDER BY seq', ["add"])
        assert cursor.fetchall() == [(2, None), (None, 0.5)]


# ----- an import writes rows while it reads them: a refusal anywhere leaves nothing ---------------------

BIG = append.COPY_FROM * 3  # PostgreSQL: rows go in by COPY


def _big(bad_at: int | None = None, bad: dict | None = None) -> list[str]:
    rows = [{**ADD, "n": i, "text": f"line {i}", "at": float(i)} for i in range(1, BIG + 1)]
    if bad_at is not None:
        rows[bad_at - 1] = {**rows[bad_at - 1], **(bad or {})}
    return [json.dumps(r) for r in rows]


def _nothing_written() -> bool:
    return not Notebook.objects.filter(title="big").exists() and not Row.objects.exists() and not Words.objects.exists()


@pytest.mark.parametrize(
    "bad_at, bad, message",
    [
        (BIG // 2, {"source": "heard"}, "unknown source"),
        (BIG, {"n": BIG + 5}, "takes number"),
        (BIG - 1, {"hash": "0" * 64}, "'hash' does not match"),
    ],
)
def test_a_bad_line_after_many_rows_went_in_writes_nothing(db, bad_at, bad, message):
    with pytest.raises(Invalid, match=f"^line {bad_at}: .*{message}"):
        imports.import_notebook(title="big", lines=_big(bad_at, bad), by="test")
    assert _nothing_written()
    assert imports.import_notebook(title="big", lines=_big(), by="test").rows == BIG  # the connection still works


def test_words_marked_redacted_that_no_later_row_names_are_refused_after_the_last_row(db):
    hidden = {"text": "[redacted: x]", "digest": "a" * 64}
    with pytest.raises(Invalid, match=f"^line {BIG // 2}: .*no redact row names them"):
        imports.import_notebook(title="big", lines=_big(BIG // 2, hidden), by="test")
    assert _nothing_written()


def test_words_a_later_row_redacts_are_never_stored_in_a_big_import(db, dad):
    lines = _big()
    lines.append(json.dumps({"op": "redact", "n": 3, "redacts": rowformat.digest_of("line 3"), "by": "dad", "why": "x",
                             "at": float(BIG)}))  # fmt: skip
    imported = imports.import_notebook(title="big", lines=lines, by="test")
    assert imported.rows == BIG + 1
    assert Words.objects.count() == BIG - 1 and not Words.objects.filter(body="line 3").exists()
    assert "every chain verifies" in _verified("big")


def test_an_import_into_a_notebook_with_rows_is_refused_before_the_file_is_read(notebook):
    services.add(notebook="zelda", text="one", source="seen", by="pippa", why="w")

    def never_read():  # noqa: ANN202
        raise AssertionError("the file was read")
        yield ""

    with pytest.raises(Conflict, match="already has 1 rows"):
        imports.import_notebook(title="zelda", lines=never_read(), by="test")


def test_adopted_rows_continue_the_chain_after_the_streamed_rows(db, dad):
    backup = [json.dumps({**ADD, "n": 1, "text": "the old words", "at": 1.0})]
    imported = imports.import_notebook(title="big", lines=_big(), by="test", adopt_from=backup)
    assert (imported.rows, imported.adopted) == (BIG, 1)
    assert Row.objects.filter(op="adopt").get().seq == BIG + 1
    assert "every chain verifies" in _verified("big")


ODD_TEXTS = ["naïve ✓", 'a "quote"', "back\\slash", "tab\there", "new\nline", "\u2028sep", "x" * 3990, "ü" * 3990]


def test_a_big_import_keeps_every_value_exactly(db, dad):
    rows = [
        {**ADD, "n": i, "text": f"{ODD_TEXTS[i % len(ODD_TEXTS)]} {i}", "why": ODD_TEXTS[-i % len(ODD_TEXTS)][:2000],
         "by": ["pippa", "dad", "ü" * 80][i % 3], "at": 1e9 + i / 7}
        for i in range(1, BIG + 1)
    ]  # fmt: skip
    now = time.time()  # no row is dated later than now plus the clock allowance
    rows.append({"op": "strike", "n": 2, "how": "merged", "into": 1, "by": "dad", "why": "w", "at": 1.7e9})
    rows.append({"op": "adopt", "n": 2**31 - 1, "was": "old", "was_at": 0.0, "was_by": "dad", "why": "", "at": 1.7e9})
    rows.append({"op": "adopt", "n": 5, "was": "later", "was_at": now, "why": "w", "at": now})
    imports.import_notebook(title="big", lines=[json.dumps(r) for r in rows], by="test")
    exported = list(selectors.export(selectors.get_notebook("big")))
    assert len(exported) == len(rows)
    for given, out in zip(rows, map(json.loads, exported), strict=True):
        assert {k: out[k] for k in given if k in out} == {k: v for k, v in given.items() if k in out}
    imports.import_notebook(title="again", lines=exported, by="test")  # every hash checks on the way in
    assert list(selectors.export(selectors.get_notebook("again"))) == exported
    assert "every chain verifies" in _verified("big")


def _verified(title: str) -> str:
    out = io.StringIO()
    call_command("notebook", "verify", title, stdout=out)
    return out.getvalue()


# ----- the add's one statement gives what the separate reads gave --------------------------------


@pytest.fixture
def claimed(notebook, dad):
    services.create_notebook(title="other", by="test")
    services.add(notebook="zelda", text="one", source="seen", by="pippa", why="w")
    return sessions.take(notebook="zelda", plan="tidy", by="pippa")


def test_an_add_by_the_holder_belongs_to_its_session(claimed):
    written = services.add(notebook="zelda", text="two", source="seen", by=Actor("pippa"), why="w")
    with connection.cursor() as cursor:
        cursor.execute("SELECT session_id FROM notebooks_row WHERE seq = %s", [written.seq])
        assert cursor.fetchone() == (claimed.id,)


def test_an_add_by_another_agent_to_a_claimed_notebook_is_refused(claimed):
    with pytest.raises(Conflict, match="claimed by pippa"):
        services.add(notebook="zelda", text="two", source="seen", by="robin", why="w")


def test_the_editors_add_to_a_claimed_notebook_is_drift(claimed):
    written = services.add(notebook="zelda", text="two", source="dad", by="dad", why="w")
    with connection.cursor() as cursor:
        cursor.execute("SELECT session_id FROM notebooks_row WHERE seq = %s", [written.seq])
        assert cursor.fetchone() == (None,)


def test_the_holders_add_under_another_title_is_refused(claimed):
    with pytest.raises(Conflict, match="holds session"):
        services.add(notebook="other", text="two", source="seen", by="pippa", why="w")


def test_the_holders_add_to_a_missing_notebook_is_not_found_before_any_session_rule(claimed):
    with pytest.raises(NotFound, match="No notebook is titled 'nowhere'"):  # read in the order a person reads
        services.add(notebook="nowhere", text="two", source="seen", by="pippa", why="w")
    with pytest.raises(NotFound, match="nowhere"):
        services.add(notebook="nowhere", text="two", source="seen", by="robin", why="w")


def test_a_landed_session_claims_nothing(claimed):
    sessions.land(session=claimed.id, by="pippa", summary="nothing")
    written = services.add(notebook="other", text="two", source="seen", by="pippa", why="w")
    assert written.n == 1


def test_the_session_refusal_comes_before_the_redaction_refusal(claimed):
    sessions.abandon(session=claimed.id, why="later", by="pippa")
    redaction.redact(notebook="zelda", n=1, by="dad", why="a secret")
    with pytest.raises(Invalid, match="redacted from notebook 'zelda' \\(redact row seq 2\\)"):
        services.add(notebook="zelda", text="one", source="seen", by="pippa", why="w")
    sessions.take(notebook="other", plan="elsewhere", by="pippa")
    with pytest.raises(Conflict, match="holds session"):
        services.add(notebook="zelda", text="one", source="seen", by="pippa", why="w")


def test_an_add_continues_the_chain_and_the_numbers(notebook, dad):
    services.add(notebook="zelda", text="one", source="seen", by="pippa", why="w")
    services.retire(notebook="zelda", n=1, by="pippa", why="w")
    written = services.add(notebook="zelda", text="two", source="seen", by="pippa", why="w")
    assert (written.n, written.seq) == (2, 3)
    with connection.cursor() as cursor:
        cursor.execute("SELECT seq, prev_hash, hash FROM notebooks_row ORDER BY seq")
        rows = cursor.fetchall()
    assert [prev for _, prev, _ in rows[1:]] == [h for _, _, h in rows[:-1]]


def test_an_add_that_loses_a_race_is_a_conflict(notebook, monkeypatch):
    services.add(notebook="zelda", text="one", source="seen", by="pippa", why="w")
    real = services.add_state

    def stale(title, actor, digest):  # noqa: ANN001, ANN202 - the head as another writer saw it before this add
        nb, _top, _n, claim = real(title, actor, digest)
        return nb, queries.NO_ROWS, 1, claim

    monkeypatch.setattr(services, "add_state", stale)
    monkeypatch.setattr(fast_add, "try_add", lambda *args: None)  # PostgreSQL: no guess, the general path
    with pytest.raises(Conflict, match="Another write reached notebook 'zelda' first"):
        services.add(notebook="zelda", text="two", source="seen", by="pippa", why="w")


# ----- an add outside any atomic block is its own transaction, through Django's atomic() --------------------------
# A test's database is inside the test's transaction (and the log's triggers refuse the flush a transactional test
# needs), so these run in a process of their own on a scratch database, where each add is the outermost block.

OUTERMOST = """
import json, django
django.setup()
from django.db import IntegrityError, connection, transaction
from notebooks.log import redaction, services
from notebooks.log.files import rowformat
from notebooks.log.store import locked_reads
from notebooks.log.views import kept as kept_views, queries, selectors
from notebooks.log.store import fast_add
from notebooks.log.rules.errors import Conflict, NotFound
from notebooks.models import Notebook, Row, Words

def kept():
    return kept_views.kept_seq(Notebook.objects.get(title="zelda"))  # rows it wrote go in once committed

def open_transaction():
    if connection.vendor == "sqlite":
        return connection.connection.in_transaction
    return connection.connection.info.transaction_status != 0  # psycopg: not IDLE

def add(text):
    return services.add(notebook="zelda", text=text, source="seen", by="pippa", why="w")

out = {}
selectors.view(services.create_notebook(title="zelda", by="test"))
out["outermost"] = not connection.in_atomic_block
out["committed"] = (add("one").seq, open_transaction(), Row.objects.count(), kept())
try:
    services.add(notebook="nowhere", text="x", source="seen", by="pippa", why="w")
except NotFound:
    out["refused"] = (open_transaction(), Row.objects.count())
real, guessed = services.add_state, fast_add.try_add
fast_add.try_add = lambda *a: None  # the general path, whose reads are made stale here
services.add_state = lambda *a: (real(*a)[0], queries.NO_ROWS, 1, None)
try:
    add("two")
except Conflict:
    out["race"] = (open_transaction(), sorted(Words.objects.values_list("body", flat=True)), kept())
services.add_state = lambda *a: (locked_reads.NotebookRef(10**9, "zelda"), *real(*a)[1:])
try:
    add("three")
except IntegrityError:
    out["commit_failed"] = (open_transaction(), Row.objects.count(), Words.objects.count())
services.add_state, fast_add.try_add = real, guessed
try:
    with transaction.atomic():
        add("four")
        raise RuntimeError
except RuntimeError:
    out["nested_rolled_back"] = (open_transaction(), Row.objects.count(), kept())
out["after"] = (add("five").seq, open_transaction(), sorted(Words.objects.values_list("body", flat=True)), kept())
out["view"] = [line.text for line in selectors.view(Notebook.objects.get(title="zelda"))]
ran = []
with transaction.atomic():  # an add composes with the caller's transaction; its hooks run once that commits
    add("seven")
    transaction.on_commit(lambda: ran.append(open_transaction()))
    out["hook_waits"] = list(ran)
out["hook_ran_after_commit"] = ran
from django.test.utils import CaptureQueriesContext
with CaptureQueriesContext(connection) as queries_seen:
    add("eight")
import re
out["insert_seen"] = [
    m.group(1) or m.group(2) for q in queries_seen.captured_queries
    for m in [re.search(r"INSERT INTO (\\w+)|(notebooks_add_row)", q["sql"])] if m
]
out["transaction_seen"] = [q["sql"] for q in queries_seen.captured_queries if q["sql"] in ("BEGIN IMMEDIATE", "COMMIT")]
kept_views.fold_in = lambda *args: 1 / 0  # what runs after the commit fails: the add still answers as committed
out["after_commit_failed"] = (add("six").seq, open_transaction(), Row.objects.count())
print(json.dumps(out))
"""


def test_an_outermost_add_is_its_own_transaction_and_a_refusal_leaves_none_open(scratch_db, tmp_path):
    db: Scratch = scratch_db()
    script = tmp_path / "outermost.py"
    script.write_text(OUTERMOST)
    out = json.loads(db.run(str(script)).stdout)
    assert out == {
        "outermost": True,
        "committed": [1, False, 1, 1],
        "refused": [False, 1],
        "race": [False, ["one"], 1],  # the words of the losing add went in before its row: rolled back with it
        "commit_failed": [False, 1, 1],
        "nested_rolled_back": [False, 1, 1],  # never folded into the kept view
        "after": [2, False, ["five", "one"], 2],
        "view": ["one", "five"],
        "hook_waits": [],
        "hook_ran_after_commit": [False],
        # PostgreSQL: the process wrote the head, so the add is one call (fast_add.py), committed as it ends: no
        # BEGIN nor COMMIT of its own (the open_transaction checks above say none is left open)
        "insert_seen": ["notebooks_row", "notebooks_words"] if db.vendor == "sqlite" else ["notebooks_add_row"],
        "transaction_seen": ["BEGIN IMMEDIATE", "COMMIT"] if db.vendor == "sqlite" else [],
        "after_commit_failed": [5, False, 5],
    }
    assert "every chain verifies" in db.manage("notebook", "verify", "zelda").stdout


# ----- the importer's quick paths refuse what the slow ones refused ------------------------------


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"op": "add"} {"op": "add"}', "not valid JSON (Extra data"),
        ('\ufeff{"op": "add"}', "not valid JSON"),
        (json.dumps({**ADD, "n": 1, "text": "x", "at": 1, "how": ["retired"]}) + "x", "not valid JSON"),
        (json.dumps({"op": "strike", "n": 1, "how": ["retired"], "by": "p", "why": "w", "at": 2}), "unknown how"),
        (json.dumps({"op": "strike", "n": 1, "how": {"a": 1}, "by": "p", "why": "w", "at": 2}), "unknown how"),
        ('{"op": "add", "n": 2, "text": "x", "source": "seen", "at": NaN}', "'at' must be a time"),
        ('{"op": "add", "n": 2, "text": "x", "source": "seen", "at": Infinity}', "'at' must be a time"),
        (json.dumps({**ADD, "n": 2, "text": "\t \n", "at": 2}), "'text' is blank"),
        (json.dumps({**ADD, "n": 2, "text": "\u3000", "at": 2}), "'text' is blank"),
        (json.dumps({**ADD, "n": 2.0, "text": "x", "at": 2}), "'n' must be a whole number"),
    ],
)
def test_the_quick_paths_refuse_what_the_checks_refuse(line, message):
    first = json.dumps({**ADD, "n": 1, "text": "first", "at": 1})
    with pytest.raises(Invalid) as caught:
        importing.parse([first, line])
    assert caught.value.message.startswith("line 2: "), caught.value.message
    assert message in caught.value.message


def test_the_quick_paths_take_what_the_checks_take():
    lines = [
        "  " + json.dumps({**ADD, "n": 1, "text": "x" * 4000, "at": 1}) + " \n",
        json.dumps({**ADD, "n": 2, "text": "naïve café ✓", "at": 2}),
        json.dumps({**ADD, "n": 3, "text": "tab\tinside", "at": 3, "why": ""}),
        json.dumps({"op": "strike", "n": 3, "by": "pippa", "why": "w", "at": 3}),
    ]
    rows, fold = importing.parse(lines, max_words=4000)
    assert [(r["op"], r["n"], r.get("how")) for r in rows] == [("add", 1, None), ("add", 2, None), ("add", 3, None),
                                                              ("strike", 3, "retired")]  # fmt: skip
    assert rows[1]["words"] == "naïve café ✓" and rows[2]["why"] == ""
    assert fold.top_n == 3 and not fold.lines[3].live


# ----- 0009: the FK indexes go, the triggers stay -----------------------------------------

INDEXES = """
import json, django
django.setup()
from django.db import connection
with connection.cursor() as cursor:
    found = {
        f"{table}.{column}": sorted(name for name, c in connection.introspection.get_constraints(cursor, table).items()
                                    if c["index"] and not c["primary_key"] and c["columns"] == [column])
        for table, column in (("notebooks_row", "notebook_id"), ("notebooks_words", "notebook_id"),
                              ("notebooks_row", "session_id"))
    }
print(json.dumps(found))
"""

CHANGES = """
import json, django
django.setup()
from django.db import IntegrityError, connection, transaction
refused = []
for sql in ("UPDATE notebooks_row SET why = 'x'", "DELETE FROM notebooks_row", "UPDATE notebooks_words SET body = 'x'",
            "DELETE FROM notebooks_words"):
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql)
        refused.append(False)
    except IntegrityError:
        refused.append(True)
print(json.dumps(refused))
"""


def test_0009_drops_only_the_fk_indexes_and_keeps_the_triggers(scratch_templates, tmp_path):
    db: Scratch = scratch_templates.new()  # migrated, with the editor dad
    indexes, changes = tmp_path / "indexes.py", tmp_path / "changes.py"
    indexes.write_text(INDEXES)
    changes.write_text(CHANGES)
    # The rows are written by today's code on today's schema, then the schema goes back to 0008 under them: today's
    # code reads tables later migrations made (a session's lease), so it cannot write on the old schema itself.
    with db.commands() as today:  # one process for both writes
        today.run("notebook", "create", "zelda", "--by", "dad")
        today.run(
            "notebook",
            "add",
            "zelda",
            "roll after the second swing",
            "--source",
            "seen",
            "--by",
            "pippa",
            "--why",
            "seen",
        )
    db.manage("migrate", "notebooks", "0008", "--no-input", "-v", "0")
    before = json.loads(db.run(str(indexes)).stdout)
    assert all(len(names) == 1 for names in before.values()), before  # Django's own index on each FK
    if db.vendor == "sqlite":
        sql = db.manage("sqlmigrate", "notebooks", "0009").stdout
        assert "CREATE TABLE" not in sql and "INSERT INTO" not in sql  # no rebuild of the log
    db.manage("migrate", "--no-input", "-v", "0")
    after = json.loads(db.run(str(indexes)).stdout)
    assert after == {"notebooks_row.notebook_id": [], "notebooks_words.notebook_id": [], "notebooks_row.session_id": []}
    assert json.loads(db.run(str(changes)).stdout) == [True, True, True, True]
    with db.commands() as migrated:  # one process for the three commands on the migrated schema
        assert "every chain verifies" in migrated.run("notebook", "verify", "zelda")
        migrated.run(
            "notebook", "add", "zelda", "always attack first", "--source", "seen", "--by", "pippa", "--why", "seen"
        )
        assert "always attack first" in migrated.run("notebook", "view", "zelda")
    db.manage("migrate", "notebooks", "0008", "--no-input", "-v", "0")
    assert json.loads(db.run(str(indexes)).stdout) == before
    assert json.loads(db.run(str(changes)).stdout) == [True, True, True, True]


def test_the_suites_database_has_none_of_those_indexes_and_every_trigger(db):
    with connection.cursor() as cursor:
        for table, column in (
            ("notebooks_row", "notebook_id"),
            ("notebooks_words", "notebook_id"),
            ("notebooks_row", "session_id"),
        ):
            found = connection.introspection.get_constraints(cursor, table).values()
            assert [c for c in found if c["index"] and not c["primary_key"] and c["columns"] == [column]] == []
    assert triggers.missing() == []
