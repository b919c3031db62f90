"""The labelled notebooks (bench/similar_data) say which lines are off topic: every one of them, none twice."""

import json

import pytest

from bench import similar_data


@pytest.mark.parametrize("game", similar_data.GAMES)
def test_every_off_topic_line_of_a_labelled_notebook_is_named(game):
    raw = json.loads((similar_data.HERE / f"{game}.json").read_text(encoding="utf-8"))
    data = similar_data.load(game)
    words = {n: text for n, text, _ in data.lines}
    assert sorted(words[n] for n in data.off_topic) == sorted(raw["off_topic"])
    assert data.clean()["live_after"] == len(raw["single"]) + len(raw["groups"])
