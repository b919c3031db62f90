import io
import json
import time

import pytest
from django.core.management import CommandError, call_command
from django.core.management.sql import emit_post_migrate_signal, emit_pre_migrate_signal
from django.db import IntegrityError, connection, transaction

from notebooks.card import selectors as card_selectors
from notebooks.log import redaction, services
from notebooks.log.files import imports, rowformat
from notebooks.log.files.verify import verify_chain
from notebooks.log.identity import wordkeys
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid
from notebooks.log.store.append import append
from notebooks.log.store.locked_reads import locked_notebook
from notebooks.log.views import selectors
from notebooks.models import Notebook, Row, Words

SECRET = "the admin password is hunter2"
ADD_TWO = "roll after the second swing"


@pytest.fixture
def leaked(dad, notebook):
    services.add(notebook="zelda", text=SECRET, source="seen", by="pippa", why="saw it on the screen")
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="died twice")
    return notebook


def _redact(**kwargs):
    return redaction.redact(notebook="zelda", n=1, by="dad", why="a password, not a lesson", **kwargs)


def _export(nb: Notebook) -> list[str]:
    return list(selectors.export(nb))


def test_the_editor_redacts_a_line_and_its_row_stays(leaked):
    written = _redact()
    row = Row.objects.get(notebook=leaked, seq=written.seq)
    assert (row.op, row.n, row.by, row.why) == ("redact", 1, "dad", "a password, not a lesson")
    assert row.redacts == wordkeys.keyed("zelda", SECRET)[1]
    assert Row.objects.filter(notebook=leaked, n=1, op="add").exists()


def test_the_words_are_gone_from_the_database(leaked):
    _redact()
    assert not Words.objects.filter(body__contains="hunter2").exists()
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM notebooks_words WHERE body LIKE %s", ["%hunter2%"])
        assert cursor.fetchone()[0] == 0


def test_an_agent_may_not_redact(leaked):
    with pytest.raises(Forbidden, match="only the human editor"):
        redaction.redact(notebook="zelda", n=1, by="pippa", why="oops")
    assert Words.objects.filter(body=SECRET).exists()


def test_a_redaction_needs_a_reason(leaked):
    with pytest.raises(Invalid, match="reason"):
        redaction.redact(notebook="zelda", n=1, by="dad", why=" ")


def test_view_history_turn_and_export_show_the_reason(leaked):
    _redact()
    mark = "[redacted: a password, not a lesson]"
    line = selectors.view(leaked)[0]
    assert (line.n, line.text, line.redacted) == (1, mark, True)
    entries = selectors.history(leaked, 1)
    assert [e.op for e in entries] == ["add", "redact"]
    assert all(e.text == mark for e in entries)
    assert mark in selectors.turn(leaked)
    exported = "\n".join(_export(leaked))
    assert "hunter2" not in exported
    first = json.loads(_export(leaked)[0])
    assert (first["text"], first["redacted"], first["digest"]) == (mark, True, wordkeys.keyed("zelda", SECRET)[1])


def test_the_view_before_the_redaction_shows_the_mark_too(leaked):
    before = selectors.head(leaked).at
    _redact()
    assert selectors.view(leaked, until=before)[0].text == "[redacted: a password, not a lesson]"


def test_the_chain_verifies_after_a_redaction(leaked):
    head_before = selectors.head(leaked).hash
    _redact()
    assert verify_chain(leaked) == []
    assert verify_chain(leaked, pinned=head_before) == []


def test_a_redacted_notebook_round_trips_through_export_and_import(leaked):
    _redact()
    services.edit(notebook="zelda", n=2, to="roll after his second swing", by="dad", why="clearer")
    lines = _export(leaked)
    copy = imports.import_notebook(title="zelda copy", lines=lines, by="test").notebook
    assert selectors.head(copy).hash == selectors.head(leaked).hash
    assert verify_chain(copy) == []
    assert _export(copy) == lines
    assert selectors.view(copy)[0].text == "[redacted: a password, not a lesson]"


def test_redaction_by_seq_takes_an_older_text_and_leaves_the_current_one(leaked):
    services.edit(notebook="zelda", n=1, to="the admin screen shows a password", by="dad", why="no secret")
    _redact(seq=1)
    assert selectors.view(leaked)[0].text == "the admin screen shows a password"
    assert selectors.history(leaked, 1)[0].text == "[redacted: a password, not a lesson]"


