"""The row hash is the sha256 of the previous hash and the row's canonical JSON (sorted keys, no spaces)."""

import hashlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bench import data
from notebooks.log.files import rowformat


def canonical_hash(prev_hash: str, fields: dict) -> str:
    """The definition, written the slow and obvious way."""
    content = {k: fields.get(k) for k in rowformat.HASHED_FIELDS}
    if fields.get("redacts"):
        content["redacts"] = fields["redacts"]
    if fields.get("moved_notebook"):  # a move's two fields, only when set
        content["moved_notebook"], content["moved_n"] = fields["moved_notebook"], fields.get("moved_n")
    if fields.get("proposes"):  # a session's proposal and its landed copy, only when set
        content["proposes"] = fields["proposes"]
    if fields.get("lands") is not None:
        content["lands"] = fields["lands"]
    for k in ("digest", "source", "by", "why", "how", "was_by"):
        content[k] = content[k] or ""
    content["at"] = float(content["at"])
    if content["was_at"] is not None:
        content["was_at"] = float(content["was_at"])
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256((prev_hash + text).encode("utf-8")).hexdigest()


def test_it_hashes_every_kind_of_row_as_the_definition_does():
    rows = [dict(r, seq=i, digest=rowformat.digest_of(str(i))) for i, r in enumerate(data.rows(300, seed=5), start=1)]
    rows += [
        {"seq": 1, "op": "adopt", "n": 3, "at": 5, "was_at": 3, "was_by": 'dåd \u2028 "q"', "why": "é\n", "by": "x"},
        {"seq": 2, "op": "strike", "n": 1, "at": 1.5, "by": "dad", "why": "why", "how": "merged", "into": 4},
        {"seq": 3, "op": "add", "n": 9, "at": 10**10, "by": "", "source": None, "extra": "ignored"},
        {"seq": 4, "op": "strike", "n": 2, "at": 11.0, "by": "dad", "why": "w", "how": "moved", "moved_notebook": "b",
         "moved_n": 7},
        {"seq": 5, "op": "add", "n": 8, "at": 12.0, "by": "dad", "source": "seen", "moved_notebook": 'é "x"',
         "moved_n": 2, "was_by": "pippa", "was_at": 3.0},
        {"seq": 6, "op": "strike", "n": 3, "at": 13.0, "by": "dad", "moved_notebook": "", "moved_n": 4},
        {"seq": 7, "op": "propose", "proposes": "edit", "n": 3, "at": 14.0, "by": "pippa", "why": "w", "digest": "d"},
        {"seq": 8, "op": "edit", "n": 3, "at": 15.0, "by": "pippa", "why": "w", "digest": "d", "lands": 7},
    ]  # fmt: skip
    prev = rowformat.GENESIS
    for row in rows:
        assert rowformat.row_hash(prev, row) == canonical_hash(prev, row)
        prev = rowformat.row_hash(prev, row)


# Any value a field might hold: the written-out form must give the encoder's bytes, or leave it to the encoder.
_texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12) | st.sampled_from(
    ['"', "\\", "\u2028", "é\n\t"]
)
_numbers = st.integers(-(2**70), 2**70) | st.booleans() | st.none()
_times = (
    st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(2**60), 2**60) | st.sampled_from([0, -0.0, 1e300])
)
_fields = st.fixed_dictionaries(
    {
        "seq": _numbers,
        "n": _numbers,
        "into": _numbers | st.floats(allow_nan=False),
        "at": _times,
        "was_at": st.none() | _times,
        "redacts": st.none() | st.just("") | _texts | st.integers(),
        "moved_notebook": st.none() | st.just("") | _texts | st.integers(),
        "moved_n": _numbers,
        "proposes": st.none() | st.just("") | _texts | st.integers(),
        "lands": _numbers,
    },
    optional={k: _texts | st.none() | st.integers() for k in ("op", "by", "why", "how", "digest", "source", "was_by")},
)


@settings(max_examples=500, deadline=None)
@given(_fields)
def test_the_written_out_form_is_the_encoders_for_any_fields(fields):
    assert rowformat.row_hash(rowformat.GENESIS, fields) == canonical_hash(rowformat.GENESIS, fields)


def test_a_row_that_moved_nothing_hashes_as_it_did_before_moves_existed():
    """Pinned: the hashes an add and a strike had before moves existed (computed by the row format of then)."""
    add = {"seq": 1, "op": "add", "n": 1, "at": 1.0, "by": "pippa", "source": "seen", "digest": "d", "why": "w"}
    strike = {"seq": 2, "op": "strike", "n": 1, "at": 2.0, "by": "dad", "why": "w", "how": "retired"}
    first = rowformat.row_hash(rowformat.GENESIS, add)
    assert first == "2f223790cb5511cf1d06fa947868d71873444efcee7b6637a5eb0e6b43f8eda3"
    assert rowformat.row_hash(first, strike) == "e246cb0421d32d5af83cf46dae16274dfe57fe2f6c2fb7975dc0ba69af890b92"
    assert rowformat.row_hash(first, {**strike, "moved_notebook": None, "moved_n": None}) == (
        "e246cb0421d32d5af83cf46dae16274dfe57fe2f6c2fb7975dc0ba69af890b92"
    )


def test_a_row_of_no_session_hashes_as_it_did_before_proposals_existed():
    """Pinned: proposals' two fields are hashed only when set, so every older row keeps its hash."""
    add = {"seq": 1, "op": "add", "n": 1, "at": 1.0, "by": "pippa", "source": "seen", "digest": "d", "why": "w"}
    first = rowformat.row_hash(rowformat.GENESIS, {**add, "proposes": None, "lands": None})
    assert first == "2f223790cb5511cf1d06fa947868d71873444efcee7b6637a5eb0e6b43f8eda3"
    assert rowformat.row_hash(rowformat.GENESIS, {**add, "lands": 0}) != first
    assert rowformat.row_hash(rowformat.GENESIS, {**add, "op": "propose", "proposes": "add"}) != first


def test_a_keyer_keys_words_as_keyed_does(settings):
    from notebooks.log.identity import wordkeys

    for secret in ("", "another secret"):
        settings.NOTEBOOK_WORDS_SECRET = secret
        keyed_here = wordkeys.keyer("zelda")
        for words in ("the guard swings twice", "", "ünïcode ✓"):
            assert keyed_here(words) == wordkeys.keyed("zelda", words) != wordkeys.keyer("hyrule")(words)
