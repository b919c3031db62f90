"""Merge with provenance (issue 21): a merge that keeps one line's words keeps its source, "keep one, retire the
others into it", and every line merged or retired into a line shows in that line's history, on the card, in the
CLI, the API and the audit; the vault's file carries it all back."""

import json
import time
from types import SimpleNamespace

import pytest

from notebooks.card import selectors as card_selectors
from notebooks.log import redaction, services
from notebooks.log.files import imports
from notebooks.log.identity.roles import Actor
from notebooks.log.rules import fold
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid, NotFound
from notebooks.log.store import append
from notebooks.log.views import history as history_fold
from notebooks.log.views import selectors
from notebooks.vault import fileformat
from tests.card_helpers import HX, rows, url
from tests.cli.test_cli import notebook as cli

DAD = Actor("dad", editor=True)
SAW = "roll after the second swing"  # line #1, seen, pippa's (the `lines` fixture)
GUESS = "always attack first"  # #2, guessed
RULE = "write only what the game taught you"  # #3, dad


@pytest.fixture
def clock(monkeypatch):  # noqa: ANN001, ANN201
    """The services' clock, moved on by the test (after the fixtures' rows, written at the real time)."""
    state = SimpleNamespace(now=time.time() + 1)
    monkeypatch.setattr(append, "time", SimpleNamespace(time=lambda: state.now))
    return state


def _live() -> dict[int, tuple[str, str, str]]:
    return {x.n: (x.text, x.source, x.by) for x in selectors.view(selectors.get_notebook("zelda"))}


# ----- the rule, in the fold ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("the guard swings twice", fold.MergeSource("seen", kept=1)),  # her words unchanged: hers
        ("a rule of mine", fold.MergeSource("dad", kept=2)),  # his own words unchanged: his
        ("  the guard swings twice\n", fold.MergeSource("seen", kept=1)),  # white space around is not words
        ("the guard swings  twice", fold.MergeSource("dad_correction")),  # inner spaces count
        ("The guard swings twice", fold.MergeSource("dad_correction")),  # so does case
        ("the guard swings twice, then rests", fold.MergeSource("dad_correction")),  # new words: his correction
    ],
)
def test_the_editors_merge_keeps_the_source_of_the_line_whose_words_it_keeps(text, expected):
    lines = [(1, "seen", "the guard swings twice"), (2, "dad", "a rule of mine"), (3, "guessed", "attack")]
    assert fold.merge_source(editor=True, lines=lines, text=text) == expected


def test_of_two_lines_with_the_same_words_the_lower_number_gives_the_source():
    lines = [(7, "guessed", "roll"), (4, "seen", "roll"), (9, "dad", "roll")]
    assert fold.merge_source(editor=True, lines=lines, text="roll") == fold.MergeSource("seen", kept=4)


def test_redacted_words_match_nothing_and_his_own_lines_stay_dad():
    assert fold.merge_source(editor=True, lines=[(1, "seen", None), (2, "seen", "b")], text="").source == (
        "dad_correction"
    )
    assert fold.merge_source(editor=True, lines=[(1, "dad", "a"), (2, "dad", "b")], text="c") == fold.MergeSource("dad")


@pytest.mark.parametrize(
    "sources, text, expected",
    [
        (("seen", "guessed"), "b", "seen"),
        (("guessed", "guessed"), "a", "guessed"),
        (("guessed", "seen"), "new", "seen"),
    ],
)
def test_an_agents_merge_stays_as_it_was(sources, text, expected):
    lines = [(1, sources[0], "a"), (2, sources[1], "b")]
    assert fold.merge_source(editor=False, lines=lines, text=text) == fold.MergeSource(expected)


def test_the_folds_history_names_the_lines_merged_into_a_line():
    row = ("dad", 10.0, "one thing", "", None, None, "", None, False)
    entries = history_fold.history(
        [
            (5, "add", "both", "seen", *row),
            (6, fold.RETIRED_INTO, "a", "seen", "dad", 10.0, "one thing", "merged", 1, None, "", None, False),
            (7, fold.RETIRED_INTO, "b", "guessed", "dad", 10.0, "one thing", "merged", 2, None, "", None, False),
            (9, fold.RETIRED_INTO, "c", "seen", "pippa", 11.0, "said here", "retired", 4, None, "", None, False),
        ],
        3,
    )
    assert entries[0].merged_from == (1, 2)
    assert [(e.op, e.from_n, e.into, e.how, e.text) for e in entries[1:]] == [
        ("retired_into", 1, 3, "merged", "a"),
        ("retired_into", 2, 3, "merged", "b"),
        ("retired_into", 4, 3, "retired", "c"),
    ]


