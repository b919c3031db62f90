"""Similar lines over a notebook: the groups and nearest lines follow every change, "Not alike" marks hide a group
(append-only, reversible), and the CLI prints them."""

import io
import json

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from notebooks.log import redaction, services
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid, NotFound
from notebooks.log.views import kept, selectors
from notebooks.models import NotAlike
from notebooks.similar import selectors as similar
from notebooks.similar import services as marks
from tests.agent_helpers import DAD

SHIELD = "Buy the Deku Shield in Kokiri Forest before entering the Deku Tree."
SHIELD_AGAIN = "get a deku shield from the kokiri shop first, the Deku Tree needs it"
TUNIC = "The Zora Tunic lets Link breathe underwater."
LEFT = "In the Lost Woods, take the left path at the first fork to reach the meadow."
RIGHT = "Lost Woods: the right path at the first fork leads to the meadow."


def add(text: str, by: str = "pippa") -> int:
    return services.add(notebook="zelda", text=text, source="seen", by=by, why="seen it").n


@pytest.fixture
def messy(notebook, dad):
    numbers = [add(t) for t in (SHIELD, TUNIC, SHIELD_AGAIN, LEFT, RIGHT)]
    assert numbers == [1, 2, 3, 4, 5]
    return notebook


def shown(notebook) -> list[tuple[tuple[int, ...], str]]:
    return [(g.lines, g.kind) for g in similar.groups_for(notebook)]


def test_groups_follow_an_add_an_edit_and_a_retirement(messy):
    assert set(shown(messy)) == {((4, 5), "conflict"), ((1, 3), "repeat")}
    add("Purchase the deku shield in the kokiri shop before the Deku Tree.")
    assert ((1, 3, 6), "repeat") in shown(messy)
    services.edit(notebook="zelda", n=3, to="Bomb Flowers blow up cracked walls.", by="pippa", why="wrong line")
    assert ((1, 6), "repeat") in shown(messy) and not any(3 in g for g, _ in shown(messy))
    services.retire(notebook="zelda", n=5, by="pippa", why="wrong way")
    assert shown(messy) == [((1, 6), "repeat")]


def test_groups_are_kept_per_head_and_made_again_after_another_processs_row(messy):
    first = similar.groups_for(messy)
    assert similar.groups_for(messy) == first
    kept.forget()  # as in a process that has not read it yet
    assert similar.groups_for(messy) == first


def test_nearest_for_names_the_closest_lines_and_follows_changes(messy):
    near = similar.nearest_for(messy, "a deku shield from the kokiri shop before the deku tree")
    assert [x["n"] for x in near][:2] in ([3, 1], [1, 3]) and len(near) <= 3
    assert all(set(x) == {"n", "score"} for x in near)
    assert similar.nearest_for(messy, "the emulator froze after loading a state") == []
    n = add("Deku Shield: buy it in the Kokiri shop before the Deku Tree.")
    assert n in [x["n"] for x in similar.nearest_for(messy, SHIELD)]
    assert n not in [x["n"] for x in similar.nearest_for(messy, SHIELD, exclude=n)]
    services.retire(notebook="zelda", n=1, by="pippa", why="said twice")
    assert 1 not in [x["n"] for x in similar.nearest_for(messy, SHIELD)]
    services.edit(notebook="zelda", n=3, to="Bomb Flowers blow up cracked walls.", by="pippa", why="wrong line")
    assert 3 not in [x["n"] for x in similar.nearest_for(messy, SHIELD_AGAIN)]
    assert 3 in [x["n"] for x in similar.nearest_for(messy, "bomb flowers blow up the cracked walls")]
    similar.forget()  # a fresh index reads the same
    assert 3 in [x["n"] for x in similar.nearest_for(messy, "bomb flowers blow up the cracked walls")]


QUERIES = (SHIELD, SHIELD_AGAIN, TUNIC, LEFT, "bomb flowers blow up the cracked walls", "zora tunic underwater")


def _changed(title: str) -> None:
    """The same changes in either notebook: lines added after the fit, one of them edited, one retired, and a line of
    the fit redacted, retired and edited."""

    def line(text: str) -> int:
        return services.add(notebook=title, text=text, source="seen", by="pippa", why="seen it").n

    six = line("Zora Tunic: breathe underwater in Zora's Domain.")
    seven = line("bomb flowers blow up the cracked walls near Dodongo's Cavern")
    line("left at the first fork in the Lost Woods")
    services.edit(notebook=title, n=six, to="Kokiri shop sells the deku shield", by="pippa", why="wrong line")
    services.retire(notebook=title, n=seven, by="pippa", why="said twice")
    redaction.redact(notebook=title, n=2, by=DAD, why="not about the game")
    services.retire(notebook=title, n=4, by="pippa", why="said twice")
    services.edit(notebook=title, n=5, to="the Zora river has bomb flowers", by="pippa", why="wrong line")


