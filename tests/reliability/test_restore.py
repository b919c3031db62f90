"""Undo as new rows: a retired line restored as a new line (an add naming it in `restores`), and an older version of
a line's words put back (an edit). Both need a reason, show in the histories, and survive export and import."""

import json

import pytest

from notebooks.log import services
from notebooks.log.files import imports
from notebooks.log.rules import fold
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid, NotFound
from notebooks.log.views import selectors
from notebooks.models import Row


@pytest.fixture
def retired(notebook, dad):
    """#1 seen (pippa's) retired by Dad; #2 dad, edited twice."""
    services.add(notebook="zelda", text="the bridge guard swings twice", source="seen", by="pippa", why="seen")
    services.add(notebook="zelda", text="save before the boss", source="dad", by="dad", why="a rule")
    services.retire(notebook="zelda", n=1, by="dad", why="thought it wrong")
    services.edit(notebook="zelda", n=2, to="save before every boss", by="dad", why="every one")
    services.edit(notebook="zelda", n=2, to="never save", by="dad", why="a slip")
    return notebook


def _live(notebook) -> dict[int, tuple[str, str]]:  # noqa: ANN001
    return {line.n: (line.text, line.source) for line in selectors.view(notebook)}


def test_restore_brings_the_last_words_back_as_a_new_line(retired):
    written = services.restore(notebook="zelda", n=1, by="dad", why="it was right after all")
    assert written.n == 3  # a new number: 1 is never reused
    assert _live(retired)[3] == ("the bridge guard swings twice", "seen")
    assert 1 not in _live(retired)
    row = Row.objects.get(notebook=retired, seq=written.seq)
    assert (row.op, row.into, row.by, row.why) == ("add", 1, "dad", "it was right after all")


def test_both_histories_show_the_restore(retired):
    services.restore(notebook="zelda", n=1, by="dad", why="it was right after all")
    old = selectors.history(retired, 1)
    assert [e.op for e in old] == ["add", "strike", fold.RESTORED]
    assert (old[-1].into, old[-1].why, old[-1].text) == (3, "it was right after all", "the bridge guard swings twice")
    new = selectors.history(retired, 3)
    assert [(e.op, e.into) for e in new] == [("add", 1)]


def test_a_restore_needs_a_reason_and_a_retired_line_restored_once(retired):
    with pytest.raises(Invalid, match="reason"):
        services.restore(notebook="zelda", n=1, by="dad", why="")
    with pytest.raises(Invalid, match="not retired"):
        services.restore(notebook="zelda", n=2, by="dad", why="x")
    with pytest.raises(NotFound):
        services.restore(notebook="zelda", n=9, by="dad", why="x")
    services.restore(notebook="zelda", n=1, by="dad", why="back")
    with pytest.raises(Conflict, match="already restored, as line #3"):
        services.restore(notebook="zelda", n=1, by="dad", why="again")


def test_an_agent_may_not_restore_dads_line(retired):
    services.retire(notebook="zelda", n=2, by="dad", why="gone")
    with pytest.raises(Forbidden):
        services.restore(notebook="zelda", n=2, by="pippa", why="I liked it")
    assert services.restore(notebook="zelda", n=1, by="pippa", why="it holds").n == 3


def test_put_back_writes_an_edit_to_the_older_words(retired):
    first = selectors.history(retired, 2)[0]
    written = services.put_back(notebook="zelda", n=2, seq=first.seq, by="dad", why="the first rule was right")
    assert _live(retired)[2] == ("save before the boss", "dad_correction")
    last = selectors.history(retired, 2)[-1]
    assert (last.op, last.seq, last.puts_back, last.why) == ("edit", written.seq, first.seq, "the first rule was right")
    with pytest.raises(Invalid, match="already says exactly that"):
        services.put_back(notebook="zelda", n=2, seq=first.seq, by="dad", why="again")
    with pytest.raises(Invalid, match="not a version"):
        services.put_back(notebook="zelda", n=2, seq=3, by="dad", why="a strike has no words")
    with pytest.raises(Invalid, match="reason"):
        services.put_back(notebook="zelda", n=2, seq=first.seq + 3, by="dad", why=" ")