# ----- the services -------------------------------------------------------------------------------------------


def test_dads_merge_keeping_her_seen_words_keeps_her_seen_line(lines):
    written = services.merge(notebook="zelda", numbers=[1, 2], text=SAW, by=DAD, why="one thing")
    assert _live()[written.n] == (SAW, "seen", "dad")


def test_dads_merge_in_new_words_is_his_correction_and_of_his_lines_his_line(lines):
    services.merge(notebook="zelda", numbers=[1, 2], text="roll, never attack first", by=DAD, why="w")
    assert _live()[4][1] == "dad_correction"
    services.add(notebook="zelda", text="save often", source="dad", by=DAD, why="rule")
    services.merge(notebook="zelda", numbers=[3, 5], text="save often; write only the game", by=DAD, why="w")
    assert _live()[6][1] == "dad"


def test_a_source_named_by_the_merge_still_wins(lines):
    services.merge(notebook="zelda", numbers=[1, 2], text=SAW, by=DAD, why="w", source="dad_correction")
    assert _live()[4][1] == "dad_correction"


def test_a_merge_keeping_a_seen_lines_words_leaves_the_cards_seen_count_unchanged(editor_client, lines):
    def seen() -> int:
        return dict(editor_client.get(url()).context["counts"]).get("seen", 0)

    assert seen() == 1
    post = {"n": ["1", "2"], "words": SAW, "reason": "one thing", "action": "merge"}
    assert editor_client.post(url(action="selected"), post).status_code == 302
    assert seen() == 1 and _live()[4] == (SAW, "seen", "dad")
    # New words of his, as before: her seen line becomes his correction.
    services.add(notebook="zelda", text="roll late", source="guessed", by="pippa", why="w")
    post = {"n": ["4", "5"], "words": "roll after the second swing, late", "reason": "w", "action": "merge"}
    editor_client.post(url(action="selected"), post)
    assert seen() == 0


def test_retire_into_keeps_one_and_retires_the_others_into_it(lines):
    services.add(notebook="zelda", text="never roll", source="seen", by="pippa", why="w")
    written = services.retire_into(notebook="zelda", numbers=[2, 4], into=1, by="pippa", why="they contradict #1")
    assert written.n == 1 and len(written.seqs) == 2
    assert sorted(_live()) == [1, 3]
    strikes = [e for n in (2, 4) for e in selectors.history(selectors.get_notebook("zelda"), n) if e.op == "strike"]
    assert [(e.how, e.into, e.why) for e in strikes] == [("retired", 1, "they contradict #1")] * 2


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"numbers": [2, 3], "into": 1, "by": "pippa"}, Forbidden, "Dad's"),  # an agent touches seen/guessed only
        ({"numbers": [2], "into": 9, "by": DAD}, NotFound, "no line #9"),
        ({"numbers": [2, 1], "into": 1, "by": DAD}, Invalid, "the one kept"),
        ({"numbers": [], "into": 1, "by": DAD}, Invalid, "at least one"),
        ({"numbers": [2, 2], "into": 1, "by": DAD}, Invalid, "once"),
        ({"numbers": [2, 3], "into": 1, "by": DAD, "why": " "}, Invalid, "reason"),
        ({"numbers": [2, 3], "into": 1, "by": DAD, "expected": {2: 2, 3: 1}}, Conflict, "changed since"),
    ],
)
def test_retire_into_is_all_or_nothing(lines, kwargs, error, words):
    before = rows()
    with pytest.raises(error, match=words):
        services.retire_into(notebook="zelda", **{"why": "w", **kwargs})
    assert rows() == before


def test_retire_into_refuses_a_retired_kept_line_and_a_retired_line(lines):
    services.retire(notebook="zelda", n=1, by=DAD, why="w")
    with pytest.raises(Invalid, match="#1 is retired"):
        services.retire_into(notebook="zelda", numbers=[2], into=1, by=DAD, why="w")
    with pytest.raises(Conflict, match="#1 is already retired"):
        services.retire_into(notebook="zelda", numbers=[1, 2], into=3, by=DAD, why="w")
    assert sorted(_live()) == [2, 3]
    assert services.retire_into(notebook="zelda", numbers=[2], into=3, by=DAD, why="w", expected={2: 2}).n == 3


# ----- history: the selector, on both databases ---------------------------------------------------------------


