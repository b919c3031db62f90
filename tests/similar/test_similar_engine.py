"""The similar-lines method on small hand cases: no database."""

from notebooks.similar import engine
from notebooks.similar.engine import Group, contradiction


def lines(*texts: str) -> list[tuple[int, str, str]]:
    return [(n, text, "seen") for n, text in enumerate(texts, start=1)]


def kinds(found: list[Group]) -> dict[tuple[int, ...], str]:
    return {g.lines: g.kind for g in found}


def test_a_paraphrase_is_grouped_as_a_repeat_and_an_unrelated_line_is_not():
    found = engine.groups(lines(
        "Buy the Deku Shield in Kokiri Forest before entering the Deku Tree.",
        "The Zora Tunic lets Link breathe underwater.",
        "get a deku shield from the kokiri shop first, the Deku Tree needs it",
    ))  # fmt: skip
    assert kinds(found) == {(1, 3): "repeat"}


def test_a_number_a_negation_and_a_key_word_make_a_conflict():
    assert contradiction("It takes 4 bombs to break the boulder.", "Only 2 bombs break the boulder.") == "number"
    assert contradiction("The dash can be cancelled by jumping.", "The dash cannot be cancelled.") == "negation"
    assert contradiction("Freezards: hit them with fire arrows.", "Freezards: hit them with ice arrows.") == "key word"
    assert contradiction("Take the left path at the fork.", "Take the right path at the fork.") == "key word"
    assert contradiction("Grubsong: gain soul when hit.", "Grubsong: gain geo when hit.") == "key word"
    # A paraphrase adding a clause of its own, a dropped number and a form of the same word are not contradictions.
    assert contradiction("Soul is gained by striking enemies, not by waiting.", "Nail hits fill the soul.") is None
    assert contradiction("Purchase the shield (40 rupees).", "Buy the Deku Shield first.") is None
    assert contradiction("Saving puts Link at the entrance.", "Save puts Link at the entrance.") is None
    found = engine.groups(lines(
        "In the Lost Woods, take the left path at the first fork to reach the meadow.",
        "Poes vanish if not hit quickly; use the bow from a distance.",
        "Lost Woods: the right path at the first fork leads to the meadow.",
    ))  # fmt: skip
    assert kinds(found) == {(1, 3): "conflict"}


def test_a_conflict_takes_in_the_lines_that_repeat_either_side():
    found = engine.groups(lines(
        "Quick Slash makes nail swings faster.",
        "Dream Nail reads enemies' thoughts.",
        "The Quick Slash charm makes the nail swing faster.",
        "Quick Slash makes nail swings slower but stronger.",
    ))  # fmt: skip
    assert kinds(found) == {(1, 3, 4): "conflict"}


def test_lines_sharing_many_words_but_saying_different_things_are_not_grouped():
    found = engine.groups(lines(
        "Play Zelda's Lullaby at a Triforce symbol to open the way.",
        "The Deku Shield is wooden: fire burns it away.",
        "Saria's Song can be played to talk to Saria from anywhere.",
        "Sheik teaches the warp songs at each temple's entrance.",
    ))  # fmt: skip
    assert found == []


def test_the_order_is_best_first_and_the_same_whatever_order_the_lines_come_in():
    texts = [
        "Gold Skulltulas come out at night; kill them for tokens.",
        "Golden skulltulas appear at night and drop a token.",
        "Hold Z to lock on before swinging; attacks track the target.",
        "Hold Z to lock on before you swing: the attacks track the target.",
        "Spin attack: hold B, then release.",
    ]
    found = engine.groups(lines(*texts))
    # The recall point (0.2) takes the spin line (0.20 and 0.21 to the Z lines) into their group: one "leave out".
    assert [g.lines for g in found] == [(1, 2), (3, 4, 5)]
    assert found[0].score >= found[1].score
    shuffled = list(reversed(lines(*texts)))
    assert engine.groups(shuffled) == found
    assert found[0].as_dict() == {"lines": [1, 2], "kind": "repeat", "score": round(found[0].score, 2)}


