"""Snapshots of the view (notebooks/log/views/snapshots.py): made where due, read only when the log backs them, equal to
the view the whole log gives at every cut, gone with redacted words."""

import io
import json
import random

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import override_settings

from notebooks.log import redaction, services
from notebooks.log.files import imports, rowformat
from notebooks.log.rules.lines import Line
from notebooks.log.views import kept, queries, selectors, snapshot_format, snapshots
from notebooks.models import Snapshot

EVERY = 10  # rows between snapshot places in these tests (250 in the product)


@pytest.fixture(autouse=True)
def small_steps(monkeypatch):
    monkeypatch.setattr(snapshots, "EVERY", EVERY)
    kept.forget()
    yield
    kept.forget()


def _history(title: str, rows: int, seed: int = 1) -> None:
    """About `rows` rows of adds, edits, retirements and merges, by Pippa and Dad."""
    rnd = random.Random(seed)
    live: list[int] = []
    for i in range(rows):
        roll = rnd.random()
        if len(live) < 3 or roll < 0.5:
            written = services.add(notebook=title, text=f"line {i} ✓ roll\tafter", source="seen", by="pippa", why="w")
            live.append(written.n)
        elif roll < 0.75:
            services.edit(notebook=title, n=rnd.choice(live), to=f"edited {i}", by="dad", why="better")
        elif roll < 0.92:
            n = live.pop(rnd.randrange(len(live)))
            services.retire(notebook=title, n=n, by="dad", why="wrong")
        else:
            a, b = rnd.sample(live, 2)
            live.remove(a)
            live.remove(b)
            live.append(services.merge(notebook=title, numbers=[a, b], text=f"merged {i}", by="dad", why="one").n)


def _stored(nb) -> list[int]:  # noqa: ANN001
    return list(Snapshot.objects.filter(notebook=nb).order_by("seq").values_list("seq", flat=True))


def _from_log(nb, cut: int) -> list[Line]:  # noqa: ANN001
    """The view at `cut` as one query over the whole log computes it, with no snapshot involved."""
    return queries.view_by_sql(nb, cut)[0]


# ----- the stored form ----------------------------------------------------------------------------------------


def test_a_view_survives_encoding_exactly():
    lines = [
        Line(1, "roll after the second swing", "seen", "pippa", 1000.25, 3),
        Line(4, "ünïcode ✓ and\ttabs\nand a newline", "dad", "dad", 1_700_000_000.123456, 9),
        Line(7, "[redacted: a password]", "guessed", "reflector", 2000.0, 12, True),
        Line(9, None, "seen", "pippa", 2001.5, 14),
    ]
    assert snapshot_format.decode(snapshot_format.encode(lines)) == lines
    assert snapshot_format.decode(snapshot_format.encode([])) == []


def test_a_blob_of_another_format_is_refused():
    blob = snapshot_format.encode([Line(1, "a", "seen", "pippa", 1.0, 1)]).replace(b'"v":1', b'"v":9', 1)
    with pytest.raises(ValueError, match="format 9"):
        snapshot_format.decode(blob)


# ----- where they are made ------------------------------------------------------------------------------------


def test_writes_make_snapshots_where_they_are_due(notebook, dad):
    for i in range(35):
        services.add(notebook="zelda", text=f"line {i}", source="seen", by="pippa", why="w")
    assert _stored(notebook) == [10, 20, 30]
    for i in range(10):
        services.retire(notebook="zelda", n=i + 1, by="dad", why="gone")
    # Row 40 is a place, but the snapshot at 30 held 30 lines: the next one waits for 15 rows.
    assert _stored(notebook) == [10, 20, 30]
    for i in range(5):
        services.add(notebook="zelda", text=f"more {i}", source="seen", by="pippa", why="w")
    assert _stored(notebook) == [10, 20, 30, 50]
    top = Snapshot.objects.get(notebook=notebook, seq=50)
    assert top.live == 30
    assert top.hash == selectors.row_hash(notebook, 50)


def test_no_snapshot_before_the_first_place(notebook):
    for i in range(EVERY - 1):
        services.add(notebook="zelda", text=f"line {i}", source="seen", by="pippa", why="w")
    assert _stored(notebook) == []