def test_a_restore_exports_as_an_add_naming_what_it_restores_and_imports_back(retired):
    services.restore(notebook="zelda", n=1, by="dad", why="back")
    rows = [json.loads(x) for x in selectors.export(retired)]
    restore = rows[-1]
    assert (restore["op"], restore["n"], restore["restores"]) == ("add", 3, 1)
    assert "into" not in restore
    # An older reader that knows only add, edit and strike: the restore is a plain new line.
    older = [(r["seq"], r["op"], r["n"], r.get("source", ""), r["by"], r["at"], r["hash"], r.get("text", r.get("to")),
              False) for r in rows if r["op"] in ("add", "edit", "strike")]  # fmt: skip
    assert fold.fold_view(older) == selectors.view(retired)
    copy = imports.import_notebook(title="copy", lines=[json.dumps(r) + "\n" for r in rows], by="test")
    assert copy.rows == len(rows)  # every hash checked, `restores` included
    assert [e.op for e in selectors.history(selectors.get_notebook("copy"), 1)][-1] == fold.RESTORED


def test_an_import_refuses_a_restore_of_a_live_or_twice_restored_line(dad):
    def row(**kw) -> str:  # noqa: ANN003
        return json.dumps({"by": "dad", "why": "w", "at": 1.0, **kw}) + "\n"

    base = [row(op="add", n=1, text="a", source="dad"), row(op="add", n=2, text="b", source="dad")]
    with pytest.raises(Invalid, match="line 3: 'restores': Line #1 is not retired"):
        imports.import_notebook(
            title="x", by="test", lines=[*base, row(op="add", n=3, text="a", source="dad", restores=1)]
        )
    twice = [*base, row(op="strike", n=1, how="retired"), row(op="add", n=3, text="a", source="dad", restores=1)]
    with pytest.raises(Invalid, match="line 5: 'restores': Line #1 was already restored, as line #3"):
        imports.import_notebook(
            title="y", by="test", lines=[*twice, row(op="add", n=4, text="a", source="dad", restores=1)]
        )
    with pytest.raises(Invalid, match="no line #7"):
        imports.import_notebook(
            title="z", by="test", lines=[*base, row(op="add", n=3, text="a", source="dad", restores=7)]
        )
    assert imports.import_notebook(title="ok", by="test", lines=twice).rows == 4


def test_an_outside_writer_may_restore_only_what_every_door_lets_it(retired):
    """A vault file's appended rows (imports.append_rows): an agent restores her own kind of line, not Dad's."""
    services.retire(notebook="zelda", n=2, by="dad", why="gone")
    head = selectors.head(retired)

    def restore_row(n: int, by: str, text: str, source: str) -> str:
        row = {"op": "add", "n": 3, "text": text, "source": source, "restores": n, "by": by, "why": "w"}
        return json.dumps({**row, "at": head.at + 1}) + "\n"

    with pytest.raises(Forbidden, match="may not restore line #2"):
        imports.append_rows(notebook="zelda", lines=[restore_row(2, "pippa", "never save", "seen")], by_default="x")
    done = imports.append_rows(
        notebook="zelda", lines=[restore_row(1, "pippa", "the bridge guard swings twice", "seen")], by_default="x"
    )
    assert done.seqs == (head.seq + 1,)
    assert [e.op for e in selectors.history(retired, 1)][-1] == fold.RESTORED
    twice = json.dumps({"op": "add", "n": 4, "text": "t", "source": "seen", "restores": 1, "by": "pippa",
                        "why": "w", "at": head.at + 2}) + "\n"  # fmt: skip
    with pytest.raises(Invalid, match="already restored, as line #3"):
        imports.append_rows(notebook="zelda", lines=[twice], by_default="x")