def test_nearest_names_the_closest_live_lines_and_nothing_when_none_is_close():
    live = lines(
        "Buy the Deku Shield in Kokiri Forest before entering the Deku Tree.",
        "The Zora Tunic lets Link breathe underwater.",
        "The Deku Shield is wooden: fire burns it away.",
    )
    found = engine.nearest(live, "buy a deku shield in the kokiri shop before the deku tree")
    assert [n for n, _ in found][:1] == [1] and all(s >= engine.NEAREST_AT for _, s in found)
    assert found == sorted(found, key=lambda x: -x[1])
    assert engine.nearest(live, "The emulator froze after loading a state.") == []
    assert engine.nearest([], "anything") == []
    assert len(engine.nearest(live, "deku shield deku tree kokiri zora tunic fire", k=1)) == 1


def test_the_weigher_gives_the_vectorizers_own_weights():
    texts = [t for _, t, _ in lines("Hold Z to lock on.", "Deku nuts stun enemies.", "Lock on with Z always.")]
    vec, _ = engine.tfidf_matrix(texts)
    mine = engine.Weigher(vec).dense("lock on with z before a fight")
    theirs = vec.transform([engine.normalized("lock on with z before a fight")]).toarray().ravel()
    assert abs(mine - theirs).max() < 1e-6


def test_a_line_alike_to_many_is_linked_to_its_closest_only():
    many = [f"Hit the {w} boss with the nail after it slams the ground." for w in "abcdefghijklmnop"]
    _, matrix = engine.tfidf_matrix(many)
    pairs = engine.close_pairs(matrix, 0.1, 3)
    per_line = [sum(i in p for p in pairs) for i in range(len(many))]
    assert pairs and all(i < j for i, j in pairs)
    assert len(pairs) <= 3 * len(many) < len(many) * (len(many) - 1) // 2  # uncapped: every pair
    assert all(n >= 3 for n in per_line)  # each keeps its own 3 closest (and is kept by others' lists)
    assert engine.close_pairs(matrix, 0.1, 100) == engine.close_pairs(matrix, 0.1, len(many))


def test_a_long_chain_of_near_alike_lines_is_cut_before_it_is_clustered(monkeypatch):
    monkeypatch.setattr(engine, "MAX_CLUSTER", 3)
    # a chain 0-1-2-3-4 of middling links, with one strong pair inside it
    edges = {(0, 1): 0.5, (1, 2): 0.9, (2, 3): 0.5, (3, 4): 0.5}
    pieces = engine._pieces(5, edges, 0.4)
    assert [members for members, _ in pieces] == [[1, 2]]
    assert pieces[0][1] == {(1, 2): 0.9}
    monkeypatch.setattr(engine, "MAX_CLUSTER", 10)
    assert [members for members, _ in engine._pieces(5, edges, 0.4)] == [[0, 1, 2, 3, 4]]


def test_common_ngrams_are_dropped_only_in_a_big_notebook():
    small = engine.vectorizer().fit([engine.normalized(t) for t in ("the boss", "the bench", "the map")])
    assert " th" in small.vocabulary_
    assert engine.COMMON >= 100  # a hand-written notebook of about 100 lines keeps every n-gram


def test_two_lines_of_one_cluster_that_differ_in_a_number_make_a_conflict_even_when_their_pair_was_not_kept():
    texts = [
        "Death Defiance saves you from a killing blow 50% of the time.",
        "Death Defiance saves you from a killing blow 10% of the time.",
        "Death Defiance saves you from a killing blow, some of the time.",
    ]
    found = engine.group([(n, t, "seen") for n, t in enumerate(texts, start=1)], {(0, 2): 0.9, (1, 2): 0.9})
    assert [(g.lines, g.kind) for g in found] == [((1, 2, 3), "conflict")]


def test_a_cluster_whose_lines_agree_stays_a_repeat():
    texts = ["Bombs open cracked walls.", "Cracked walls open with a bomb.", "A bomb opens a cracked wall."]
    found = engine.group([(n, t, "seen") for n, t in enumerate(texts, start=1)], {(0, 2): 0.9, (1, 2): 0.9})
    assert [(g.lines, g.kind) for g in found] == [((1, 2, 3), "repeat")]


def test_a_pair_that_differs_in_a_number_is_a_conflict_however_alike_its_words():
    texts = [
        "Death Defiance: a killing blow leaves you at 1 HP 50% of the time.",
        "Death Defiance: a killing blow leaves you at 1 HP 10% of the time.",
        "Bombs open the cracked walls in Dodongo's Cavern.",
    ]
    found = engine.groups([(n, t, "seen") for n, t in enumerate(texts, start=1)])
    assert [(g.lines, g.kind) for g in found] == [((1, 2), "conflict")]
    assert found[0].score > 0.8