@pytest.fixture
def merged(lines, clock):
    """#1 edited, then #1 and #2 merged into #4 keeping #1's words; then #5 retired into #4."""
    services.edit(notebook="zelda", n=1, to=SAW + ", then block", by="pippa", why="better")
    clock.now += 10
    services.merge(notebook="zelda", numbers=[2, 1], text=SAW + ", then block", by=DAD, why="they say one thing")
    services.add(notebook="zelda", text="attack after the swing", source="guessed", by="pippa", why="w")
    services.retire_into(notebook="zelda", numbers=[5], into=4, by="pippa", why="#4 says it")
    return selectors.get_notebook("zelda")


def test_a_merged_lines_history_names_the_lines_it_came_from_with_their_words_then(merged):
    entries = selectors.history(merged, 4)
    assert entries[0].op == "add" and entries[0].merged_from == (2, 1) and entries[0].why == "they say one thing"
    assert (entries[0].source, entries[0].by) == ("seen", "dad")
    assert [(e.op, e.from_n, e.how, e.text, e.source, e.by, e.why) for e in entries[1:]] == [
        ("retired_into", 2, "merged", GUESS, "guessed", "dad", "they say one thing"),
        ("retired_into", 1, "merged", SAW + ", then block", "seen", "dad", "they say one thing"),  # its edited words
        ("retired_into", 5, "retired", "attack after the swing", "guessed", "pippa", "#4 says it"),
    ]
    assert all(e.into == 4 for e in entries[1:])


def test_a_struck_lines_redacted_words_read_as_their_mark_in_the_kept_lines_history(merged):
    redaction.redact(notebook="zelda", n=2, by=DAD, why="a secret")
    entry = next(e for e in selectors.history(merged, 4) if e.from_n == 2)
    assert (entry.text, entry.redacted) == ("[redacted: a secret]", True)


def test_the_struck_lines_own_history_is_unchanged(merged):
    assert [(e.op, e.how, e.into) for e in selectors.history(merged, 1)] == [
        ("add", "", None),
        ("edit", "", None),
        ("strike", "merged", 4),
    ]


def test_a_view_read_before_the_merge_stays_as_it_was(lines, clock):
    nb = selectors.get_notebook("zelda")
    cut = clock.now
    then = [(x.n, x.text, x.source, x.by) for x in selectors.view(nb, until=cut)]
    clock.now += 100
    services.merge(notebook="zelda", numbers=[1, 2], text=SAW, by=DAD, why="w")
    assert [(x.n, x.text, x.source, x.by) for x in selectors.view(nb, until=cut)] == then
    assert then == [(1, SAW, "seen", "pippa"), (2, GUESS, "guessed", "pippa"), (3, RULE, "dad", "dad")]
    assert [(x.n, x.source, x.by) for x in selectors.view(nb)] == [(3, "dad", "dad"), (4, "seen", "dad")]


def test_the_preview_says_which_source_a_merge_would_give(lines):
    nb = selectors.get_notebook("zelda")
    assert selectors.merge_source(nb, [1, 2], SAW) == fold.MergeSource("seen", kept=1)
    assert selectors.merge_source(nb, [1, 2], "new words") == fold.MergeSource("dad_correction")
    assert selectors.merge_source(nb, [1, 2], GUESS, editor=False) == fold.MergeSource("seen")
    assert "stays pippa's seen line" in card_selectors.merge_preview(nb, [1, 2], SAW)
    assert "becomes Dad's correction" in card_selectors.merge_preview(nb, [1, 2], "new words")
    assert "Tick at least two" in card_selectors.merge_preview(nb, [3, 3], RULE)  # one line: asks for two
    services.add(notebook="zelda", text="save often", source="dad", by=DAD, why="rule")
    assert "this stays Dad's line" in card_selectors.merge_preview(nb, [3, 4], RULE)
    assert "every merged line was his" in card_selectors.merge_preview(nb, [3, 4], "both rules")


# ----- the API, the CLI, the card, the audit --------------------------------------------------------------------


def test_the_apis_history_answer_names_the_merged_lines(merged, pippa):
    body = pippa.get("/api/notebooks/zelda/lines/4/history").json()
    add, *others = body["entries"]
    assert (add["op"], add["merged_from"], add["from_n"], add["why"]) == ("add", [2, 1], None, "they say one thing")
    assert [(e["op"], e["from_n"], e["into"], e["how"], e["text"]) for e in others] == [
        ("retired_into", 2, 4, "merged", GUESS),
        ("retired_into", 1, 4, "merged", SAW + ", then block"),
        ("retired_into", 5, 4, "retired", "attack after the swing"),
    ]
    struck = pippa.get("/api/notebooks/zelda/lines/1/history").json()["entries"]
    assert all(e["from_n"] is None and e["merged_from"] == [] for e in struck)


