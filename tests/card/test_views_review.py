"""Dad's review on the card: new since his last mark, the Retired list and Restore, older words put back, diffs,
what changed since a frozen view, and times in his time zone."""

import re
from datetime import UTC, datetime

import pytest
from django.db import IntegrityError, connection, transaction

from notebooks.card import selectors as card_selectors
from notebooks.card import services as card_services
from notebooks.log import redaction, services
from notebooks.log.views import selectors
from notebooks.models import ReaderZone, ReviewMark
from tests.card_helpers import HX, url


def _new_lines(html: str) -> set[int]:
    return {int(n) for n in re.findall(r'<li id="line-(\d+)" class="line [^"]*\bis-new\b', html)}


def _mark(client, **extra):  # noqa: ANN001, ANN003, ANN201
    seq = selectors.head(selectors.get_notebook("zelda")).seq
    return client.post(url(action="reviewed"), {"seq": seq}, **extra)


def test_before_his_first_review_every_line_is_new(editor_client, lines):
    html = editor_client.get(url()).content.decode()
    assert _new_lines(html) == {1, 2, 3}
    assert "3 lines new to you" in html and "not marked this notebook reviewed yet" in html


def test_after_mark_reviewed_only_later_lines_are_new_and_counted_with_their_authors(editor_client, lines):
    response = _mark(editor_client)
    assert response.status_code == 302
    html = editor_client.get(url()).content.decode()
    assert _new_lines(html) == set()
    assert "0 new or changed" in html
    services.add(notebook="zelda", text="the lynel guards the gate", source="seen", by="pippa", why="seen")
    services.edit(notebook="zelda", n=1, to="the guard swings three times", by="pippa", why="counted again")
    html = editor_client.get(url()).content.decode()
    assert _new_lines(html) == {1, 4}
    assert "2 new or changed</strong> since you reviewed on" in html and ", by pippa." in html
    assert re.search(r'id="line-4" class="[^"]*is-new[^"]*"[^>]*>.*?review-badge[^>]*>new<', html, re.S)
    assert re.search(r'id="line-1" class="[^"]*is-new[^"]*"[^>]*>.*?review-badge[^>]*>changed<', html, re.S)
    only = editor_client.get(url(), {"show": "new"}).content.decode()
    assert re.findall(r'<li id="line-(\d+)" class="line ', only) == ["1", "4"]


def test_a_line_saved_in_place_after_the_mark_is_drawn_as_changed(editor_client, lines):
    card_services.mark_reviewed(notebook="zelda", by="dad")
    html = editor_client.post(url(2, "edit"), {"words": "block first", "reason": "r", "expected": 2}, **HX).content
    assert re.search(r'id="line-2" class="[^"]*is-new[^"]*"[^>]*>.*?review-badge[^>]*>changed<', html.decode(), re.S)


def test_mark_reviewed_marks_what_the_page_showed_not_what_came_since(editor_client, lines):
    shown = selectors.head(lines).seq
    services.add(notebook="zelda", text="written while he read", source="seen", by="pippa", why="seen")
    response = editor_client.post(url(action="reviewed"), {"seq": shown}, **HX)
    assert response.status_code == 200 and "Marked reviewed" in response.content.decode()
    assert _new_lines(response.content.decode()) == {4}
    mark = ReviewMark.objects.get()
    assert (mark.by, mark.seq, mark.hash) == ("dad", shown, selectors.row_hash(lines, shown))


def test_mark_reviewed_needs_the_editor_and_a_seq_the_notebook_has(client, agent_user, editor_client, lines):
    assert editor_client.post(url(action="reviewed"), {"seq": 99}, **HX).status_code == 422
    refused = editor_client.post(url(action="reviewed"), {"seq": "3'"}, **HX)  # no number: not "up to the head"
    assert refused.status_code == 422 and "names no change of this notebook" in refused.content.decode()
    client.force_login(agent_user)
    assert client.post(url(action="reviewed"), {"seq": 1}).status_code == 403
    assert ReviewMark.objects.count() == 0


def test_the_index_counts_each_notebooks_lines_new_since_his_review(editor_client, lines):
    services.create_notebook(title="tetris", by="test")
    services.add(notebook="tetris", text="the long bar comes", source="seen", by="pippa", why="seen")
    counts = re.findall(
        r'href="/notebooks/(\w+)/\?show=new">(\d+) new since your review', editor_client.get("/").content.decode()
    )
    assert counts == [("tetris", "1"), ("zelda", "3")]
    _mark(editor_client)
    services.add(notebook="zelda", text="later", source="seen", by="pippa", why="seen")
    counts = re.findall(
        r'href="/notebooks/(\w+)/\?show=new">(\d+) new since your review', editor_client.get("/").content.decode()
    )
    assert counts == [("tetris", "1"), ("zelda", "1")]


