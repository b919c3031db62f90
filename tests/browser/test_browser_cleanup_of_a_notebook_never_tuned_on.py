"""Dad cleans a labelled 120-line notebook the engine was never tuned on (bench/similar_data/minecraft.json: 22
groups that say one thing, 6 contradictions, 6 lines not about the game) in a real browser, to exactly its labelled
end state, counting every action and every typed character; once with a helper brain's suggestions beside the
engine's groups, once with the engine alone. The figures are in docs/card.md, "What a cleanup costs".

The suggestions are posted by examples/suggest_step.py against the live server, its model a scripted stand-in that
knows the labels but errs as a model does: most groups right, one group never found, two groups wrong (a pair of
lines that only share words, and a group with a line of its own mixed in), chosen by a seeded draw.
Dad knows his game: the labels stand for what he knows (which lines say one thing, which side of a contradiction is
true); the page decides nothing for him. A click is a click, a choice a choice, and every typed character counts.
"""

import json
import random
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.similar_data import Labelled, load
from tests.browser.support import Server, Tally, fill_sign_in, labelled_seed, line_histories, live_lines, true_side

# Only the SQLite part runs it: its site always ran on SQLite, and nothing it tests depends on the database.
pytestmark = [pytest.mark.browser, pytest.mark.vendor("sqlite")]

GAME = TITLE = "minecraft"
SUGGESTED_BAR = (60, 400)  # actions, typed characters: with the helper brain's suggestions (issue 31)
ENGINE_BAR = 120  # actions: the engine's groups alone
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def engine_server(tmp_path_factory: pytest.TempPathFactory, live_sites) -> Iterator[Server]:  # noqa: ANN001
    seed = labelled_seed(tmp_path_factory.mktemp("never-tuned-engine"), GAME, TITLE)
    with live_sites.serve("never-tuned-engine", seed) as server:
        yield server


@pytest.fixture(scope="module")
def suggested_server(tmp_path_factory: pytest.TempPathFactory, live_sites) -> Iterator[Server]:  # noqa: ANN001
    seed = labelled_seed(tmp_path_factory.mktemp("never-tuned-suggested"), GAME, TITLE)
    with live_sites.serve("never-tuned-suggested", seed) as server:
        yield server


# ----- the scripted stand-in for the model ---------------------------------------------------------------------


@dataclass(frozen=True)
class Errs:
    """What the stand-in gets wrong: the group it never finds, the two lines of their own it calls one thing, and
    the group it mixes a line of its own into."""

    missing: int  # a labelled group's index
    pair: tuple[str, str]  # the words of two lines of their own
    mixed: int  # a labelled group's index
    intruder: str  # the words of a line of its own


def errs_of(data: Labelled, raw: dict) -> Errs:
    rng = random.Random(f"{GAME} suggestions")
    repeats = [i for i, g in enumerate(data.groups) if g["kind"] == "repeat"]
    missing, mixed = rng.sample(repeats, 2)
    pair = rng.sample(raw["single"], 3)
    return Errs(missing=missing, pair=(pair[0], pair[1]), mixed=mixed, intruder=pair[2])


def stand_in(data: Labelled, errs: Errs, asked: list[str]):  # noqa: ANN201
    """A model that answers from the prompt alone: it finds each line by the words the turn tags with its number,
    and groups them as the labels say, but for `errs`."""

    def model(prompt: str) -> str:
        asked.append(prompt)
        number = {words: int(n) for n, words in re.findall(r"^\[#(\d+) [a-z_]+\] (.*)$", prompt, re.M)}
        words = {n: t for n, t, _ in data.lines}
        assert all(number.get(t) == n for n, t in words.items())  # every line is in the prompt, as numbered
        groups = []
        for i, g in enumerate(data.groups):
            lines = [number[words[n]] for n in g["lines"]]
            if i == errs.missing:
                continue
            if i == errs.mixed:
                lines.append(number[errs.intruder])
            if g["kind"] == "repeat":
                groups.append({"lines": lines, "kind": "repeat", "words": g["keep"], "why": "they say one thing"})
            else:
                keep = number[words[true_side(list(g["lines"]), words, g["keep"])]]
                groups.append({"lines": lines, "kind": "conflict", "keep": keep, "why": "they disagree"})
        groups.insert(len(groups) // 2, {"lines": [number[w] for w in errs.pair], "kind": "repeat",
                                         "why": "both about the same thing"})  # fmt: skip
        groups.append({"lines": list(data.off_topic), "kind": "stray", "why": "not a lesson of the game"})
        return "```json\n" + json.dumps({"groups": groups}) + "\n```"

    return model


