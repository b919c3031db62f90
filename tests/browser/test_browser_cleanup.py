"""The design story's cleanup, done as Dad would in a real browser: a labelled 120-line notebook of one game (20
groups of lines that say one thing, 6 contradicting pairs, 8 lines not about the game) cleaned through the card's
Show "Similar lines", counting every action and every typed character.

The bar is 90 actions and 600 typed characters (the figures are in the README).
Dad knows his game: the labels stand for what he knows (which lines say one thing, which side of a contradiction is
true); the page decides nothing for him, and a group the engine got wrong is answered "Not alike" or trimmed.
"""

from collections.abc import Iterator

import pytest

from bench.similar_data import load
from tests.browser.support import Server, Tally, labelled_seed, line_histories, live_lines, true_side

# Only the SQLite part runs it: its site always ran on SQLite, and nothing it tests depends on the database.
pytestmark = [pytest.mark.browser, pytest.mark.vendor("sqlite")]

GAME = "zelda-oot"
TITLE = "zelda-oot"
BAR_ACTIONS, BAR_TYPED = 90, 600  # the bar (today's card without the view: 277 and 3,388)


@pytest.fixture(scope="module")
def messy_server(tmp_path_factory: pytest.TempPathFactory, live_sites) -> Iterator[Server]:  # noqa: ANN001
    seed = labelled_seed(tmp_path_factory.mktemp("cleanup-browser"), GAME, TITLE)
    with live_sites.serve("cleanup-browser", seed) as server:
        yield server


def _reason(dad: Tally, group, reason: str) -> None:  # noqa: ANN001
    """His reason, typed unless the view already offers it (one he asked to give the next groups too, which he
    asks the first time: most groups of a kind go for one reason)."""
    field = group.get_by_label("Reason", exact=True)
    if field.input_value() != reason:
        dad.fill(field, reason)
    carry = group.get_by_label("Use this reason for the next groups too")
    if not carry.is_checked():
        dad.click(carry)