@pytest.mark.django_db
def test_review_marks_are_append_only(lines):
    mark = card_services.mark_reviewed(notebook="zelda", by="dad")
    for sql in ("UPDATE notebooks_reviewmark SET seq = 1", "DELETE FROM notebooks_reviewmark"):
        with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql)
    assert ReviewMark.objects.get().seq == mark.seq


def test_new_since_labels_new_and_changed_lines_from_the_view_in_hand(lines):
    mark = card_services.mark_reviewed(notebook="zelda", by="dad")
    services.add(notebook="zelda", text="x", source="seen", by="pippa", why="w")
    services.edit(notebook="zelda", n=2, to="y", by="pippa", why="w")
    found = card_selectors.last_mark(lines, "dad")
    assert (found.seq, found.top_n) == (mark.seq, 3)
    assert card_selectors.new_since(selectors.view(lines), found) == {2: "changed", 4: "new"}
    assert card_selectors.last_mark(lines, "someone") == card_selectors.NEVER


# ----- retired lines and undo -------------------------------------------------------------------------------------


def test_the_retired_filter_lists_retired_and_merged_lines_with_who_when_why_and_what_says_them(editor_client, lines):
    services.retire(notebook="zelda", n=2, by="dad", why="a bad guess")
    services.merge(notebook="zelda", numbers=[1, 3], text="one line for both", by="dad", why="they said one thing")
    html = editor_client.get(url(), {"show": "retired"}).content.decode()
    assert "Retired and merged lines" in html
    assert "always attack first" in html and "a bad guess" in html
    assert "Merged into" in html and "#4" in html and "they said one thing" in html
    assert 'class="line src-' not in html  # the live lines are not listed
    assert re.findall(r'<li id="line-(\d+)" class="line retired-line', html) == ["3", "1", "2"]  # latest first


def test_restore_from_the_retired_list_with_a_reason(editor_client, lines):
    services.retire(notebook="zelda", n=2, by="dad", why="a bad guess")
    form = editor_client.get(url(2, "restore"), {"show": "retired"}, **HX).content.decode()
    assert 'name="reason"' in form and "always attack first" in form
    refused = editor_client.post(url(2, "restore"), {"reason": "", "show": "retired"}, **HX)
    assert refused.status_code == 422 and "A reason is required" in refused.content.decode()
    done = editor_client.post(url(2, "restore"), {"reason": "it was right", "show": "retired"}, **HX)
    assert done.status_code == 200 and done["HX-Retarget"] == "#lines-region"
    assert "its words are back as line #4" in done.content.decode()
    assert selectors.live_line(lines, 4).text == "always attack first"
    history = editor_client.get(url(2, "history"), **HX).content.decode()
    assert "restored as #4" in history and "it was right" in history
    assert "restored from #2" in editor_client.get(url(4, "history"), **HX).content.decode()


def test_restore_without_javascript_redirects_to_the_new_line(editor_client, lines):
    services.retire(notebook="zelda", n=2, by="dad", why="a bad guess")
    page = editor_client.get(url(2, "restore")).content.decode()
    assert "<html" in page and "Restore line #2" in page
    response = editor_client.post(url(2, "restore"), {"reason": "it was right"})
    assert response.status_code == 302 and response["Location"].endswith("#line-4")
    again = editor_client.post(url(2, "restore"), {"reason": "twice"})
    assert again.status_code == 409 and "already restored, as line #4" in again.content.decode()


def test_put_back_older_words_from_the_history(editor_client, lines):
    services.edit(notebook="zelda", n=2, to="block first", by="dad", why="attacking got her killed")
    first = selectors.history(lines, 2)[0]
    history = editor_client.get(url(2, "history"), **HX).content.decode()
    assert f"put-back/?seq={first.seq}" in history
    form = editor_client.get(url(2, "put-back"), {"seq": first.seq}, **HX).content.decode()
    assert "Put these words back" in form and "always attack first" in form and "block first" in form
    refused = editor_client.post(url(2, "put-back"), {"seq": first.seq, "reason": ""}, **HX)
    assert refused.status_code == 422
    done = editor_client.post(url(2, "put-back"), {"seq": first.seq, "reason": "it was right", "expected": 5}, **HX)
    assert done.status_code == 409 and "changed since you read it" in done.content.decode()
    current = selectors.live_line(lines, 2).seq
    done = editor_client.post(
        url(2, "put-back"), {"seq": first.seq, "reason": "it was right", "expected": current}, **HX
    )
    html = done.content.decode()
    assert done.status_code == 200 and "Put back older words of line #2." in html
    assert "older words put back" in html and "it was right" in html
    assert selectors.live_line(lines, 2).text == "always attack first"