def _post_suggestions(server: Server, data: Labelled, errs: Errs) -> list:
    sys.path.insert(0, str(EXAMPLES))
    try:
        import harness
        import suggest_step
    finally:
        sys.path.remove(str(EXAMPLES))
    secret = server.run("notebook", "token", "reflector").strip().splitlines()[-1]
    asked: list[str] = []
    done = suggest_step.step(harness.Notebooks(server.url, secret), TITLE, stand_in(data, errs, asked))
    assert len(asked) == 1 and all(p.said.startswith("suggestion ") for p in done), [p.said for p in done]
    return done


# ----- Dad's hands ---------------------------------------------------------------------------------------------


def _keepable(group: dict, shown: list[int], words: dict[int, str]) -> int:
    """The line of a contradiction Dad keeps among those he can choose (`shown`): the true side's, or a line that
    agrees with it (an "also close" line added in cannot be the one kept)."""
    true = true_side(list(group["lines"]), words, group["keep"])
    wrong = {b if a == true else a for a, b in group["contradicts"] if true in (a, b)}
    return true_side([x for x in shown if x not in wrong], words, group["keep"])


class Cleanup:
    """One cleanup by Dad, with what it did, so the end state can be checked against the labels."""

    def __init__(self, page, server: Server, data: Labelled) -> None:  # noqa: ANN001
        self.page, self.server, self.data = page, server, data
        self.dad = Tally()
        self.words = {n: text for n, text, _ in data.lines}
        self.label = {n: i for i, g in enumerate(data.groups) for n in g["lines"]}  # line -> its labelled group
        self.merged: dict[int, list[int]] = {}  # new line -> the lines merged into it
        self.suggested_merges: set[int] = set()  # the new lines of merges decided on a suggestion
        self.kept_into: dict[int, list[int]] = {}  # a kept line -> the lines retired into it
        self.retired: set[int] = set()
        self.log: list[str] = []  # each decision and what it cost, for the figures' breakdown
        self._since = (0, 0)

    def _mark(self, numbers: list[int], what: str) -> None:
        a, t = self.dad.actions - self._since[0], self.dad.typed - self._since[1]
        self.log.append(f"{self.dad.phase}: {numbers} {what}: {a} actions, {t} typed")
        self._since = (self.dad.actions, self.dad.typed)

    def sign_in(self) -> None:
        from playwright.sync_api import expect

        page, dad = self.page, self.dad
        page.goto(f"{self.server.url}/notebooks/{TITLE}/")  # his bookmark: the sign-in, then the card
        dad.phase = "sign in and open Similar lines"
        fill_sign_in(page, self.server.password)  # signing in is not cleaning: its keys are not counted
        expect(page.get_by_role("heading", level=1)).to_contain_text(TITLE)
        dad.choose(page.get_by_label("Show", exact=True), "Similar lines")
        expect(page.locator("#similar-title")).to_be_visible()

    def _best(self, numbers: list[int]) -> list[int]:
        """The lines of the shown ones that Dad knows say one thing (the largest labelled group among them)."""
        by_label: dict[int, list[int]] = {}
        for x in numbers:
            if x in self.label:
                by_label.setdefault(self.label[x], []).append(x)
        return max(by_label.values(), key=len, default=[])

    def _merged_note(self, best: list[int]) -> None:
        note = self.page.locator("#similar .similar-done").inner_text()
        new = int(note.split("into new line #")[1].split()[0].rstrip(".("))
        self.label[new] = self.label[best[0]]
        self.merged[new] = list(best)

    def suggestions(self) -> None:
        """Each pending suggestion, first shown first, decided as Dad knows his game."""
        from playwright.sync_api import expect

        page, dad = self.page, self.dad
        dad.phase = "suggestions"
        while page.locator("#suggestions section.suggestion").count():
            item = page.locator("#suggestions section.suggestion").first
            key = item.get_attribute("id")
            numbers = [int(x) for x in item.locator("ol li.similar-line").evaluate_all("e => e.map(x => x.dataset.n)")]
            reason = item.get_by_label("Your reason", exact=True)
            if "kind-stray" in (item.get_attribute("class") or ""):
                strays = [x for x in numbers if x in self.data.off_topic]
                for x in numbers:
                    if x not in strays:
                        dad.click(item.get_by_label(f"leave out #{x}", exact=True))
                self._reason(item, reason, "not about the game")
                dad.click(item.get_by_role("button", name="Retire", exact=True))
                self.retired |= set(strays)
                self._mark(numbers, "retired")
            else:
                best = self._best(numbers)
                if len(best) < 2:
                    self._reason(item, reason, "not one thing")
                    dad.click(item.get_by_role("button", name="Not alike", exact=True))
                    expect(page.locator(f"section#{key}")).to_have_count(0)
                    self._mark(numbers, "not alike")
                    continue
                for x in numbers:
                    if x not in best:
                        dad.click(item.get_by_label(f"leave out #{x}", exact=True))
                g = self.data.groups[self.label[best[0]]]
                if g["kind"] == "conflict":
                    keep = _keepable(g, best, self.words)
                    if not item.get_by_label(f"Keep #{keep}", exact=True).is_checked():
                        dad.click(item.get_by_label(f"Keep #{keep}", exact=True))
                    self._reason(item, reason, "the other is wrong")
                    dad.click(item.get_by_role("button", name="Keep the chosen line, retire the others into it"))
                    expect(page.locator(f"section#{key}")).to_have_count(0)
                    self.kept_into.setdefault(keep, []).extend(x for x in best if x != keep)
                    self._mark(numbers, f"kept #{keep}")
                    continue
                self._reason(item, reason, "says one thing")
                dad.click(item.get_by_role("button", name="Merge", exact=True))
                expect(page.locator(f"section#{key}")).to_have_count(0)
                self._merged_note(best)
                self.suggested_merges.add(max(self.merged))
                self._mark(numbers, "merged")
                continue
            expect(page.locator(f"section#{key}")).to_have_count(0)

    def _reason(
        self,
        group,  # noqa: ANN001
        field,  # noqa: ANN001
        reason: str,
        carry: str = "Use this reason for the next groups too",
        more: bool = True,
    ) -> bool:
        """His reason, typed unless the page already offers it; he asks the page to give it to the next ones too,
        where it offers that and `more` are to come (most groups of a kind go for one reason). Whether it will."""
        if field.input_value() != reason:
            self.dad.fill(field, reason)
        tick = group.get_by_label(carry)
        if more and tick.count() and not tick.is_checked():
            self.dad.click(tick)
        return more and bool(tick.count())

    def engine_groups(self) -> None:
        """The engine's groups, best first, each decided or answered Not alike."""
        from playwright.sync_api import expect

        page, dad = self.page, self.dad
        dad.phase = "engine groups"
        decided = 0
        while page.locator("section.similar-group:not(.suggestion)").count() and decided < 120:
            decided += 1
            group = page.locator("section.similar-group:not(.suggestion)").first
            key = group.get_attribute("id")
            numbers = [int(x) for x in group.locator("ol li.similar-line").evaluate_all("e => e.map(x => x.dataset.n)")]
            best = self._best(numbers)
            if len(best) < 2:
                dad.click(group.get_by_role("button", name="Not alike"))
                expect(page.locator(f"section#{key}")).to_have_count(0)
                self._mark(numbers, "not alike")
                continue
            g = self.data.groups[self.label[best[0]]]
            for x in numbers:
                if x not in best:
                    dad.click(group.get_by_label(f"leave out #{x}", exact=True))
            offered = [int(x) for x in group.locator("li.close").evaluate_all("e => e.map(x => x.dataset.n)")]
            for x in offered:
                if self.label.get(x) == self.label[best[0]] and x not in best:
                    dad.click(group.get_by_label(f"Add #{x}", exact=True))  # one the group cut short
                    best.append(x)
            reason = group.get_by_label("Reason", exact=True)
            merged_in = [x for x in best if x in self.merged]
            if g["kind"] == "conflict" or merged_in:
                # A contradiction keeps its true side; a group holding a line already merged keeps that line.
                keep = merged_in[0] if merged_in else _keepable(g, [x for x in best if x in numbers], self.words)
                self._reason(group, reason, "the other is wrong" if g["kind"] == "conflict" else "says one thing")
                named = group.get_by_role("button", name=f"Keep #{keep}, retire the others into it", exact=True)
                if named.count():  # the line the view proposes: one press
                    dad.click(named)
                else:
                    dad.click(group.get_by_label(f"Keep #{keep}'s words", exact=True))
                    dad.click(group.get_by_role("button", name="Keep the chosen line, retire the others into it"))
                expect(page.locator(f"section#{key}")).to_have_count(0)
                self.kept_into.setdefault(keep, []).extend(x for x in best if x != keep)
                self._mark(numbers, f"kept #{keep} of {best}")
            else:
                self._reason(group, reason, "says one thing")
                chosen = group.locator("input[name=keep]:checked")
                if not chosen.count() or int(chosen.get_attribute("value")) not in best:  # a line left out's words
                    dad.click(group.get_by_label(f"Keep #{min(best)}'s words", exact=True))
                dad.click(group.get_by_role("button", name="Merge", exact=True))
                expect(page.locator(f"section#{key}")).to_have_count(0)
                self._merged_note(best)
                self._mark(numbers, f"merged {best}")

    def by_hand(self) -> None:
        """What no group held: the strays ticked and retired for one reason, then each labelled group's lines still
        standing apart retired into the one that says them (the merged line when there is one)."""
        from playwright.sync_api import expect

        page, dad = self.page, self.dad
        dad.phase = "by hand"
        dad.choose(page.get_by_label("Show", exact=True), "Live lines")
        bar = page.locator("#select-form")
        strays = [x for x in self.data.off_topic if x not in self.retired]
        if strays:
            for x in strays:
                dad.click(page.locator(f"#pick-{x}"))
            dad.click(bar.get_by_role("button", name="Retire selected"))  # the first press opens the reason
            dad.fill(bar.get_by_label("Reason"), "not about the game")
            dad.click(bar.get_by_role("button", name="Retire selected"))
            expect(page.locator(f"#line-{strays[0]}.retired-notice")).to_be_visible()
        before = live_lines(self.server, TITLE)  # retiring one group's leftovers changes no other group's
        carried = False  # whether a line's Retire starts with his reason (he asked it to)
        left = sum(1 for n in before if n in self.label) - len(self.data.groups)  # lines he will retire here
        for i, _g in enumerate(self.data.groups):
            standing = sorted(n for n in before if self.label.get(n) == i)
            keep = max(standing, default=None)  # the merged line when there is one (numbers only grow)
            others = [x for x in standing if x != keep]
            if len(others) == 1 or (len(others) == 2 and carried):  # each line's own Retire, the cheaper then
                for x in others:
                    dad.click(page.locator(f"#line-{x} a.act", has_text="Retire"))
                    form = page.locator(f"#line-{x} form")
                    field = form.get_by_label("Reason", exact=True)
                    left -= 1
                    said = "Say this for the next lines I retire too"
                    carried = self._reason(form, field, "said there", said, more=left > 0)
                    dad.fill(form.get_by_label("Now said by line #"), str(keep))
                    dad.click(form.get_by_role("button", name="Retire"))
                    expect(page.locator(f"#line-{x}.retired-notice")).to_be_visible()
            elif others:  # more: ticked, and retired as now said by the one kept
                for x in others:
                    dad.click(page.locator(f"#pick-{x}"))
                dad.click(bar.get_by_role("button", name="Retire selected"))
                dad.fill(bar.get_by_label("Reason"), "said there")
                dad.fill(bar.get_by_label("Now said by line #"), str(keep))
                dad.click(bar.get_by_role("button", name="Retire selected"))
                left -= len(others)
            for x in others:
                expect(page.locator(f"#line-{x}.retired-notice")).to_be_visible()
            if others:
                self.kept_into.setdefault(keep, []).extend(others)
                self._mark(others, f"retired into #{keep}")

    def check_end_state(self) -> dict[int, dict]:
        """Exactly the labelled end state: each group one live line (a contradiction its true side), the strays
        retired, nothing else lost, and every merged line's history naming its origin lines."""
        live = live_lines(self.server, TITLE)
        for i, g in enumerate(self.data.groups):
            standing = [n for n in live if self.label.get(n) == i]
            assert len(standing) == 1, (g["kind"], g["lines"], standing)
            if g["kind"] == "conflict":  # its true side: the line with the label's words, and those agreeing
                true = true_side(list(g["lines"]), self.words, g["keep"])
                wrong = {b if a == true else a for a, b in g["contradicts"] if true in (a, b)}
                said = live[standing[0]]["text"]
                assert said in {self.words[n] for n in g["lines"] if n not in wrong} | {g["keep"]}, (g, said)
        assert not set(self.data.off_topic) & set(live)
        assert len(live) == self.data.clean()["live_after"]
        histories = line_histories(self.server, TITLE, [*self.merged, *self.kept_into])
        for new, sources in self.merged.items():
            came = sorted(x for e in histories[new] for x in (e.get("merged_from") or []))
            assert came == sorted(sources), (new, came, sources)
        for keep, gone in self.kept_into.items():
            assert set(gone) <= {e["from_n"] for e in histories[keep] if e.get("from_n")}, (keep, gone)
        return live

    def said(self, path: str) -> str:
        print("\n".join(self.log))
        parts = ", ".join(f"{k} {a} and {t}" for k, (a, t) in self.dad.steps.items())
        return f"{GAME} cleanup, {path}: {self.dad.actions} actions, {self.dad.typed} typed characters ({parts})"


