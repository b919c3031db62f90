"""POST /api/notebooks/{title}/lines/{n}/redact: the human editor's token removes words for good; agents may not."""

from notebooks.log.identity import wordkeys
from notebooks.log.views import selectors
from notebooks.models import Words

URL = "/api/notebooks/zelda/lines"


def test_the_editor_redacts_a_lines_current_words(zelda, dad_api):
    response = dad_api.post(f"{URL}/2/redact", {"why": "a password"})
    assert response.status_code == 200
    assert response.json() == {"n": 2, "seq": 4, "session": None}
    assert not Words.objects.filter(body="always attack first").exists()
    assert selectors.live_line(zelda, 2).text == "[redacted: a password]"
    lines = dad_api.get(f"{URL}").json()["lines"]
    assert [line["text"] for line in lines if line["n"] == 2] == ["[redacted: a password]"]


def test_it_redacts_by_seq_or_by_digest(zelda, dad_api):
    assert dad_api.post(f"{URL}/1/redact", {"why": "x", "seq": 1}).status_code == 200
    digest = wordkeys.keyed("zelda", "always attack first")[1]
    assert dad_api.post(f"{URL}/2/redact", {"why": "y", "digest": digest}).status_code == 200
    assert selectors.live_line(zelda, 1).text == "[redacted: x]"
    assert selectors.live_line(zelda, 2).text == "[redacted: y]"


def test_an_agent_may_not_redact(zelda, pippa):
    response = pippa.post(f"{URL}/2/redact", {"why": "hide my guess"})
    assert response.status_code == 403
    assert "only the human editor" in response.json()["error"]["message"]
    assert selectors.live_line(zelda, 2).text == "always attack first"


def test_bad_input_is_a_400_and_changes_nothing(zelda, dad_api):
    for body in (
        {},
        {"why": ""},
        {"why": "x", "seq": 0},
        {"why": "x", "digest": "not-a-digest"},
        {"why": "x", "seq": 2, "digest": wordkeys.keyed("zelda", "always attack first")[1]},
        {"why": "x", "seq": 1},  # row 1 is line #1's, not line #2's
        {"why": "x", "colour": "red"},
    ):
        response = dad_api.post(f"{URL}/2/redact", body)
        assert response.status_code == 400, body
        assert response.json()["error"]["message"]
    assert selectors.live_line(zelda, 2).text == "always attack first"


def test_redacting_the_same_words_twice_is_a_409_and_a_missing_line_a_404(zelda, dad_api):
    dad_api.post(f"{URL}/2/redact", {"why": "a password"})
    assert dad_api.post(f"{URL}/2/redact", {"why": "again", "seq": 2}).status_code == 409
    assert dad_api.post(f"{URL}/42/redact", {"why": "x"}).status_code == 404