def test_a_seq_of_another_line_is_refused(leaked):
    with pytest.raises(Invalid, match="Seq 2 is not a row of line #1"):
        _redact(seq=2)


def test_redacting_the_same_words_twice_is_a_conflict(leaked):
    _redact()
    with pytest.raises(Conflict, match="already redacted"):
        _redact()


def test_redacted_words_cannot_be_written_again(leaked):
    _redact()
    with pytest.raises(Invalid, match="redacted"):
        services.add(notebook="zelda", text=SECRET, source="seen", by="pippa", why="saw it again")
    assert not Words.objects.filter(body=SECRET).exists()


def _delete_words(digest: str, notebook_id: int) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM notebooks_words WHERE notebook_id = %s AND digest = %s", [notebook_id, digest])


def test_the_words_trigger_refuses_a_delete_without_a_redaction(leaked):
    with pytest.raises(IntegrityError, match="append-only"):
        _delete_words(wordkeys.keyed("zelda", SECRET)[1], leaked.pk)
    assert Words.objects.filter(body=SECRET).exists()


def test_a_redaction_frees_only_the_words_it_names(leaked):
    _redact()
    with pytest.raises(IntegrityError, match="append-only"):
        _delete_words(wordkeys.keyed("zelda", "roll after the second swing")[1], leaked.pk)


def test_a_redaction_in_one_notebook_frees_nothing_in_another(leaked):
    services.create_notebook(title="metroid", by="test")
    services.add(notebook="metroid", text=SECRET, source="seen", by="pippa", why="the same leak")
    _redact()
    other = Notebook.objects.get(title="metroid")
    with pytest.raises(IntegrityError, match="append-only"):
        _delete_words(wordkeys.keyed("metroid", SECRET)[1], other.pk)
    assert selectors.view(other)[0].text == SECRET


def test_the_words_trigger_still_refuses_an_update_of_redaction_words(leaked):
    _redact()
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE notebooks_words SET body = 'x'")


def _rows(*rows: dict) -> list[str]:
    return [json.dumps(r) for r in rows]


ADD = {"op": "add", "n": 1, "text": SECRET, "source": "seen", "by": "pippa", "at": 1.0}
REDACT = {"op": "redact", "n": 1, "redacts": rowformat.digest_of(SECRET), "by": "dad", "why": "a password", "at": 2.0}


def test_an_import_stores_no_words_that_a_later_redact_row_names(db, dad):
    nb = imports.import_notebook(title="imported", lines=_rows(ADD, REDACT), by="test").notebook
    assert not Words.objects.filter(body=SECRET).exists()
    assert selectors.view(nb)[0].text == "[redacted: a password]"
    assert verify_chain(nb) == []


def test_an_import_refuses_words_marked_redacted_without_a_redact_row(db):
    hidden = {**ADD, "text": "[redacted: x]", "digest": rowformat.digest_of(SECRET)}
    with pytest.raises(Invalid, match="line 1: .*no redact row names them"):
        imports.import_notebook(title="imported", lines=_rows(hidden), by="test")
    assert not Notebook.objects.filter(title="imported").exists()


def test_an_import_refuses_a_redact_row_by_an_agent(db):
    with pytest.raises(Invalid, match="line 2: a redact row must be by the human editor"):
        imports.import_notebook(title="imported", lines=_rows(ADD, {**REDACT, "by": "pippa"}), by="test")


def test_an_import_refuses_a_redact_row_naming_words_the_line_never_had(dad):
    wrong = {**REDACT, "redacts": rowformat.digest_of("something else")}
    with pytest.raises(Invalid, match="line 2: 'redacts' names words that no earlier row"):
        imports.import_notebook(title="imported", lines=_rows(ADD, wrong), by="test")


def test_an_import_refuses_redacted_words_written_again(dad):
    again = {**ADD, "n": 2, "at": 3.0}
    with pytest.raises(Invalid, match="line 3: these words were redacted on line 2"):
        imports.import_notebook(title="imported", lines=_rows(ADD, REDACT, again), by="test")


def test_the_cli_redacts_and_says_so(leaked):
    out = io.StringIO()
    call_command("notebook", "redact", "zelda", "1", "--by", "dad", "--why", "a password", stdout=out)
    assert "redacted words of line #1" in out.getvalue()
    with pytest.raises(CommandError, match="only the human editor"):
        call_command("notebook", "redact", "zelda", "2", "--by", "pippa", "--why", "x")