def test_put_back_of_words_redacted_after_the_form_opened_is_said_at_the_line(editor_client, lines):
    services.edit(notebook="zelda", n=2, to="block first", by="dad", why="attacking got her killed")
    first = selectors.history(lines, 2)[0]
    assert editor_client.get(url(2, "put-back"), {"seq": first.seq}, **HX).status_code == 200
    redaction.redact(notebook="zelda", n=2, seq=first.seq, by="dad", why="private")
    sent = {"seq": first.seq, "reason": "it was right"}
    refused = editor_client.post(url(2, "put-back"), sent, **HX)
    assert refused.status_code == 422 and "has no words at change" in refused.content.decode()
    assert 'id="line-2"' in refused.content.decode()  # the line, in place of its form
    plain = editor_client.post(url(2, "put-back"), sent)
    assert plain.status_code == 302 and plain["Location"].endswith("#line-2")
    assert selectors.live_line(lines, 2).text == "block first"
    assert editor_client.get(url(2, "put-back"), {"seq": 999}, **HX).status_code == 404  # a link to no version


def test_an_edits_history_marks_inserted_and_deleted_words_escaped(editor_client, lines):
    services.edit(notebook="zelda", n=2, to="always <b>block</b> first", by="dad", why="markup stays text")
    html = editor_client.get(url(2, "history"), **HX).content.decode()
    assert "<ins>&lt;b&gt;block&lt;/b&gt;</ins>" in html and "<del>attack</del>" in html
    assert "<b>block</b>" not in html


def _changed_since(editor_client, lines, added: str, edited: str) -> str:  # noqa: ANN001
    """The card frozen before a line added, #2 edited and #3 retired, showing what changed since."""
    then = selectors.head(lines).seq
    services.add(notebook="zelda", text=added, source="seen", by="pippa", why="later")
    services.edit(notebook="zelda", n=2, to=edited, by="dad", why="r")
    services.retire(notebook="zelda", n=3, by="dad", why="r")
    return editor_client.get(url(), {"upto": then, "show": "changes"}).content.decode()


def test_what_changed_since_a_frozen_view(editor_client, lines):
    html = _changed_since(editor_client, lines, "a later line", "block first")
    assert "Frozen view: read-only." in html
    assert "What changed since then: 3 lines" in html
    assert "a later line" in html and "<del>always attack</del><ins>block</ins> first" in html
    assert "Retired since (1)" in html


def test_what_changed_since_a_chosen_time_keeps_the_time_he_chose(editor_client, lines, monkeypatch):
    from types import SimpleNamespace

    from notebooks.log.store import append

    last = selectors.head(lines).at
    monkeypatch.setattr(append, "time", SimpleNamespace(time=lambda: last + 7200))  # a line added two hours later
    services.add(notebook="zelda", text="a later line", source="seen", by="pippa", why="later")
    chosen = datetime.fromtimestamp(last + 3600, tz=UTC).replace(second=0, microsecond=0)  # between, to the minute
    frozen = editor_client.get(url(), {"as_of": chosen.strftime("%Y-%m-%dT%H:%M")}).content.decode()
    link = re.search(r'<a href="\?([^"]+)">What changed since then</a>', frozen).group(1).replace("&amp;", "&")
    html = editor_client.get(f"{url()}?{link}").content.decode()
    assert f'The notebook as it stood at <time datetime="{chosen.isoformat()}">{chosen:%Y-%m-%d %H:%M:%S} UTC' in html
    assert "(its first 3 changes)" in html and "What changed since then: 1 line" in html
    assert f'value="{chosen:%Y-%m-%dT%H:%M}"' in html  # the As of field still holds the time he chose