def test_the_cli_history_names_the_merged_lines(merged):
    out, _ = cli("history", "zelda", "4")
    first, *others = out.splitlines()
    assert f"add     by dad: (merged from #2, #1) [seen] {SAW}, then block  (why: they say one thing)" in first
    assert f"merged  by dad: from #2: [guessed] {GUESS}" in others[0]
    assert f"merged  by dad: from #1: [seen] {SAW}, then block" in others[1]
    assert "retired by pippa: #5 into this: [guessed] attack after the swing  (why: #4 says it)" in others[2]
    as_json = json.loads(cli("history", "zelda", "4", "--json")[0])
    assert [e["from_n"] for e in as_json] == [None, 2, 1, 5] and as_json[0]["merged_from"] == [2, 1]


def test_the_cards_history_names_the_merged_lines_and_their_words(editor_client, merged):
    html = editor_client.get(url(4, "history"), **HX).content.decode()
    assert "merged from <a" in html and 'href="/notebooks/zelda/lines/2/history/">#2</a>, <a' in html
    assert html.count("they say one thing") == 1  # the merge's reason, once, on the merged line's add
    assert GUESS in html and SAW + ", then block" in html
    assert '<a href="/notebooks/zelda/lines/5/history/">#5</a> retired into this' in html
    assert "attack after the swing" in html and "#4 says it" in html
    # Nothing of another line is offered to put back or redact from here.
    assert "seq=6" not in html and "seq=7" not in html


def test_the_note_naming_the_merged_lines_survives_a_reload(editor_client, lines):
    post = {"n": ["1", "2"], "words": SAW, "reason": "one thing", "action": "merge"}
    editor_client.post(url(action="selected"), post, **HX)
    html = editor_client.get(url(4, "history")).content.decode()  # a new page, no note from the merge
    assert "merged from" in html and ">#1</a>" in html and ">#2</a>" in html and GUESS in html


def test_the_audit_shows_the_words_of_both_lines_of_a_strike_into_another(editor_client, merged):
    redaction.redact(notebook="zelda", n=2, by=DAD, why="a secret")
    html = editor_client.get("/audit/").content.decode()
    assert "#1 said:</span> " + SAW + ", then block" in html
    assert "#4, the merged line, then:</span> " + SAW + ", then block" in html
    assert "#2 said:</span> [redacted: a secret]" in html
    assert "#5 said:</span> attack after the swing" in html and "#4, then:</span>" in html


def test_the_selection_form_previews_the_source_without_javascript(editor_client, lines):
    before = rows()
    post = {"n": ["1", "2"], "words": SAW, "reason": "", "action": "merge", "preview": "1"}
    response = editor_client.post(url(action="selected"), post)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" in html and rows() == before
    assert "these are #1&#x27;s words unchanged: this stays pippa&#x27;s seen line" in html
    assert 'id="pick-1" aria-label="Select line #1" checked' in html and SAW in html  # ticks and words kept
    assert "A reason is required" not in html and 'class="box selection open"' in html
    post["words"] = "roll, then block"
    html = editor_client.post(url(action="selected"), post, **HX).content.decode()
    assert html.startswith('<p class="help merge-source" id="merge-source"') and "Dad&#x27;s correction" in html
    assert rows() == before


# ----- the vault's file -------------------------------------------------------------------------------------------


def test_a_merge_and_a_retire_into_go_through_the_vault_file_and_back(merged):
    redaction.redact(notebook="zelda", n=5, by=DAD, why="a secret")
    data = fileformat.canonical_bytes(merged)
    imports.import_notebook(title="zelda-copy", lines=data.decode().splitlines(), by="dad")
    copy = selectors.get_notebook("zelda-copy")
    assert fileformat.canonical_bytes(copy) == data  # every row, its seq and its hash, the same
    assert selectors.view(copy) == selectors.view(merged)
    assert selectors.view(copy)[-1].source == "seen" and selectors.view(copy)[-1].by == "dad"
    assert selectors.head(copy) == selectors.head(merged)
    assert [selectors.history(copy, n) for n in range(1, 6)] == [selectors.history(merged, n) for n in range(1, 6)]
    add = next(r for r in map(json.loads, data.splitlines()) if r["op"] == "add" and r["n"] == 4)
    assert (add["op"], add["by"], add["source"]) == ("add", "dad", "seen") and "restores" not in add