def test_an_import_makes_half_as_many_snapshots_and_one_at_its_last_row(notebook, dad):
    _history("zelda", 123)
    imports.import_notebook(title="copy", lines=list(selectors.export(notebook)), by="test")
    copy = selectors.get_notebook("copy")
    stored = list(Snapshot.objects.filter(notebook=copy).order_by("seq").values_list("seq", "live", "lines"))
    head = selectors.head(copy)
    assert stored[-1][0] == head.seq == selectors.head(notebook).seq  # a first read after it folds nothing
    last_seq = last_live = 0
    for seq, live, _blob in stored[:-1]:
        assert snapshots.due(seq, last_seq, last_live, snapshots.IMPORT_SPACING)
        last_seq, last_live = seq, live
    for seq, _live, blob in stored:
        assert snapshot_format.decode(blob) == _from_log(copy, seq)
    assert snapshots.problems(copy.pk) == []
    # Writes after it go on from its last snapshot, at the usual spacing.
    for i in range(EVERY * 10):
        services.add(notebook="copy", text=f"after {i}", source="seen", by="pippa", why="w")
    assert max(_stored(copy)) > head.seq


# ----- what they give -----------------------------------------------------------------------------------------


def test_every_cut_reads_what_the_whole_log_says(notebook, dad):
    _history("zelda", 150, seed=7)
    assert len(_stored(notebook)) >= 5
    head = selectors.head(notebook).seq
    for cut in range(1, head + 1):
        lines, top = queries.computed_view(notebook, cut)
        assert lines == _from_log(notebook, cut), f"cut {cut}"
        assert top.seq == cut and top.hash == selectors.row_hash(notebook, cut)


def test_a_first_read_starts_from_the_nearest_snapshot(notebook, dad):
    _history("zelda", 95, seed=3)
    kept.forget()
    nearest = snapshots.nearest(notebook.pk, selectors.ALL)
    assert nearest is not None and nearest[0].seq == max(_stored(notebook))
    assert selectors.view(notebook) == _from_log(notebook, selectors.ALL)


def test_a_notebook_without_snapshots_reads_the_same(notebook, dad):
    _history("zelda", 80, seed=5)
    expected = _from_log(notebook, selectors.ALL)
    Snapshot.objects.filter(notebook=notebook).delete()
    kept.forget()
    assert selectors.view(notebook) == expected


# ----- what a reader passes over ------------------------------------------------------------------------------


def _tamper(nb, seq: int, lines: list[Line]) -> None:  # noqa: ANN001
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE notebooks_snapshot SET lines = %s WHERE notebook_id = %s AND seq = %s",
            [snapshot_format.encode(lines), nb.pk, seq],
        )


def test_an_altered_snapshot_is_passed_over_and_verify_names_it(notebook, dad):
    _history("zelda", 60, seed=2)
    last = max(_stored(notebook))
    forged = [line._replace(text="always attack first") for line in _from_log(notebook, last)]
    _tamper(notebook, last, forged)
    assert snapshots.nearest(notebook.pk, last)[0].seq < last
    kept.forget()
    assert all(line.text != "always attack first" for line in selectors.view(notebook))
    assert snapshots.problems(notebook.pk) == [f"snapshot at seq {last}: its MAC does not match (altered, or made "
                                               "under another SECRET_KEY)"]  # fmt: skip


def test_a_snapshot_forged_with_the_key_is_still_caught_by_verify(notebook, dad):
    _history("zelda", 60, seed=2)
    last = max(_stored(notebook))
    forged = [line._replace(text="always attack first") for line in _from_log(notebook, last)]
    blob = snapshot_format.encode(forged)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE notebooks_snapshot SET lines = %s, mac = %s WHERE notebook_id = %s AND seq = %s",
            [
                blob,
                snapshot_format.mac(notebook.pk, last, selectors.row_hash(notebook, last), 0, blob),
                notebook.pk,
                last,
            ],
        )
    assert snapshots.problems(notebook.pk) == [
        f"snapshot at seq {last}: its lines differ from the log's view at that row"
    ]
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError):
        call_command("notebook", "verify", "zelda", stdout=out, stderr=err)
    assert "its lines differ" in err.getvalue()