def test_what_changed_since_holds_each_lines_words_apart_from_who_wrote_them(editor_client, lines):
    # A right-to-left override in the words must not reverse the "by ... · when" beside them: <bdi> isolates them.
    html = _changed_since(editor_client, lines, "added \u202eflipped", "block \u202efirst")
    changes = html.split('class="box changes"')[1].split("</details>")[0]
    assert '<bdi>added \u202eflipped</bdi> <span class="muted">by pippa' in changes
    assert re.search(r'<bdi class="diff">.*?<ins>\u202efirst</ins></bdi> <span class="muted">by dad', changes)
    assert re.search(r"<del><bdi>[^<]+</bdi></del>", changes)


def test_history_and_audit_link_each_row_to_the_notebook_as_of_that_row(editor_client, lines):
    services.edit(notebook="zelda", n=2, to="block first", by="dad", why="r")
    history = editor_client.get(url(2, "history"), **HX).content.decode()
    assert "?upto=2" in history and "?upto=4" in history
    frozen = editor_client.get(url(), {"upto": 2}).content.decode()
    assert "its first 2 changes" in frozen and "write only what the game" not in frozen.split("lines-col")[-1]
    audit = editor_client.get("/audit/").content.decode()
    assert "/notebooks/zelda/?upto=4" in audit


# ----- time zones ---------------------------------------------------------------------------------------------------


def test_times_show_in_the_readers_zone_with_utc_on_hover(editor_client, dad, lines):
    at = selectors.live_line(lines, 1).at
    utc = datetime.fromtimestamp(at, tz=UTC)
    drawn = editor_client.get(url()).content.decode()  # first in UTC: its lines are kept (card.fragments)
    assert f'title="{utc:%Y-%m-%d %H:%M:%S} UTC">{utc:%Y-%m-%d %H:%M}</time>' in drawn
    editor_client.cookies["tz"] = "America%2FNew_York"  # as the browser's zone.js may write it
    html = editor_client.get(url()).content.decode()
    from zoneinfo import ZoneInfo

    local = utc.astimezone(ZoneInfo("America/New_York")).strftime("%Y-%m-%d %H:%M")
    assert f'title="{utc:%Y-%m-%d %H:%M:%S} UTC">{local}</time>' in html
    assert 'data-zone="America/New_York"' in html
    assert ReaderZone.objects.get(user=dad).zone == "America/New_York"
    del editor_client.cookies["tz"]  # another browser of his, before it reports: the zone kept for him
    assert 'data-zone="America/New_York"' in editor_client.get(url()).content.decode()


def test_a_zone_that_is_not_one_is_ignored(editor_client, dad, lines):
    for bad in ("Mars/Olympus", "../../etc/passwd", "x" * 100, ""):
        editor_client.cookies["tz"] = bad
        assert 'data-zone="UTC"' in editor_client.get(url()).content.decode()
    assert not ReaderZone.objects.filter(user=dad).exists()
    assert card_services.valid_zone("Europe/Paris") == "Europe/Paris"


def test_the_as_of_field_reads_his_local_time(editor_client, lines):
    from zoneinfo import ZoneInfo

    services.add(notebook="zelda", text="a later line", source="seen", by="pippa", why="later")
    third, later = selectors.history(lines, 3)[0].at, selectors.history(lines, 4)[0].at
    local = datetime.fromtimestamp((third + later) / 2, tz=UTC).astimezone(ZoneInfo("Asia/Tokyo"))
    editor_client.cookies["tz"] = "Asia/Tokyo"
    html = editor_client.get(url(), {"as_of": local.strftime("%Y-%m-%dT%H:%M:%S.%f")}).content.decode()
    assert "Frozen view" in html and "write only what the game taught you" in html and "a later line" not in html


def test_show_retired_offers_to_undo_the_merge_a_line_went_into_beside_restore(editor_client, lines):
    merged = services.merge(notebook="zelda", numbers=[1, 2], text="roll, never attack first", by="dad", why="one")
    html = editor_client.get(url(title="zelda") + "?show=retired").content.decode()
    undo = f'<a href="/notebooks/zelda/lines/{merged.n}/undo-merge/">Undo the merge into #{merged.n}…</a>'
    assert html.count(undo) == 2 and ">Restore</button>" in html
    form = editor_client.get(f"/notebooks/zelda/lines/{merged.n}/undo-merge/")  # the link, followed
    assert form.status_code == 200 and f"Undo the merge into line #{merged.n}" in form.content.decode()
    services.retire(notebook="zelda", n=3, by="dad", why="wrong")  # a plain retirement offers no undo of a merge
    plain = editor_client.get(url(title="zelda") + "?show=retired").content.decode().split('id="line-3"')[1]
    assert "Undo the merge" not in plain.split("</li>")[0]