def test_dad_cleans_a_120_line_mess_through_similar_lines_in_few_actions(browser, messy_server):  # noqa: ANN001
    from playwright.sync_api import expect

    data = load(GAME)
    words = {n: text for n, text, _source in data.lines}
    source_of = {n: source for n, text, source in data.lines}
    label = {n: i for i, g in enumerate(data.groups) for n in g["lines"]}  # line -> its labelled group
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    dad = Tally()

    page.goto(f"{messy_server.url}/notebooks/{TITLE}/")  # his bookmark: the sign-in, then the card
    dad.fill(page.get_by_label("Username"), "dad")
    dad.fill(page.get_by_label("Password"), messy_server.password)
    dad.click(page.get_by_role("button", name="Sign in"))
    expect(page.get_by_role("heading", level=1)).to_contain_text(TITLE)
    dad.typed -= len("dad") + len(messy_server.password)  # signing in is not cleaning: its keys are not counted
    dad.choose(page.get_by_label("Show", exact=True), "Similar lines")
    expect(page.locator("#similar-title")).to_be_visible()

    merged: dict[int, tuple[int, list[int]]] = {}  # new line -> (its labelled group, the lines merged into it)
    kept_into: dict[int, list[int]] = {}  # a kept line of a contradiction -> the lines retired into it
    decided = 0
    while page.locator("section.similar-group").count() and decided < 80:  # the view answers each decision anew
        decided += 1
        group = page.locator("section.similar-group").first
        key = group.get_attribute("id")
        numbers = [int(x) for x in group.locator("ol li.similar-line").evaluate_all("e => e.map(x => x.dataset.n)")]
        by_label: dict[int, list[int]] = {}
        for x in numbers:
            if x in label:
                by_label.setdefault(label[x], []).append(x)
        best = max(by_label.values(), key=len, default=[])
        if len(best) < 2:
            dad.click(group.get_by_role("button", name="Not alike"))
            expect(page.locator(f"section#{key}")).to_have_count(0)
            continue
        g = data.groups[label[best[0]]]
        for x in numbers:
            if x not in best:
                dad.click(group.get_by_label(f"leave out #{x}", exact=True))
        offered = [int(x) for x in group.locator("li.close").evaluate_all("e => e.map(x => x.dataset.n)")]
        for x in offered:
            if label.get(x) == label[best[0]] and x not in best:
                dad.click(group.get_by_label(f"Add #{x}", exact=True))  # one the suggestion cut short
                best.append(x)
        if g["kind"] == "conflict":
            keep = true_side(best, words, g["keep"])
            _reason(dad, group, "the other is wrong")
            named = group.get_by_role("button", name=f"Keep #{keep}, retire the others into it", exact=True)
            if named.count():  # the line the view proposes: one press
                dad.click(named)
            else:
                dad.click(group.get_by_label(f"Keep #{keep}'s words", exact=True))
                dad.click(group.get_by_role("button", name="Keep the chosen line, retire the others into it"))
            expect(page.locator(f"section#{key}")).to_have_count(0)
            kept_into.setdefault(keep, []).extend(x for x in best if x != keep)
        else:
            _reason(dad, group, "says one thing")
            chosen = group.locator("input[name=keep]:checked")
            if not chosen.count() or int(chosen.get_attribute("value")) not in best:  # the words of a line left out
                dad.click(group.get_by_label(f"Keep #{min(best)}'s words", exact=True))
            dad.click(group.get_by_role("button", name="Merge", exact=True))
            expect(page.locator(f"section#{key}")).to_have_count(0)
            note = page.locator("#similar .similar-done").inner_text()
            new = int(note.split("into new line #")[1].split()[0].rstrip(".("))
            label[new] = label[best[0]]
            merged[new] = (label[best[0]], best)

    # The lines not about the game are no group: ticked in the list and retired for one reason.
    dad.choose(page.get_by_label("Show", exact=True), "Live lines")
    for x in data.off_topic:
        dad.click(page.locator(f"#pick-{x}"))
    bar = page.locator("#select-form")
    dad.click(bar.get_by_role("button", name="Retire selected"))  # the first press opens the reason
    dad.fill(bar.get_by_label("Reason"), "not about the game")
    dad.click(bar.get_by_role("button", name="Retire selected"))
    expect(page.locator(f"#line-{data.off_topic[0]}.retired-notice")).to_be_visible()

    # What the view did not group: Dad, who knows his game, retires each leftover into the line that says it.
    suggested = (dad.actions, dad.typed)
    leftovers = 0
    before = live_lines(messy_server, TITLE)  # retiring one group's leftovers changes no other group's
    for i, _g in enumerate(data.groups):
        standing = sorted(n for n in before if label.get(n) == i)
        keep = max(standing, default=None)  # the merged line when there is one (numbers only grow)
        for x in standing:
            if x == keep:
                continue
            leftovers += 1
            dad.click(page.locator(f"#line-{x} a.act", has_text="Retire"))
            form = page.locator(f"#line-{x} form")
            dad.fill(form.get_by_label("Reason"), "said there")
            dad.fill(form.get_by_label("Now said by line #"), str(keep))
            dad.click(form.get_by_role("button", name="Retire"))
            expect(page.locator(f"#line-{x}.retired-notice")).to_be_visible()
            kept_into.setdefault(keep, []).append(x)

    live = live_lines(messy_server, TITLE)
    print(
        f"cleanup: {dad.actions} actions, {dad.typed} typed characters, {len(live)} live lines; through Similar "
        f"lines {suggested[0]} and {suggested[1]}, then {leftovers} lines it did not group"
    )
    assert dad.actions <= BAR_ACTIONS and dad.typed <= BAR_TYPED, (dad.actions, dad.typed)

    # Every labelled repeat and contradiction is one live line now; nothing else was lost.
    for i, g in enumerate(data.groups):
        standing = [n for n in live if label.get(n) == i]
        assert len(standing) == 1, (g["kind"], g["lines"], standing)
    assert not set(data.off_topic) & set(live)
    assert len(live) == data.clean()["live_after"]

    # Every merged line names where it came from, with their words; her seen words stayed hers.
    histories = line_histories(messy_server, TITLE, [*merged, *kept_into])
    for new, (_i, sources) in merged.items():
        entries = histories[new]
        came = sorted(x for e in entries for x in (e.get("merged_from") or []))
        assert came == sorted(sources), (new, came, sources)
        froms = {e["from_n"]: e["text"] for e in entries if e.get("from_n")}
        assert all(froms.get(x) == words.get(x, froms.get(x)) for x in sources)
        kept_words = live[new]["text"] if new in live else None
        if kept_words is not None:
            mine = [x for x in sources if words.get(x) == kept_words]
            if mine:
                assert live[new]["source"] == source_of[min(mine)]
    for keep, gone in kept_into.items():
        entries = histories[keep]
        assert set(gone) <= {e["from_n"] for e in entries if e.get("from_n")}  # with what merged into it before
    context.close()
    assert errors == [], errors
