"""Word diffs of a line's versions (card/diffs.py): what an edit inserted and deleted, every word escaped."""

from notebooks.card.diffs import entry_diff, word_diff
from notebooks.log.views.history import Entry


def _entry(seq: int, op: str, text: str | None, *, redacted: bool = False, adopted: bool = False) -> Entry:
    return Entry(seq, op, text, "seen", "pippa", 1.0, "w", "", None, adopted, None, "", None, redacted)


def test_inserted_and_deleted_words_are_marked():
    assert word_diff("roll after the swing", "roll before the second swing") == (
        "roll <del>after</del><ins>before</ins> the <ins>second </ins>swing"
    )
    assert word_diff("same words", "same words") == "same words"
    assert word_diff("", "all new") == "<ins>all new</ins>"


def test_every_piece_is_escaped():
    html = word_diff('a <script>alert(1)</script> "b"', "a <img src=x onerror=alert(2)> & c")
    assert "<script>" not in html and "<img" not in html
    assert "&lt;img" in html and "&amp;" in html and "&lt;script&gt;" in html


def test_only_an_edit_after_words_shows_a_diff():
    entries = [
        _entry(1, "adopt", "old", adopted=True),
        _entry(2, "add", "first words"),
        _entry(3, "edit", "first good words"),
        _entry(4, "strike", "first good words"),
        _entry(5, "edit", "[redacted: a secret]", redacted=True),
    ]
    assert entry_diff(entries, 0) is None and entry_diff(entries, 1) is None and entry_diff(entries, 3) is None
    assert entry_diff(entries, 2) == "first <ins>good </ins>words"
    assert entry_diff(entries, 4) is None


def test_a_word_changed_in_a_long_line_is_marked_alone():
    words = [f"w{i}" for i in range(1000)]
    changed = [*words[:500], "CHANGED", *words[501:]]
    html = word_diff(" ".join(words), " ".join(changed))
    assert html.count("<del>") == 1 and "<del>w500</del><ins>CHANGED</ins>" in html
    assert html.startswith("w0 w1 ") and html.endswith(" w998 w999")


def test_a_long_changed_middle_is_shown_whole_not_matched_word_by_word():
    """Changed middles whose tokens multiply past MATCHED_TOKENS squared: one deletion, one insertion."""
    before = " ".join(f"a{i}" for i in range(400))
    after = " ".join(f"a{i}" if i % 2 else f"b{i}" for i in range(400))
    html = word_diff("same start " + before + " same end", "same start " + after + " same end")
    assert html.count("<del>") == 1 and html.count("<ins>") == 1
    assert html.startswith("same start <del>a0 ") and html.endswith("b398</ins> a399 same end")


def test_a_short_version_against_a_long_one_is_shown_whole_too():
    short = " ".join(f"s{i}" for i in range(100))  # 199 tokens
    long = " ".join(f"l{i}" if i % 3 else f"s{i}" for i in range(1000))  # shares some words, at other places
    html = word_diff(short, long)
    assert html.count("<del>") == 1 and html.count("<ins>") == 1
