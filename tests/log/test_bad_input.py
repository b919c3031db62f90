"""Input the database could not store gets a clear refusal before it gets there (found by fuzzing)."""

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from notebooks.log import services
from notebooks.log.files import imports
from notebooks.log.rules.errors import Invalid, NotFound
from notebooks.log.views import selectors
from notebooks.models import Row


def test_words_with_an_unpaired_surrogate_are_refused(notebook):
    with pytest.raises(Invalid, match="not valid Unicode text"):
        services.add(notebook="zelda", text="bad \ud800 words", source="seen", by="pippa", why="x")
    with pytest.raises(Invalid, match="not valid Unicode text"):
        services.add(notebook="zelda", text="fine words", source="seen", by="pippa", why="bad \udfff reason")
    assert not Row.objects.exists()


def test_an_overlong_or_empty_name_is_refused(notebook):
    with pytest.raises(Invalid, match="the limit is 80"):
        services.add(notebook="zelda", text="words", source="seen", by="p" * 81, why="x")
    with pytest.raises(Invalid, match="name is empty"):
        services.add(notebook="zelda", text="words", source="seen", by=" ", why="x")
    assert not Row.objects.exists()


@pytest.mark.parametrize("title", ["\ud800", "x" * 81, "nul\x00", "zelda\n"])
def test_a_title_no_notebook_could_have_is_not_found(notebook, title):
    with pytest.raises(NotFound, match="No notebook is titled"):
        selectors.get_notebook(title)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ('{"op": "add", "n": 1, "text": "x", "source": ["seen"], "at": 1}', "line 1: unknown source"),
        ('{"op": "add", "n": 2147483648, "text": "x", "source": "seen", "at": 1}', "line 1: 'n' must be a whole"),
        (
            '{"op": "add", "n": 1, "text": "\\ud800", "source": "seen", "at": 1}',
            "line 1: 'text' is not valid Unicode text",
        ),
        ('{"op": "add", "n": 1, "text": "x", "source": "seen", "at": NaN}', "line 1: 'at' must be a time"),
        ("[" * 100_000, "line 1: not valid JSON"),
    ],
)
def test_the_importer_names_the_line_and_the_problem(db, row, message):
    with pytest.raises(Invalid, match=message):
        imports.import_notebook(title="bad", lines=[row], by="test")
    assert not Row.objects.exists()


def test_a_file_that_is_not_utf8_is_refused_by_the_cli(db, tmp_path: Path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"op": "add", "n": 1, "text": "\xff", "source": "seen", "at": 1}\n')
    with pytest.raises(CommandError, match="not UTF-8"):
        call_command("notebook", "import", str(bad), "--title", "bad", stdout=io.StringIO())
    assert not Row.objects.exists()
