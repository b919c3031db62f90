"""Clock poisoning: no row is dated later than now plus NOTEBOOK_CLOCK_ALLOWANCE, given so from outside or stamped.

Before, a row dated 9e9 (the year 2255) was taken by an import or a vault append, and every add after it was stamped
max(now, last at): in 2255 too.
"""

import json
import time

import pytest

from notebooks.log import services
from notebooks.log.files import imports
from notebooks.log.files.verify import verify_chain
from notebooks.log.rules.errors import Conflict, Invalid
from notebooks.log.views import selectors
from notebooks.models import Notebook, Row

FAR = 9e9  # 2255-03-14


def _add(n: int, at: float, **fields: object) -> str:
    return json.dumps({"op": "add", "n": n, "text": f"line {n}", "source": "seen", "by": "pippa", "at": at, **fields})


def test_an_import_refuses_a_row_dated_in_2255_naming_its_line_and_the_allowance(db):
    with pytest.raises(Invalid, match=r"line 2: 'at' is 2255-03-14T\S+, later than this server's clock allows: "
                       r"now plus NOTEBOOK_CLOCK_ALLOWANCE \(300 s\)"):  # fmt: skip
        imports.import_notebook(title="poisoned", lines=[_add(1, 1.0), _add(2, FAR)], by="test")
    assert not Notebook.objects.filter(title="poisoned").exists()


def test_an_import_takes_a_row_a_little_ahead_within_the_allowance(db):
    ahead = time.time() + 60
    imported = imports.import_notebook(title="fast-clock", lines=[_add(1, ahead)], by="test")
    assert selectors.head(imported.notebook).at == ahead


def test_the_allowance_is_the_settings(db, settings):
    settings.NOTEBOOK_CLOCK_ALLOWANCE = 10
    with pytest.raises(Invalid, match=r"line 1: 'at' .* \(10 s\)"):
        imports.import_notebook(title="fast-clock", lines=[_add(1, time.time() + 60)], by="test")


def test_an_import_refuses_an_adopted_backup_row_dated_in_the_future(db):
    backup = [_add(1, FAR, text="the old words")]
    with pytest.raises(Invalid, match="backup: line 1: 'at' is 2255"):
        imports.import_notebook(title="rewrite", lines=[_add(1, 1.0)], by="test", adopt_from=backup)
    assert not Notebook.objects.filter(title="rewrite").exists()


def test_an_import_refuses_an_adopt_row_whose_was_at_is_in_the_future(db):
    adopt = json.dumps({"op": "adopt", "n": 1, "was": "old", "was_at": FAR, "why": "w", "at": 2.0})
    with pytest.raises(Invalid, match="line 2: 'was_at' is 2255"):
        imports.import_notebook(title="rewrite", lines=[_add(1, 1.0), adopt], by="test")


def test_a_vault_append_refuses_a_row_dated_in_2255_and_writes_nothing(notebook):
    services.add(notebook="zelda", text="first", source="seen", by="pippa", why="saw it")
    with pytest.raises(Invalid, match="line 2: 'at' is 2255-03-14"):
        imports.append_rows(notebook="zelda", lines=[_add(2, FAR)], by_default="harness", first_line=2)
    assert selectors.head(notebook).seq == 1


def test_an_add_after_a_row_a_little_ahead_is_stamped_no_later_than_the_allowance(db):
    ahead = time.time() + 100  # a file that starts the notebook keeps its rows' times
    notebook = imports.append_rows(notebook="zelda", lines=[_add(1, ahead)], by_default="harness").notebook
    written = services.add(notebook="zelda", text="second", source="seen", by="pippa", why="saw it")
    at = Row.objects.get(notebook=notebook, seq=written.seq).at
    assert ahead <= at <= time.time() + 300  # never before the row it follows, never past the allowance


def _poisoned(settings) -> Notebook:  # noqa: ANN001
    """An old log poisoned before the check: a row from 2255 taken while any time went."""
    settings.NOTEBOOK_CLOCK_ALLOWANCE = 1e11
    nb = imports.import_notebook(title="poisoned", lines=[_add(1, 1.0), _add(2, FAR)], by="test").notebook
    settings.NOTEBOOK_CLOCK_ALLOWANCE = 300
    return nb


def test_an_add_to_a_log_already_poisoned_is_refused_rather_than_stamped_in_2255(db, settings):
    nb = _poisoned(settings)
    with pytest.raises(Conflict, match=r"its last row is dated 2255-03-14T\S+, later than this server's clock"):
        services.add(notebook="poisoned", text="third", source="seen", by="pippa", why="saw it")
    assert selectors.head(nb).seq == 2
    assert not Row.objects.filter(at__gt=FAR).exists()


def test_every_write_to_a_poisoned_log_is_refused_the_same_way(db, settings, dad):
    _poisoned(settings)
    with pytest.raises(Conflict, match="export it, correct the times and import it as a new notebook"):
        services.edit(notebook="poisoned", n=1, to="new words", by="pippa", why="better")
    with pytest.raises(Conflict, match="its last row is dated 2255"):
        services.retire(notebook="poisoned", n=1, by="dad", why="gone")


def test_the_api_answers_a_write_to_a_poisoned_log_with_409(db, settings, pippa):
    _poisoned(settings)
    response = pippa.post("/api/notebooks/poisoned/lines", {"text": "third", "source": "seen", "why": "saw it"})
    assert response.status_code == 409
    assert "later than this server's clock allows" in response.json()["error"]["message"]


def test_verify_names_the_first_row_of_a_poisoned_log(db, settings):
    nb = _poisoned(settings)
    assert verify_chain(nb) == [
        "poisoned: seq 2: dated 2255-03-14T16:00:00Z, later than now plus NOTEBOOK_CLOCK_ALLOWANCE "
        "(a poisoned clock): no row can be written after it"
    ]


def test_verify_passes_a_log_dated_today(notebook):
    services.add(notebook="zelda", text="first", source="seen", by="pippa", why="saw it")
    assert verify_chain(notebook) == []