def _page(browser):  # noqa: ANN001, ANN202
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page, errors


def test_the_measured_notebook_was_never_tuned_on():
    from bench import similar_data

    assert similar_data.TUNED_ON != GAME and GAME in similar_data.GAMES
    assert "never tuned on" in json.loads((similar_data.HERE / f"{GAME}.json").read_text())["about"].casefold()
    data = load(GAME)
    assert (len(data.lines), len(data.off_topic)) == (120, 6)
    assert sorted(g["kind"] for g in data.groups).count("repeat") == 22 and len(data.groups) == 28


def test_with_a_helper_brains_suggestions_dad_cleans_it_in_at_most_60_actions_and_400_characters(
    browser,  # noqa: ANN001
    suggested_server,  # noqa: ANN001
):
    data = load(GAME)
    raw = json.loads((Path(__file__).resolve().parents[2] / "bench/similar_data" / f"{GAME}.json").read_text())
    errs = errs_of(data, raw)
    posted = _post_suggestions(suggested_server, data, errs)
    assert len(posted) == len(data.groups) - 1 + 1 + 1  # all but the missing group, the wrong pair, the strays
    context, page, errors = _page(browser)
    cleanup = Cleanup(page, suggested_server, data)
    cleanup.sign_in()
    cleanup.suggestions()
    cleanup.engine_groups()
    cleanup.by_hand()
    live = cleanup.check_end_state()
    print(cleanup.said("with suggestions"))
    dad = cleanup.dad
    assert dad.actions <= SUGGESTED_BAR[0] and dad.typed <= SUGGESTED_BAR[1], cleanup.said("with suggestions")
    for new in cleanup.suggested_merges:  # a suggested merge keeps the words the helper brain suggested
        group = data.groups[cleanup.label[new]]
        if new in live and group["kind"] == "repeat":
            assert live[new]["text"] == group["keep"], (new, live[new]["text"])
    context.close()
    assert errors == [], errors


def test_with_the_engine_alone_dad_cleans_it_in_at_most_120_actions(browser, engine_server):  # noqa: ANN001
    data = load(GAME)
    context, page, errors = _page(browser)
    cleanup = Cleanup(page, engine_server, data)
    cleanup.sign_in()
    cleanup.engine_groups()
    cleanup.by_hand()
    cleanup.check_end_state()
    print(cleanup.said("the engine alone"))
    assert cleanup.dad.actions <= ENGINE_BAR, cleanup.said("the engine alone")
    context.close()
    assert errors == [], errors
