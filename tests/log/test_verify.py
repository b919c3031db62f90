"""The verifier on its own: chains forged in memory, each broken in one way."""

from notebooks.log.files import rowformat
from notebooks.log.files.verify import check_rows


def _row(seq: int, op: str, n: int, words: str | None = None, **extra) -> dict:
    row = {
        "seq": seq,
        "op": op,
        "n": n,
        "digest": rowformat.digest_of(words) if words is not None else "",
        "source": extra.pop("source", "seen" if op in ("add", "edit") else ""),
        "by": extra.pop("by", "pippa"),
        "why": extra.pop("why", "seen"),
        "how": extra.pop("how", "retired" if op == "strike" else ""),
        "into": None,
        "at": float(extra.pop("at", seq)),
        "was_at": None,
        "was_by": "",
        "redacts": None,
        "body": words,
    }
    row.update(extra)
    return row


def chain(*rows: dict) -> list[dict]:
    """Link rows as the writers do: each hash covers the row and the hash before it."""
    prev = rowformat.GENESIS
    for row in rows:
        row["prev_hash"] = prev
        row["hash"] = prev = rowformat.row_hash(prev, row)
    return list(rows)


def good() -> list[dict]:
    return chain(
        _row(1, "add", 1, "roll after the second swing"),
        _row(2, "add", 2, "always attack first", source="guessed"),
        _row(3, "edit", 2, "block first, then attack", by="dad", source="dad_correction", why="got her killed"),
        _row(4, "strike", 1, by="dad", why="not about the game"),
    )


def test_an_honest_chain_verifies():
    assert check_rows("zelda", good()) == []


def test_it_finds_a_changed_field():
    rows = good()
    rows[2]["why"] = "she asked"
    assert check_rows("zelda", rows) == ["zelda: seq 3: content does not match its hash (row changed)"]


def test_it_finds_changed_words():
    rows = good()
    rows[0]["body"] = "attack first"
    assert check_rows("zelda", rows) == ["zelda: seq 1: words do not match their digest (words changed)"]


def test_it_finds_a_row_rehashed_after_a_change():
    rows = good()
    rows[1]["by"] = "dad"
    rows[1]["hash"] = rowformat.row_hash(rows[1]["prev_hash"], rows[1])
    assert check_rows("zelda", rows) == ["zelda: seq 3: does not follow the row before it (chain broken)"]


def test_it_finds_a_missing_row():
    rows = good()
    del rows[1]
    problems = check_rows("zelda", rows, rules=False)
    assert problems[:2] == [
        "zelda: seq 3: expected seq 2 (a row is missing or inserted)",
        "zelda: seq 3: does not follow the row before it (chain broken)",
    ]


def test_it_finds_an_inserted_row():
    rows = good()
    forged = _row(3, "add", 3, "dad says attack", by="dad", source="dad", at=2.5)
    forged["prev_hash"] = rows[1]["hash"]
    forged["hash"] = rowformat.row_hash(forged["prev_hash"], forged)
    rows.insert(2, forged)
    problems = check_rows("zelda", rows, rules=False)
    assert "zelda: seq 3: expected seq 4 (a row is missing or inserted)" in problems
    assert "zelda: seq 3: does not follow the row before it (chain broken)" in problems


def test_it_finds_rows_swapped():
    rows = good()
    rows[1], rows[2] = rows[2], rows[1]
    problems = check_rows("zelda", rows, rules=False)
    assert "zelda: seq 3: expected seq 2 (a row is missing or inserted)" in problems
    assert "zelda: seq 3: does not follow the row before it (chain broken)" in problems


def test_it_finds_time_going_backwards_even_when_rehashed():
    rows = chain(*[{k: v for k, v in r.items() if k not in ("hash", "prev_hash")} for r in good()])
    rows[3]["at"] = 0.5
    rows = chain(*rows)
    assert "zelda: seq 4: recorded before the row ahead of it (time went backwards)" in check_rows("zelda", rows)


def test_a_chain_rewritten_from_the_change_onwards_is_caught_by_the_pinned_head():
    honest = good()
    pinned = honest[-1]["hash"]
    forged = good()
    forged[2]["body"] = "attack first, always"
    forged[2]["digest"] = rowformat.digest_of("attack first, always")
    forged = chain(*forged)
    assert check_rows("zelda", forged) == []  # consistent: a chain alone cannot tell
    assert check_rows("zelda", forged, pinned=pinned) == [
        f"zelda: the pinned head {pinned} is not in the chain (rows changed or removed since)"
    ]


def test_a_truncated_chain_is_caught_by_the_pinned_head():
    rows = good()
    pinned = rows[-1]["hash"]
    assert check_rows("zelda", rows[:-1], pinned=pinned) != []
    assert check_rows("zelda", rows, pinned=pinned) == []


def test_a_well_hashed_chain_that_breaks_the_rules_is_caught():
    rows = chain(_row(1, "add", 1, "a line"), _row(2, "edit", 7, "a line that never was", by="dad", why="forged"))
    assert check_rows("zelda", rows) == [
        "zelda: row 2 in log order breaks the notebook's rules: edit of line #7, which does not exist"
    ]


def test_a_number_given_twice_is_caught():
    rows = chain(_row(1, "add", 1, "a line"), _row(2, "add", 1, "another line"))
    problems = check_rows("zelda", rows)
    assert problems == [
        "zelda: row 2 in log order breaks the notebook's rules: a new line takes number 2, not 1 "
        "(numbers are never reused)"
    ]


def test_words_gone_without_a_redaction_are_caught():
    rows = good()
    rows[0]["body"] = None
    assert check_rows("zelda", rows) == ["zelda: seq 1: its words are gone and no redact row names them"]


def test_words_gone_with_a_redaction_verify():
    rows = good()
    digest = rows[0]["digest"]
    rows.append(_row(5, "redact", 1, by="dad", why="a secret", redacts=digest))
    rows = chain(*rows)
    rows[0]["body"] = None
    assert check_rows("zelda", rows) == []


def test_a_redaction_that_left_the_words_is_caught():
    rows = good()
    rows.append(_row(5, "redact", 1, by="dad", why="a secret", redacts=rows[0]["digest"]))
    rows = chain(*rows)
    assert check_rows("zelda", rows) == ["zelda: seq 5: redacted words are still in the database"]


def test_a_redaction_of_words_the_line_never_had_is_caught():
    rows = good()
    rows.append(_row(5, "redact", 2, by="dad", why="a secret", redacts=rows[0]["digest"]))
    rows = chain(*rows)
    rows[0]["body"] = None
    assert "zelda: seq 5: redacts words that no earlier row of line #2 carried" in check_rows("zelda", rows)


def test_a_changed_redaction_target_breaks_the_hash():
    rows = good()
    rows.append(_row(5, "redact", 1, by="dad", why="a secret", redacts=rows[0]["digest"]))
    rows = chain(*rows)
    rows[0]["body"] = None
    rows[4]["redacts"] = rows[2]["digest"]
    assert "zelda: seq 5: content does not match its hash (row changed)" in check_rows("zelda", rows)


def test_hashes_of_rows_without_a_redaction_do_not_depend_on_the_redacts_column():
    row = _row(1, "add", 1, "a line")
    assert rowformat.row_hash(rowformat.GENESIS, row) == rowformat.row_hash(rowformat.GENESIS, {**row, "redacts": None})
    assert rowformat.row_hash(rowformat.GENESIS, row) != rowformat.row_hash(
        rowformat.GENESIS, {**row, "redacts": "ab" * 32}
    )