def test_the_nearest_index_follows_rows_one_by_one_as_it_does_by_comparing_every_line(messy, monkeypatch):
    services.create_notebook(title="hyrule", by="test")
    for text in (SHIELD, TUNIC, SHIELD_AGAIN, LEFT, RIGHT):  # a second notebook, the same five lines
        services.add(notebook="hyrule", text=text, source="seen", by="pippa", why="seen it")
    for title in ("zelda", "hyrule"):  # each fitted on its five lines
        similar.nearest_for(selectors.get_notebook(title), SHIELD)
        _changed(title)
    by_rows = [similar.nearest_for(messy, q, k=5) for q in QUERIES]
    monkeypatch.setattr(similar, "FOLLOW_ROWS", 0)
    hyrule = selectors.get_notebook("hyrule")
    assert [similar.nearest_for(hyrule, q, k=5) for q in QUERIES] == by_rows
    named = {x["n"] for answer in by_rows for x in answer}
    assert not named & {2, 4, 7} and 6 in {x["n"] for x in by_rows[0]}
    assert 8 in {x["n"] for x in by_rows[3]} and 5 not in {x["n"] for x in by_rows[3]}  # 5's old words are gone


def test_a_not_alike_mark_hides_its_group_until_undone(messy):
    mark = marks.mark_not_alike(notebook="zelda", numbers=[3, 1, 3], by="dad", why="one is the shop, one the price")
    assert mark.lines == [1, 3] and mark.by == "dad" and mark.undoes is None
    assert ((1, 3), "repeat") not in shown(messy) and ((4, 5), "conflict") in shown(messy)
    undo = marks.undo_not_alike(notebook="zelda", mark_id=mark.pk, by="dad")
    assert undo.undoes_id == mark.pk and NotAlike.objects.count() == 2
    assert ((1, 3), "repeat") in shown(messy)
    with pytest.raises(Conflict):
        marks.undo_not_alike(notebook="zelda", mark_id=mark.pk, by="dad")
    with pytest.raises(NotFound):
        marks.undo_not_alike(notebook="zelda", mark_id=undo.pk, by="dad")  # an undo is not a mark


def test_a_line_joining_a_hidden_group_shows_it_again(messy):
    marks.mark_not_alike(notebook="zelda", numbers=[1, 3], by="dad")
    assert ((1, 3), "repeat") not in shown(messy)
    add("Purchase the deku shield in the kokiri shop before the Deku Tree.")
    assert ((1, 3, 6), "repeat") in shown(messy)


def test_only_the_editor_marks_and_only_live_lines(messy):
    with pytest.raises(Forbidden):
        marks.mark_not_alike(notebook="zelda", numbers=[1, 3], by="pippa")
    with pytest.raises(Invalid):
        marks.mark_not_alike(notebook="zelda", numbers=[1, 1], by="dad")
    with pytest.raises(NotFound):
        marks.mark_not_alike(notebook="zelda", numbers=[1, 99], by="dad")
    mark = marks.mark_not_alike(notebook="zelda", numbers=[1, 3], by="dad")
    with pytest.raises(Forbidden):
        marks.undo_not_alike(notebook="zelda", mark_id=mark.pk, by="pippa")
    assert NotAlike.objects.count() == 1


def test_the_marks_table_refuses_update_and_delete(messy):
    marks.mark_not_alike(notebook="zelda", numbers=[1, 3], by="dad")
    for sql in ("UPDATE notebooks_notalike SET why = 'rewritten'", "DELETE FROM notebooks_notalike"):
        with pytest.raises(IntegrityError, match="append-only"), transaction.atomic(), connection.cursor() as c:
            c.execute(sql)
    assert NotAlike.objects.get().why == ""


def cli(*args: str) -> str:
    out = io.StringIO()
    call_command("notebook", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_the_cli_prints_groups_as_text_and_as_json(messy):
    data = json.loads(cli("similar", "zelda", "--json"))
    assert set(data) == {"groups"}
    assert {(tuple(g["lines"]), g["kind"]) for g in data["groups"]} == {((1, 3), "repeat"), ((4, 5), "conflict")}
    assert all(set(g) == {"lines", "kind", "score"} and 0 < g["score"] <= 1 for g in data["groups"])
    text = cli("similar", "zelda")
    assert "repeat, score" in text and "conflict, score" in text
    assert f"   #1 [seen] {SHIELD}" in text and f"   #5 [seen] {RIGHT}" in text and TUNIC not in text


def test_the_cli_marks_and_undoes(messy):
    said = cli("not-alike", "zelda", "1", "3", "--by", "dad", "--why", "different shops")
    mark = NotAlike.objects.get()
    assert f"mark {mark.pk}" in said and mark.why == "different shops"
    assert [g["lines"] for g in json.loads(cli("similar", "zelda", "--json"))["groups"]] == [[4, 5]]
    cli("undo-not-alike", "zelda", str(mark.pk), "--by", "dad")
    assert len(json.loads(cli("similar", "zelda", "--json"))["groups"]) == 2
