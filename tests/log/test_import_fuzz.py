"""Random and mutated JSON Lines files: an import either takes the whole file, which then verifies, or refuses
it with a message that names what was wrong, and writes nothing at all."""

import itertools
import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notebooks.log import redaction, services
from notebooks.log.files import imports
from notebooks.log.files.verify import verify_chain
from notebooks.log.rules.errors import Invalid
from notebooks.log.views import selectors
from notebooks.models import Notebook, Row, Words
from tests.databases import heavy, record, scale

EXAMPLES = scale(60, 1500)
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=not heavy(),  # the same examples in `make test`; new ones in every `make reliability`
)
_titles = itertools.count(1)
tried = {"random": 0, "mutated": 0, "accepted": 0, "refused": 0}

FIELDS = [
    "op",
    "n",
    "text",
    "to",
    "was",
    "source",
    "by",
    "why",
    "how",
    "into",
    "at",
    "seq",
    "hash",
    "was_at",
    "was_by",
    "redacts",
    "digest",
    "redacted",
]
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True)
    | st.text(max_size=30)
    | st.sampled_from(
        [
            "add",
            "edit",
            "strike",
            "adopt",
            "redact",
            "seen",
            "guessed",
            "dad",
            "dad_correction",
            "retired",
            "merged",
            "\ud800",
            "a" * 5000,
            "0" * 64,
            2**31,
            2**63,
            -1,
            0,
            1,
            2,
            1e308,
        ]
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
rows = st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=10)
lines = st.one_of(
    rows.map(json.dumps),
    st.text(max_size=200),
    st.sampled_from(["", "{", "[]", "null", "1", '"x"', "{}", "[" * 5000, '{"op": "add"}', "\ufeff{}"]),
)


def _import(file_lines: list[str]) -> None:
    """The property: all of the file, verified, or a refusal naming the problem and nothing written."""
    title = f"fuzz{next(_titles)}"
    before = (Row.objects.count(), Words.objects.count())
    try:
        result = imports.import_notebook(title=title, lines=file_lines, by="fuzz")
    except Invalid as exc:
        tried["refused"] += 1
        assert exc.message.strip()
        if "line" in exc.details:
            assert re.match(r"line \d+: \S", exc.message), exc.message
            assert 1 <= exc.details["line"] <= len(file_lines)
        assert not Notebook.objects.filter(title=title).exists()
        assert (Row.objects.count(), Words.objects.count()) == before
        return
    tried["accepted"] += 1
    nb = result.notebook
    assert verify_chain(nb) == []
    assert Row.objects.filter(notebook=nb).count() == result.rows + result.adopted
    assert selectors.head(nb).seq == result.rows + result.adopted


@FUZZ
@given(st.lists(lines, max_size=12))
def test_random_files_are_taken_whole_or_refused_with_a_reason(db, file_lines):
    tried["random"] += 1
    _import(file_lines)


def _valid_export() -> list[str]:
    services.create_notebook(title="base", by="test")
    for i in range(1, 7):
        services.add(notebook="base", text=f"line {i}", source="seen", by="pippa", why="seen")
    services.edit(notebook="base", n=2, to="line two, better", by="dad", why="clearer")
    services.retire(notebook="base", n=3, by="dad", why="wrong", into=4)
    services.merge(notebook="base", numbers=[5, 6], text="five and six", by="dad", why="same thing")
    redaction.redact(notebook="base", n=1, by="dad", why="a secret")
    return list(selectors.export(Notebook.objects.get(title="base")))


@st.composite
def mutated(draw: st.DrawFn, base: list[str]) -> list[str]:
    out = list(base)
    if draw(st.booleans()):  # without seq and hash, the rules themselves are what stops a bad row
        out = [json.dumps({k: v for k, v in json.loads(x).items() if k not in ("seq", "hash")}) for x in out]
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["drop", "dup", "swap", "cut", "insert", "set", "unset", "retype"]))
        i = draw(st.integers(0, len(out) - 1)) if out else 0
        if not out:
            out.append(draw(lines))
        elif kind == "drop":
            del out[i]
        elif kind == "dup":
            out.insert(i, out[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(out) - 1))
            out[i], out[j] = out[j], out[i]
        elif kind == "cut":
            out[i] = out[i][: draw(st.integers(0, len(out[i])))]
        elif kind == "insert":
            out.insert(i, draw(lines))
        else:
            try:
                obj = json.loads(out[i])
            except (ValueError, RecursionError):
                continue
            if not isinstance(obj, dict):
                continue
            key = draw(st.sampled_from(FIELDS))
            if kind == "unset":
                obj.pop(key, None)
            elif kind == "set":
                obj[key] = draw(json_values)
            elif key in obj:
                obj[key] = draw(st.sampled_from([str(obj[key]), [obj[key]], {"v": obj[key]}, None, True, 1.5]))
            out[i] = json.dumps(obj)
    return out


@FUZZ
@given(data=st.data())
def test_mutated_exports_are_taken_whole_or_refused_with_a_reason(db, dad, data):
    if not Notebook.objects.filter(title="base").exists():
        _valid_export()
    base = list(selectors.export(Notebook.objects.get(title="base")))
    file_lines = data.draw(mutated(base))
    tried["mutated"] += 1
    _import(file_lines)


def test_the_untouched_export_imports(db, dad):
    base = _valid_export()
    result = imports.import_notebook(title="copy", lines=base, by="test")
    assert verify_chain(result.notebook) == []
    record("import fuzzing", examples_per_test=EXAMPLES, **tried)
