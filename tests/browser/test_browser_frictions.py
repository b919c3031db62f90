"""Dad's frictions in the Similar view, in a real browser (issue 31, point 4): Keep #N in one action, Keep the chosen
line in every group, a reason carried to later groups only when he asks, and a list that does not change by itself;
"leave out" seen at once, an also-close line's words kept, a merge undone from its note, the chart not counting a
merge as new, "Marked not alike" with words, the status gone with its view, and a card and a view compact at 390 px.
With htmx, without JavaScript, by the keyboard, and at 390 px.

Each test imports its own notebook (seven lines of one game): #1, #3 and #6 say one thing (a shield), #2 and #7 say
one thing (a tunic), #4 and #5 contradict each other (left or right)."""

import itertools
import json
import re
from collections.abc import Iterator

import pytest

from bench.similar_data import START
from tests.browser.support import Server, import_rows, save_sign_in

pytestmark = pytest.mark.browser

LINES = (
    ("Buy the Deku Shield in Kokiri Forest before entering the Deku Tree.", "seen"),
    ("The Zora Tunic lets Link breathe underwater.", "seen"),
    ("get a deku shield from the kokiri shop first, the Deku Tree needs it", "guessed"),
    ("In the Lost Woods, take the left path at the first fork to reach the meadow.", "seen"),
    ("Lost Woods: the right path at the first fork leads to the meadow.", "dad"),
    ("Buy a Deku Shield in the Kokiri shop before the Deku Tree.", "seen"),
    ("Zora Tunic: Link can breathe underwater with it.", "seen"),
)
GROUPS = ["group-2-7", "group-4-5", "group-1-3-6"]  # best first, as the engine draws them
KEEP_CHOSEN = "Keep the chosen line, retire the others into it"
titles = itertools.count(1)