def test_a_table_rebuild_inside_migrate_keeps_redaction_working(leaked):
    """SQLite renames a rebuilt table only while no trigger names a missing table: pre_migrate takes the words'
    redaction trigger out, post_migrate puts it back."""
    emit_pre_migrate_signal(verbosity=0, interactive=False, db="default")
    if connection.vendor == "sqlite":
        editor = connection.schema_editor(atomic=False)
        editor.deferred_sql = []  # set by __enter__, which SQLite refuses inside the test's transaction
        editor._remake_table(Row)  # what an AddField or AlterField of the rows does: new table, copy, drop, rename
        for sql in editor.deferred_sql:
            editor.execute(sql)
        with pytest.raises(IntegrityError, match="append-only"):  # between the two, no words may go at all
            _delete_words(wordkeys.keyed("zelda", SECRET)[1], leaked.pk)
    emit_post_migrate_signal(verbosity=0, interactive=False, db="default")
    _redact()
    assert not Words.objects.filter(body=SECRET).exists()
    assert verify_chain(leaked) == []
    with pytest.raises(IntegrityError, match="append-only"):
        _delete_words(wordkeys.keyed("zelda", "roll after the second swing")[1], leaked.pk)


def test_views_read_before_a_redaction_do_not_keep_the_words(leaked):
    """The live view, a past view and the turn are kept folded in memory; a redaction must reach them all."""
    before = selectors.head(leaked).at
    assert selectors.view(leaked)[0].text == SECRET
    assert selectors.view(leaked, until=before)[0].text == SECRET
    assert SECRET in selectors.turn(leaked)
    assert selectors.live_line(leaked, 1).text == SECRET
    _redact()
    mark = "[redacted: a password, not a lesson]"
    assert selectors.view(leaked)[0].text == mark
    assert selectors.view(leaked, until=before)[0].text == mark
    assert SECRET not in selectors.turn(leaked) and mark in selectors.turn(leaked)
    assert selectors.live_line(leaked, 1).text == mark
    assert selectors.pinned_view(leaked, until=before).lines[0].text == mark
    assert all(SECRET != row.text for row in card_selectors.audit().rows)
    assert mark in {row.text for row in card_selectors.audit().rows}


@pytest.mark.parametrize("salt", ["00", "f" * 32, "0123456789abcdef" * 4])
def test_rows_appended_with_a_salt_of_their_own_cannot_bring_redacted_words_back(leaked, salt):
    """A salt the writer picked gives the words a digest no redact row names; the words are still the ones redacted.
    The log's append asks the notebook's keyed digest too, whichever door handed it the row."""
    _redact()
    row = {"op": "add", "n": 3, "words": SECRET, "digest": rowformat.salted_digest(salt, SECRET), "salt": salt}
    with pytest.raises(Invalid, match="redacted"), transaction.atomic():
        append(locked_notebook("zelda"), [{**row, "source": "seen", "by": "pippa", "why": "again"}])
    assert not Words.objects.filter(body=SECRET).exists()
    assert [line.text for line in selectors.view(leaked)] == ["[redacted: a password, not a lesson]", ADD_TWO]


def test_a_row_appended_with_a_salt_not_the_notebooks_own_is_refused_and_writes_nothing(leaked):
    """A salt copied from another row stays served beside its words: once these were redacted, a guess of them could
    be checked against their digest with it. Only the notebook's own salt of the words is taken."""
    copied = wordkeys.salt_of("zelda", ADD_TWO)
    before = Row.objects.filter(notebook=leaked).count()
    row = {"op": "add", "n": 3, "text": "the PIN is 4711", "source": "seen", "why": "w", "at": time.time()}
    for salt in (copied, "00"):
        with pytest.raises(Invalid, match=r"line 1: 'salt' is not this notebook's salt of the words") as refused:
            imports.append_rows(notebook="zelda", lines=[json.dumps({**row, "salt": salt})], by_default="pippa")
        assert len(refused.value.message) < 300
    assert Row.objects.filter(notebook=leaked).count() == before
    own = wordkeys.salt_of("zelda", row["text"])
    done = imports.append_rows(notebook="zelda", lines=[json.dumps({**row, "salt": own})], by_default="pippa")
    assert len(done.seqs) == 1
