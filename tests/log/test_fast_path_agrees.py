"""The add's fast path (one statement: locked_reads.add_state's SQL, and on PostgreSQL fast_add.py's call of
notebooks_add_row, migration 0013) and the one decision (log/rules/decision.py) agree on every generated add: both
accept it with the same number, or both refuse it with the same code."""

from itertools import count

from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notebooks.log import redaction, services
from notebooks.log.files import imports, rowformat
from notebooks.log.identity import wordkeys
from notebooks.log.identity.roles import Actor
from notebooks.log.rules import decision
from notebooks.log.rules.errors import NotebookError
from notebooks.log.rules.fold import MAX_NUMBER
from notebooks.log.store import fast_add
from notebooks.log.store.locked_reads import locked_notebook
from notebooks.log.views import selectors
from tests.agent_helpers import DAD

_titles = count()
WORDS = st.sampled_from(["roll after the swing", "block first", "the bridge is out", "lynel at the gate"])
ACTOR = st.sampled_from([DAD, Actor("pippa")])
STEP = st.one_of(
    st.tuples(st.just("add"), WORDS, st.sampled_from(["seen", "guessed", "dad"]), ACTOR),
    st.tuples(st.just("redact"), st.integers(1, 4)),
)


def _verdict(title: str, words: str, source: str, actor: Actor) -> tuple[str, int | None]:
    """What the decision says of the add, on the notebook as the log holds it."""
    state = imports.import_state(locked_notebook(title))
    salt, digest = wordkeys.keyed(title, words)
    row = {"op": "add", "by": actor.name, "words": words, "digest": digest, "plain": rowformat.digest_of(words)}
    row["source"] = source
    try:
        decision.decide(state, row, editor=actor.editor)
    except NotebookError as exc:
        return exc.code, None
    return "written", row["n"]


def _add(title: str, words: str, source: str, actor: Actor) -> tuple[str, int | None]:
    """What the add does, on its fast path where this database has one (the guess of the head made right)."""
    fast = fast_add.usable() and (actor.editor or source != "dad")  # an agent's dad line is refused before it
    if fast:
        nb = locked_notebook(title)
        top = imports.import_state(nb).top_n
        fast = top < MAX_NUMBER  # no number left: the general path says so
        with fast_add._guesses_lock:
            fast_add._guesses[fast_add._key(fast_add._db(), title)] = (nb.pk, selectors.head(nb), top + 1)
    with CaptureQueriesContext(connection) as seen:
        try:
            written = services.add(notebook=title, text=words, source=source, by=actor, why="w")
        except NotebookError as exc:
            written = exc
    assert not fast or any("notebooks_add_row" in q["sql"] for q in seen.captured_queries)  # the fast path it was
    return ("written", written.n) if isinstance(written, services.Written) else (written.code, None)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=st.sampled_from([0, MAX_NUMBER - 2, MAX_NUMBER]), steps=st.lists(STEP, min_size=1, max_size=8))
def test_the_fast_path_and_the_decision_agree_on_every_add(dad, start, steps):
    title = f"fast-{next(_titles)}"
    first = [{"op": "add", "n": 1, "text": "the first line", "source": "seen", "by": "pippa", "at": 1.0}]
    if start:  # a notebook whose file brought a high number (an adopt of a line it dropped)
        first.append({"op": "adopt", "n": start, "was": "dropped words", "at": 2.0})
    imports.import_notebook(title=title, lines=[rowformat.dumps(r) for r in first], by="dad")
    for step in steps:
        if step[0] == "redact":
            try:
                redaction.redact(notebook=title, n=step[1], by=DAD, why="a secret")
            except NotebookError:
                pass
            continue
        _op, words, source, actor = step
        expected = _verdict(title, words, source, actor)
        assert _add(title, words, source, actor) == expected, (step, expected)