def test_snapshots_made_under_another_key_are_passed_over(notebook, dad):
    _history("zelda", 40, seed=4)
    assert snapshots.nearest(notebook.pk, selectors.ALL) is not None
    with override_settings(SECRET_KEY="another-key-" + "x" * 40):
        assert snapshots.nearest(notebook.pk, selectors.ALL) is None
        kept.forget()
        assert selectors.view(notebook) == _from_log(notebook, selectors.ALL)


def test_a_snapshot_naming_another_hash_is_passed_over(notebook, dad):
    _history("zelda", 40, seed=4)
    last = max(_stored(notebook))
    lines = _from_log(notebook, last)
    blob = snapshot_format.encode(lines)
    wrong = "0" * 64
    with connection.cursor() as cursor:
        cursor.execute(
            'UPDATE notebooks_snapshot SET "hash" = %s, mac = %s WHERE notebook_id = %s AND seq = %s',
            [wrong, snapshot_format.mac(notebook.pk, last, wrong, 0, blob), notebook.pk, last],
        )
    assert snapshots.nearest(notebook.pk, selectors.ALL)[0].seq < last
    assert "does not carry the hash it names" in snapshots.problems(notebook.pk)[-1]


def test_verify_finds_nothing_wrong_with_honest_snapshots(notebook, dad):
    _history("zelda", 90, seed=8)
    assert snapshots.problems(notebook.pk) == []


# ----- redaction ----------------------------------------------------------------------------------------------

SECRET = "the admin password is hunter2"


def test_a_redaction_takes_the_words_out_of_every_snapshot(notebook, dad):
    services.add(notebook="zelda", text=SECRET, source="seen", by="pippa", why="saw it")
    _history("zelda", 45, seed=6)
    assert any(b"hunter2" in bytes(blob) for blob in Snapshot.objects.values_list("lines", flat=True))
    redaction.redact(notebook="zelda", n=1, by="dad", why="a password")
    blobs = list(Snapshot.objects.filter(notebook=notebook).values_list("lines", flat=True))
    assert blobs and not any(b"hunter2" in bytes(blob) for blob in blobs)
    kept.forget()
    head = selectors.head(notebook).seq
    for cut in range(1, head + 1):
        assert queries.computed_view(notebook, cut)[0] == _from_log(notebook, cut), f"cut {cut}"
    first = selectors.view_at_seq(notebook, EVERY)
    assert first[0].text == rowformat.redacted_text("a password") and first[0].redacted


def test_the_cli_makes_them_again(notebook, dad):
    _history("zelda", 50, seed=9)
    before = list(Snapshot.objects.filter(notebook=notebook).order_by("seq").values_list("seq", "lines"))
    Snapshot.objects.filter(notebook=notebook).delete()
    out = io.StringIO()
    call_command("notebook", "snapshots", "zelda", stdout=out)
    assert f"zelda: {len(before)} snapshot(s) made" in out.getvalue()
    after = list(Snapshot.objects.filter(notebook=notebook).order_by("seq").values_list("seq", "lines"))
    assert [(s, bytes(b)) for s, b in after] == [(s, bytes(b)) for s, b in before]


def test_the_view_as_json_is_unchanged_by_the_line_shape(notebook):
    services.add(notebook="zelda", text="roll", source="seen", by="pippa", why="w")
    (line,) = selectors.view(notebook)
    assert json.loads(json.dumps(line.as_dict())) == {
        "n": 1, "text": "roll", "source": "seen", "by": "pippa", "at": line.at, "seq": 1,
    }  # fmt: skip


def test_an_import_of_a_redacted_export_makes_its_snapshots_from_the_log(notebook, dad):
    services.add(notebook="zelda", text=SECRET, source="seen", by="pippa", why="saw it")
    _history("zelda", 45, seed=6)
    redaction.redact(notebook="zelda", n=1, by="dad", why="a password")
    imports.import_notebook(title="copy", lines=list(selectors.export(notebook)), by="test")
    copy = selectors.get_notebook("copy")
    stored = list(Snapshot.objects.filter(notebook=copy).order_by("seq").values_list("seq", "lines"))
    assert len(stored) >= 3
    for seq, blob in stored:
        assert b"hunter2" not in bytes(blob)
        assert snapshot_format.decode(blob) == _from_log(copy, seq)
    assert snapshots.problems(copy.pk) == []
