"""The SQL forms of the view (VIEW_SQL, LINE_SQL) say what the pure fold says, at every cut of any log the writes
can make: adds, edits, retirements (into a line or not), merges, redactions, restores and words put back."""

from itertools import count

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notebooks.log import redaction, services
from notebooks.log.rules import fold
from notebooks.log.rules.errors import NotebookError
from notebooks.log.rules.lines import Line
from notebooks.log.views import queries, selectors

_titles = count()

WORDS = st.sampled_from(["roll after the swing", "block first", "the bridge is out", "lynel at the gate", "zora's"])
OP = st.one_of(
    st.tuples(st.just("add"), WORDS, st.sampled_from(["seen", "guessed", "dad"])),
    st.tuples(st.just("edit"), st.integers(1, 8), WORDS),
    st.tuples(st.just("retire"), st.integers(1, 8), st.one_of(st.none(), st.integers(1, 8))),
    st.tuples(st.just("merge"), st.lists(st.integers(1, 8), min_size=2, max_size=3, unique=True), WORDS),
    st.tuples(st.just("redact"), st.integers(1, 8)),
    st.tuples(st.just("restore"), st.integers(1, 8)),
    st.tuples(st.just("put_back"), st.integers(1, 8)),
)


def _write(title: str, op: tuple) -> None:
    kind, *args = op
    try:
        if kind == "add":
            words, source = args
            by = "dad" if source == "dad" else "pippa"
            services.add(notebook=title, text=words, source=source, by=by, why="seen it")
        elif kind == "edit":
            services.edit(notebook=title, n=args[0], to=f"{args[1]} ({args[0]})", by="dad", why="fixed")
        elif kind == "retire":
            services.retire(notebook=title, n=args[0], into=args[1], by="dad", why="stale")
        elif kind == "merge":
            services.merge(notebook=title, numbers=args[0], text=args[1], by="dad", why="one thing")
        elif kind == "restore":
            services.restore(notebook=title, n=args[0], by="dad", why="retired by mistake")
        elif kind == "put_back":
            first = selectors.history(selectors.get_notebook(title), args[0])[0]
            services.put_back(notebook=title, n=args[0], seq=first.seq, by="dad", why="the first words were right")
        else:
            redaction.redact(notebook=title, n=args[0], by="dad", why="a secret")
    except NotebookError:
        pass  # refused (a line that is not there, or not live): the log is unchanged, as the fold expects


def _fold_rows(notebook, upto: int) -> list[tuple]:  # noqa: ANN001
    """The log's rows as the fold reads them, words as every reader shows them ("[redacted: why]" when gone)."""
    out = []
    for row in selectors.rows(notebook, upto=upto):
        words = row.get("text", row.get("to"))
        out.append((row["seq"], row["op"], row["n"], row.get("source", ""), row["by"], row["at"], row["hash"], words,
                    bool(row.get("redacted"))))  # fmt: skip
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(OP, min_size=1, max_size=14))
def test_the_sql_view_and_line_agree_with_the_fold_at_every_cut(dad, ops):
    title = f"agree-{next(_titles)}"
    notebook = services.create_notebook(title=title, by="test")
    for op in ops:
        _write(title, op)
    top = selectors.head(notebook).seq
    rows = _fold_rows(notebook, top)
    for cut in range(1, top + 1):
        expected: list[Line] = fold.fold_view(rows[:cut])
        by_sql, stands_at = queries.view_by_sql(notebook, cut)
        assert by_sql == expected, f"cut {cut}"
        assert stands_at.seq == cut
        live = fold.LiveLines(expected)
        for n in range(1, max((r[2] for r in rows), default=0) + 2):
            assert queries.line_by_sql(notebook, n, cut) == live.get(n), f"line {n} at cut {cut}"
    assert selectors.view(notebook) == fold.fold_view(rows)