@pytest.fixture(scope="module")
def server(live_sites, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:  # noqa: ANN001
    with live_sites.serve("frictions-browser") as server:  # the suite's database: SQLite or PostgreSQL
        server.rows = tmp_path_factory.mktemp("frictions-rows")  # type: ignore[attr-defined]
        yield server


# Four more lines about the shield, for a group with lines also close to it and a card of eleven lines.
MORE = (
    ("Kokiri Forest: the shop sells a Deku Shield, buy it before the Deku Tree.", "guessed"),
    ("The Deku Tree needs a shield; the Kokiri shop has one.", "seen"),
    ("Deku Shield burns in fire, buy another in the Kokiri shop.", "seen"),
    ("Deku Nuts stun enemies in the Deku Tree.", "guessed"),
)


def _notebook(server: Server, lines: tuple = LINES) -> str:
    """A fresh notebook of the seven lines (or `lines`), its title."""
    title = f"frictions-{next(titles)}"
    rows = []
    for n, (words, source) in enumerate(lines, start=1):
        by = "dad" if source == "dad" else "pippa"
        rows.append({"op": "add", "n": n, "text": words, "source": source, "by": by, "at": START + n * 60})
    import_rows(server, server.rows / f"{title}.jsonl", rows, title)  # type: ignore[attr-defined]
    return title


@pytest.fixture
def signed_in(browser, server, tmp_path):  # noqa: ANN001, ANN201
    """A session of its own for each test: the reason Dad carries lives in his session."""
    return save_sign_in(browser, server.url, server.password, tmp_path / "state.json")


def _open(browser, server: Server, signed_in: str, *, width: int = 1280, script: bool = True, lines: tuple = LINES):  # noqa: ANN001, ANN202, E501
    """A signed-in page on a fresh notebook's Similar view, its title, and its script errors."""
    context = browser.new_context(
        viewport={"width": width, "height": 844 if width < 600 else 900},
        storage_state=signed_in,
        java_script_enabled=script,
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    title = _notebook(server, lines)
    page.goto(f"{server.url}/notebooks/{title}/?show=similar")
    return context, page, title, errors


def _groups(page) -> list[str]:  # noqa: ANN001
    return page.locator("section.similar-group").evaluate_all("e => e.map(x => x.id)")


def _live(server: Server, title: str) -> dict[int, dict]:
    view = json.loads(server.run("notebook", "view", title, "--json"))
    return {line["n"]: line for line in (view["lines"] if isinstance(view, dict) else view)}


def _into(server: Server, title: str, n: int) -> int | None:
    """The line a retired line is now said by (its retirement's `into`)."""
    return next(e.get("into") for e in _history(server, title, n) if e.get("op") == "strike")


def test_keep_n_retires_the_others_into_it_in_one_action(browser, server, signed_in):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, title, errors = _open(browser, server, signed_in)
    group = page.locator("#group-1-3-6")
    group.get_by_label("Reason", exact=True).fill("said there")
    group.get_by_role("button", name="Keep #1, retire the others into it", exact=True).click()
    expect(page.locator("#group-1-3-6")).to_have_count(0)
    expect(page.locator("#similar .similar-done")).to_contain_text("Kept #1; retired #3, #6 into it.")
    assert page.evaluate("document.activeElement !== null")
    live = _live(server, title)
    assert 1 in live and 3 not in live and 6 not in live
    assert _into(server, title, 3) == 1 and _into(server, title, 6) == 1  # now said by #1
    assert _groups(page) == ["group-2-7", "group-4-5"]
    context.close()
    assert errors == []


def test_every_group_offers_keep_the_chosen_line_even_a_repeat(browser, server, signed_in):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, title, errors = _open(browser, server, signed_in)
    for key in GROUPS:
        expect(page.locator(f"#{key}").get_by_role("button", name=KEEP_CHOSEN)).to_be_visible()
    group = page.locator("#group-2-7")  # a repeat: Dad knows one of them is wrong, so he keeps the other
    group.get_by_label("Keep #7's words", exact=True).check()
    group.get_by_label("Reason", exact=True).fill("#7 is the clearer one")
    group.get_by_role("button", name=KEEP_CHOSEN).click()
    expect(page.locator("#group-2-7")).to_have_count(0)
    live = _live(server, title)
    assert 7 in live and 2 not in live and _into(server, title, 2) == 7
    context.close()
    assert errors == []


def test_a_reason_typed_in_one_group_is_not_offered_in_the_next_unless_he_asks(browser, server, signed_in):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, _title, errors = _open(browser, server, signed_in)
    conflict = page.locator("#group-4-5")
    conflict.get_by_label("Reason", exact=True).fill("the map says left")
    conflict.get_by_role("button", name=KEEP_CHOSEN).click()
    expect(page.locator("#group-4-5")).to_have_count(0)
    for key in ("group-2-7", "group-1-3-6"):
        expect(page.locator(f"#{key}").get_by_label("Reason", exact=True)).to_have_value("")
    tunic = page.locator("#group-2-7")
    tunic.get_by_label("Reason", exact=True).fill("says one thing")
    tunic.get_by_label("Use this reason for the next groups too").check()
    tunic.get_by_role("button", name="Merge", exact=True).click()
    expect(page.locator("#group-2-7")).to_have_count(0)
    shield = page.locator("#group-1-3-6")
    expect(shield.get_by_label("Reason", exact=True)).to_have_value("says one thing")  # he asked for it
    expect(shield.get_by_label("Use this reason for the next groups too")).to_be_checked()
    context.close()
    assert errors == []


def test_the_list_changes_only_where_a_decision_holds_its_lines(browser, server, signed_in):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, title, errors = _open(browser, server, signed_in)
    assert _groups(page) == GROUPS
    # Meanwhile she writes a third tunic line: it joins no group on his page until he looks again.
    server.run("notebook", "add", title, "Wear the Zora Tunic to breathe underwater.", "--source", "seen",
               "--by", "pippa", "--why", "seen")  # fmt: skip
    shield = page.locator("#group-1-3-6")
    shield.get_by_label("leave out #6", exact=True).check()  # #6 is not the same lesson, he judges
    shield.get_by_label("Reason", exact=True).fill("one lesson")
    shield.get_by_role("button", name="Merge", exact=True).click()
    expect(page.locator("#group-1-3-6")).to_have_count(0)
    note = page.locator("#similar .similar-done").inner_text()
    merged = int(re.search(r"into new line #(\d+)", note).group(1))
    # #6, left out, is not paired with the merged line (the same words as #1); the tunic and Lost Woods groups stand.
    assert _groups(page) == ["group-2-7", "group-4-5"]
    assert page.locator(f"#similar [data-n='{merged}']").count() == 0
    expect(page.locator("#similar-drawn")).to_contain_text("no new group was made")
    page.reload()  # the page keeps its groups: the address names the row they were drawn at
    assert _groups(page) == ["group-2-7", "group-4-5"]
    page.locator("#similar-drawn").get_by_role("link", name="Look again").click()
    expect(page.locator("#similar-title")).to_be_visible()
    assert "group-2-7" not in _groups(page) and any(g.startswith("group-2-7-") for g in _groups(page))
    context.close()
    assert errors == []


def test_without_javascript_keep_n_and_the_groups_drawn_hold(browser, server, signed_in):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, title, _errors = _open(browser, server, signed_in, script=False)
    tunic = page.locator("#group-2-7")
    tunic.get_by_label("Reason", exact=True).fill("said there")
    tunic.get_by_role("button", name="Keep #7, retire the others into it", exact=True).click()  # the longer
    expect(page.get_by_text("Kept #7; retired #2 into it.")).to_be_visible()
    assert "drawn=" in page.url
    assert _groups(page) == ["group-4-5", "group-1-3-6"]
    expect(page.locator("#group-1-3-6").get_by_label("Reason", exact=True)).to_have_value("")
    assert 2 not in _live(server, title) and _into(server, title, 2) == 7
    context.close()


def test_by_the_keyboard_at_390_px(browser, server, signed_in):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, title, errors = _open(browser, server, signed_in, width=390)
    group = page.locator("#group-1-3-6")
    group.get_by_label("Reason", exact=True).focus()
    page.keyboard.type("said there")
    page.keyboard.press("Tab")  # the tick that carries the reason
    page.keyboard.press("Space")
    expect(group.get_by_label("Use this reason for the next groups too")).to_be_checked()
    buttons = group.locator(".buttons button")
    widths = buttons.evaluate_all("e => e.map(b => b.getBoundingClientRect().right)")
    assert max(widths) <= 390, widths  # every button within the phone's width
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    group.get_by_role("button", name="Keep #1, retire the others into it", exact=True).focus()
    page.keyboard.press("Enter")
    expect(page.locator("#group-1-3-6")).to_have_count(0)
    assert 3 not in _live(server, title) and _into(server, title, 3) == 1
    expect(page.locator("#group-2-7").get_by_label("Reason", exact=True)).to_have_value("said there")
    context.close()
    assert errors == []


def _history(server: Server, title: str, n: int) -> list[dict]:
    entries = json.loads(server.run("notebook", "history", title, str(n), "--json"))
    return entries["entries"] if isinstance(entries, dict) else entries


def test_leave_out_dims_the_line_and_the_groups_count_follows_at_once(browser, server, signed_in):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, title, errors = _open(browser, server, signed_in)
    group = page.locator("#group-1-3-6")
    expect(group.locator(".group-count")).to_have_text("3 lines")
    group.get_by_label("leave out #6", exact=True).check()
    line = page.locator("#similar-1-3-6-6")
    expect(group.locator(".group-count")).to_have_text("2 lines")
    expect(line.locator(".leave-out")).to_contain_text("left out")
    # Greyed and struck, not faded: its words keep their full contrast.
    assert float(line.locator(".words").evaluate("e => getComputedStyle(e.parentElement).opacity")) == 1
    assert "line-through" in line.locator(".words").evaluate("e => getComputedStyle(e).textDecorationLine")
    grey = "e => getComputedStyle(e).backgroundColor"
    assert line.evaluate(grey) != page.locator("#similar-1-3-6-3").evaluate(grey)
    assert float(page.locator("#similar-1-3-6-3 .words-col").evaluate("e => getComputedStyle(e).opacity")) == 1
    group.get_by_label("left out #6", exact=True).uncheck()
    expect(group.locator(".group-count")).to_have_text("3 lines")
    context.close()
    assert errors == []


def test_leaving_out_the_kept_line_unticks_its_choice_and_keep_n_of_it_is_refused_by_name(browser, server, signed_in):  # noqa: ANN001, E501
    from playwright.sync_api import expect

    context, page, title, errors = _open(browser, server, signed_in)
    group = page.locator("#group-1-3-6")
    expect(group.get_by_label("Keep #1's words", exact=True)).to_be_checked()
    group.get_by_label("leave out #1", exact=True).check()
    expect(group.get_by_label("Keep #1's words", exact=True)).not_to_be_checked()
    group.get_by_label("Reason", exact=True).fill("one lesson")
    group.get_by_role("button", name="Keep #1, retire the others into it", exact=True).click()
    expect(page.locator("#group-1-3-6")).to_contain_text("#1 is left out: take it back in to keep it")
    assert {1, 3, 6} <= set(_live(server, title))  # nothing written
    context.close()
    assert errors == []


def test_an_also_close_line_can_be_chosen_as_the_words_to_keep(browser, server, signed_in):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, title, errors = _open(browser, server, signed_in, lines=LINES + MORE)
    group = page.locator(".similar-group", has=page.locator(".also-close")).first
    close = group.locator(".also-close li.similar-line").first
    n = int(close.get_attribute("data-n"))
    words = close.locator(".words").inner_text()
    before = group.locator(".group-count").inner_text()
    close.get_by_label(f"Keep #{n}'s words", exact=True).check()  # offered like the group's own lines
    expect(close.get_by_label(f"Add #{n}", exact=True)).to_be_checked()  # keeping its words takes it in
    assert int(group.locator(".group-count").inner_text().split()[0]) == int(before.split()[0]) + 1
    group.get_by_label("Reason", exact=True).fill("that one says it")
    group.get_by_role("button", name="Merge", exact=True).click()
    expect(page.locator("#similar .similar-done")).to_contain_text("into new line #")
    merged = int(re.search(r"into new line #(\d+)", page.locator("#similar .similar-done").inner_text()).group(1))
    live = _live(server, title)
    assert n not in live and live[merged]["text"] == words
    context.close()
    assert errors == []


def test_a_merge_is_undone_in_one_step_from_its_note(browser, server, signed_in):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, title, errors = _open(browser, server, signed_in)
    said = {n: line["text"] for n, line in _live(server, title).items()}
    shield = page.locator("#group-1-3-6")
    shield.get_by_label("Reason", exact=True).fill("one lesson")
    shield.get_by_role("button", name="Merge", exact=True).click()
    note = page.locator("#similar-done")
    merged = int(re.search(r"into new line #(\d+)", note.inner_text()).group(1))
    note.get_by_label(f"Reason to undo the merge into #{merged}").fill("three lessons after all")
    note.get_by_role("button", name="Undo this merge").click()
    expect(page.locator("#similar-done")).to_contain_text(f"Undid the merge into #{merged}")
    live = _live(server, title)
    assert merged not in live
    back = {n: line["text"] for n, line in live.items() if n > merged}
    assert sorted(back.values()) == sorted(said[x] for x in (1, 3, 6))  # each line's own words, under a new number
    assert _history(server, title, merged)[-1]["why"] == "three lessons after all"
    for n in back:
        first = _history(server, title, n)[0]
        assert (first["why"], first["into"] in (1, 3, 6)) == ("three lessons after all", True)
    context.close()
    assert errors == []


def test_a_merge_on_the_card_notice_is_undone_without_javascript(browser, server, signed_in):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, title, _errors = _open(browser, server, signed_in, script=False)
    tunic = page.locator("#group-2-7")
    tunic.get_by_label("Reason", exact=True).fill("one lesson")
    tunic.get_by_role("button", name="Merge", exact=True).click()
    merged = max(_live(server, title))
    page.goto(f"{server.url}/notebooks/{title}/?show=retired")
    page.goto(f"{server.url}/notebooks/{title}/lines/2/")
    page.get_by_role("link", name="Undo the merge…").first.click()
    page.locator(f"#undo-merge-{merged}-reason").fill("two lessons")
    page.get_by_role("button", name="Undo the merge", exact=True).click()
    expect(page.get_by_text(f"Undid the merge into #{merged}")).to_be_visible()
    assert merged not in _live(server, title) and {merged + 1, merged + 2} <= set(_live(server, title))
    context.close()


def test_the_chart_counts_a_merge_keeping_her_words_where_her_line_was_first_counted(browser, server, signed_in):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, _title, errors = _open(browser, server, signed_in)
    seen = page.locator("#chart .legend li", has=page.locator(".tag-seen")).locator(".muted")
    assert seen.inner_text() == "5"
    shield = page.locator("#group-1-3-6")  # three lines, #1 seen chosen: the merged line keeps her words, seen
    shield.get_by_label("Reason", exact=True).fill("one lesson")
    shield.get_by_role("button", name="Merge", exact=True).click()
    expect(page.locator("#similar .similar-done")).to_contain_text("(seen)")
    expect(page.locator("#chart .legend li", has=page.locator(".tag-seen")).locator(".muted")).to_have_text("5")
    context.close()
    assert errors == []


def test_marked_not_alike_shows_the_words_and_drops_a_mark_whose_line_is_gone(browser, server, signed_in):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, title, errors = _open(browser, server, signed_in)
    page.locator("#group-2-7").get_by_role("button", name="Not alike").click()
    expect(page.locator("#group-2-7")).to_have_count(0)
    marks = page.locator(".not-alike-marks")
    marks.locator("summary").click()
    expect(marks).to_contain_text("The Zora Tunic lets Link breathe underwater.")
    expect(marks).to_contain_text("Zora Tunic: Link can breathe underwater with it.")
    server.run("notebook", "retire", title, "7", "--by", "dad", "--why", "said by #2")
    page.reload()
    expect(page.locator(".not-alike-marks")).to_have_count(0)  # one line live: the mark hides no group now
    context.close()
    assert errors == []


def test_the_status_message_goes_when_he_leaves_the_similar_view(browser, server, signed_in):  # noqa: ANN001
    from playwright.sync_api import expect

    context, page, _title, errors = _open(browser, server, signed_in)
    page.locator("#group-2-7").get_by_role("button", name="Not alike").click()
    expect(page.locator("#group-2-7")).to_have_count(0)
    page.locator(".not-alike-marks summary").click()
    page.get_by_role("button", name="Offer again").click()
    expect(page.locator("#flash")).to_contain_text("The group is offered again.")
    page.locator("form.toolbar").get_by_label("Show").select_option(index=0)
    expect(page.locator("#similar")).to_have_count(0)
    expect(page.locator("#flash")).to_have_text("")
    context.close()
    assert errors == []


def test_at_390_px_the_bar_the_lines_and_a_group_are_compact(browser, server, signed_in):  # noqa: ANN001
    context, page, title, errors = _open(browser, server, signed_in, width=390, lines=LINES + MORE)
    big = page.locator(".similar-group", has=page.locator(".also-close")).last
    lines = big.locator("li.similar-line")
    heights = lines.evaluate_all("e => e.map(x => x.getBoundingClientRect().height)")
    assert max(heights) <= 155, heights  # a line and its choices: its words under one row (200 px and more before)
    per_line = big.bounding_box()["height"] / lines.count()
    assert per_line <= 190, per_line  # the group, its choices and buttons, per line it offers (over 230 before)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path="/tmp/frictions-similar-390.png", full_page=True)
    page.goto(f"{server.url}/notebooks/{title}/")
    for n in range(1, 7):
        page.locator(f"#line-{n} .pick-hit").click()
    bar = page.locator("#select-form").bounding_box()
    assert bar["height"] <= 211, bar  # a quarter of the screen at most (466 of 844 px before)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for n in range(1, 12):
        if n in (1, 2, 3, 4, 5, 6):
            continue
        line = page.locator(f"#line-{n}")
        words, actions = line.locator(".words").bounding_box(), line.locator(".actions").bounding_box()
        assert actions["y"] >= words["y"] + words["height"] - 1, n  # the words first, the buttons under them
        assert line.bounding_box()["height"] <= 135, (n, line.bounding_box())  # 150 px a line before
    for box in page.locator("#line-7 a.act").all():
        assert box.bounding_box()["height"] >= 44 and box.bounding_box()["width"] >= 44
    page.screenshot(path="/tmp/frictions-card-390.png")
    context.close()
    assert errors == []


def test_a_word_replaced_in_an_edit_shows_apart_from_the_word_struck(browser, server, signed_in):  # noqa: ANN001
    title = f"frictions-{next(titles)}"
    rows = [
        {"op": "add", "n": 1, "text": "the red door opens", "source": "seen", "by": "pippa", "at": START + 60},
        {"op": "edit", "n": 1, "to": "the blue door opens", "by": "pippa", "why": "looked again", "at": START + 120},
    ]
    import_rows(server, server.rows / f"{title}.jsonl", rows, title)  # type: ignore[attr-defined]
    context = browser.new_context(viewport={"width": 1280, "height": 900}, storage_state=signed_in)
    page = context.new_page()
    page.goto(f"{server.url}/notebooks/{title}/lines/1/history/")
    struck, new = page.locator("del", has_text="red").first, page.locator("ins", has_text="blue").first
    gap = new.bounding_box()["x"] - (struck.bounding_box()["x"] + struck.bounding_box()["width"])
    assert gap >= 3, f"'red' and 'blue' run together ({gap:.1f} px apart)"
    context.close()
