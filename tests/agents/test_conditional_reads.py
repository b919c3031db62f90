"""The API's turn, lines, rows and history answer with an ETag; If-None-Match with it answers 304 after one head
lookup while nothing that decides the answer changed, and each live answer is kept per head and reader's view without
ever crossing readers whose views differ (agents/conditional.py)."""

import itertools
import json
import time

import pytest

from notebooks.agents import conditional
from notebooks.log import redaction, services
from notebooks.log.files import imports
from notebooks.log.identity import wordkeys
from notebooks.log.views import kept
from notebooks.sessions import leases
from tests.agent_helpers import DAD

READS = [
    "/api/notebooks/zelda/turn",
    "/api/notebooks/zelda/lines",
    "/api/notebooks/zelda/rows",
    "/api/notebooks/zelda/lines/1/history",
]
TURN = "/api/notebooks/zelda/turn"
LINES = "/api/notebooks/zelda/lines"
PENDING = "the east gate opens at dawn"


def _get(api, path, tag=None):  # noqa: ANN001, ANN202
    headers = {"HTTP_AUTHORIZATION": f"Bearer {api.secret}"}
    if tag is not None:
        headers["HTTP_IF_NONE_MATCH"] = tag
    return api.client.get(path, **headers)


def _tag(api, path):  # noqa: ANN001, ANN202
    answer = _get(api, path)
    assert answer.status_code == 200 and answer["ETag"].startswith('"')
    return answer["ETag"]


def _add(api, text, why="seen it"):  # noqa: ANN001, ANN202
    answer = api.post("/api/notebooks/zelda/lines", {"text": text, "source": "seen", "why": why})
    assert answer.status_code == 201, answer.content
    return answer.json()


def _take(api):  # noqa: ANN001, ANN202
    answer = api.post("/api/sessions", {"notebook": "zelda", "plan": "the gates"})
    assert answer.status_code == 201, answer.content
    return answer.json()["id"]


@pytest.mark.parametrize("path", READS)
def test_an_unchanged_notebook_answers_304_with_its_tag_and_no_body(zelda, pippa, path):
    tag = _tag(pippa, path)
    again = _get(pippa, path, tag)
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == tag
    assert _get(pippa, path, f"W/{tag}").status_code == 304  # If-None-Match compares weakly
    assert _get(pippa, path, f'"nope", {tag}').status_code == 304  # any tag of a list
    assert _get(pippa, path, "*").status_code == 200  # no lookup says whether a line's history exists


@pytest.mark.parametrize("path", READS)
def test_a_wrong_or_old_tag_answers_200_with_the_answer_and_its_tag(zelda, pippa, path):
    tag = _tag(pippa, path)
    for sent in ('"not-a-tag"', "garbage", ""):
        answer = _get(pippa, path, sent)
        assert answer.status_code == 200 and answer["ETag"] == tag and answer.json()["notebook"] == "zelda"
    _add(pippa, "the west gate stays shut")
    answer = _get(pippa, path, tag)
    assert answer.status_code == 200 and answer["ETag"] != tag


def _append_through_the_vault(text: str) -> None:
    row = {"op": "add", "n": 4, "text": text, "source": "seen", "why": "w", "at": time.time()}
    row["salt"] = wordkeys.salt_of("zelda", text)
    imports.append_rows(notebook="zelda", lines=[json.dumps(row)], by_default="pippa")


WRITES = {
    "an agent's add": lambda: services.add(notebook="zelda", text="gate", source="seen", by="reflector", why="w"),
    "dad's edit": lambda: services.edit(notebook="zelda", n=1, to="the guard swings thrice", by=DAD, why="w"),
    "a retire": lambda: services.retire(notebook="zelda", n=2, by="pippa", why="wrong"),
    "a row through the vault": lambda: _append_through_the_vault("the vault's own line"),
    "a redaction": lambda: redaction.redact(notebook="zelda", n=2, by=DAD, why="a guess, not a lesson"),
}


@pytest.mark.parametrize("write", list(WRITES))
def test_any_write_by_anyone_gives_every_read_200_with_a_new_tag(zelda, pippa, dad, write):
    tags = {path: _tag(pippa, path) for path in READS}
    WRITES[write]()
    for path, tag in tags.items():
        answer = _get(pippa, path, tag)
        assert answer.status_code == 200 and answer["ETag"] != tag, path
        assert _get(pippa, path, answer["ETag"]).status_code == 304, path


def test_the_new_answer_after_a_write_is_read_whoever_read_it_before(zelda, pippa, reflector):
    before = _get(reflector, TURN)
    _append_through_the_vault("the vault's own line")  # no fold into this process's kept view: the head says
    for api in (reflector, pippa):
        answer = _get(api, TURN, before["ETag"])
        assert answer.status_code == 200 and "the vault's own line" in answer.json()["text"]


def test_a_holders_tag_differs_from_another_readers_and_changes_when_she_lands(zelda, pippa, reflector):
    others = _tag(reflector, TURN)
    assert _tag(pippa, TURN) == others  # the same view: the same answer, the same tag
    sid = _take(pippa)
    held = _tag(pippa, TURN)
    assert held != others and _tag(reflector, TURN) == others  # a take writes no row: only her view changed
    assert _get(pippa, TURN, held).status_code == 304
    assert _get(pippa, TURN, others).status_code == 200
    assert _get(reflector, TURN, held).status_code == 200
    _add(pippa, PENDING)
    pending = _get(pippa, TURN, held)
    assert pending.status_code == 200 and PENDING in pending.json()["text"]
    landed = pippa.post(f"/api/sessions/{sid}/land", {"summary": "a gate"})
    assert landed.status_code == 200
    after = _get(pippa, TURN, pending["ETag"])
    assert after.status_code == 200 and PENDING in after.json()["text"]
    assert after["ETag"] == _tag(reflector, TURN)  # landed: her view is everyone's again


def test_the_tag_changes_when_her_session_lapses(zelda, pippa, monkeypatch, settings):
    settings.NOTEBOOK_SESSION_TTL = 60
    clock = [time.time()]
    monkeypatch.setattr(leases, "now", lambda: clock[0])
    _take(pippa)
    _add(pippa, PENDING)
    held = _get(pippa, TURN)
    assert PENDING in held.json()["text"]
    assert _get(pippa, TURN, held["ETag"]).status_code == 304
    clock[0] += 61  # no call of hers for longer than the lease: it lapsed, though no event says so yet
    lapsed = _get(pippa, TURN, held["ETag"])
    assert lapsed.status_code == 200 and PENDING not in lapsed.json()["text"]


@pytest.mark.parametrize("path", [TURN, LINES])
def test_a_lapsed_holders_kept_view_crosses_no_other_reader(zelda, pippa, reflector, monkeypatch, settings, path):
    """A lapsed session is her own view (its pending lines listed as lapsed): kept apart from everyone's, in either
    order of reading, and never the open view it was before."""
    settings.NOTEBOOK_SESSION_TTL = 60
    clock = [time.time()]
    monkeypatch.setattr(leases, "now", lambda: clock[0])
    _take(pippa)
    _add(pippa, PENDING)
    opened = _get(pippa, path)
    clock[0] += 61
    for order in ((pippa, reflector), (reflector, pippa)):
        conditional.forget()
        kept.forget()
        answers = [_get(api, path) for api in order]
        mine, others = (answers[0], answers[1]) if order[0] is pippa else (answers[1], answers[0])
        assert mine.json()["session"]["state"] == "lapsed"
        assert [x["text"] for x in mine.json()["lapsed"]] == [PENDING]
        assert others.json()["session"] is None and PENDING not in others.content.decode()
        assert len({mine["ETag"], others["ETag"], opened["ETag"]}) == 3
        again = [_get(api, path) for api in order]  # from what is kept
        assert [a.content for a in again] == [a.content for a in answers]


def test_a_304_folds_nothing_and_makes_no_answer(zelda, pippa, monkeypatch, django_assert_num_queries):
    tags = {path: _tag(pippa, path) for path in READS}

    def refused(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("a 304 folded or made an answer")

    for name in ("with_live", "past", "live"):
        monkeypatch.setattr(kept, name, refused)
    monkeypatch.setattr(conditional, "rendered", refused)
    for path, tag in tags.items():
        # The token, the notebook, its head and whether she holds a session on it: one statement before the API runs
        # (a line's history: the API's sign-in, then the rest in one).
        with django_assert_num_queries(2 if path.endswith("/history") else 1):
            assert _get(pippa, path, tag).status_code == 304


def test_a_full_read_after_another_readers_is_the_answer_kept_at_that_head(zelda, pippa, reflector, dad_api):
    first = _get(reflector, LINES)
    for api in (pippa, dad_api):
        assert _get(api, LINES).content == first.content
    assert conditional.kept_count() == 1
    _add(pippa, "the west gate stays shut")
    assert "the west gate stays shut" in _get(dad_api, LINES).json()["lines"][-1]["text"]
    assert conditional.kept_count() == 1  # the notebook's answers at the old head are dropped


def test_a_full_read_of_a_kept_answer_folds_nothing(zelda, pippa, reflector, monkeypatch, django_assert_num_queries):
    _get(reflector, TURN)

    def refused(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("a kept answer was made again")

    monkeypatch.setattr(kept, "with_live", refused)
    monkeypatch.setattr(conditional, "rendered", refused)
    # The token, her first call's renewal of any lease of hers, then the head and her session in one statement.
    with django_assert_num_queries(3):
        answer = _get(pippa, TURN)
    assert answer.status_code == 200 and "[#1 seen] the bridge guard swings twice" in answer.json()["text"]


def _views(pippa, reflector, dad_api):  # noqa: ANN001, ANN202
    return {"pippa": pippa, "reflector": reflector, "dad": dad_api}


@pytest.mark.parametrize("path", [TURN, LINES])
def test_no_kept_answer_crosses_readers_whose_views_differ_in_any_order(zelda, pippa, reflector, dad_api, path):
    """Pippa holds a session with a pending add; Reflector and Dad read the log as it is. At one head, in every
    order, each gets the view that is his or hers, and after a write everyone's next read changes."""
    readers = _views(pippa, reflector, dad_api)
    _take(pippa)
    _add(pippa, PENDING)
    for order in itertools.permutations(readers):
        conditional.forget()
        kept.forget()
        answers = {who: _get(readers[who], path) for who in order}
        assert all(answer.status_code == 200 for answer in answers.values())
        assert PENDING in answers["pippa"].content.decode(), order
        assert PENDING not in answers["reflector"].content.decode(), order
        assert answers["dad"].content == answers["reflector"].content, order  # Dad's view is everyone's
        assert answers["dad"]["ETag"] == answers["reflector"]["ETag"] != answers["pippa"]["ETag"]
        again = {who: _get(readers[who], path) for who in reversed(order)}  # now from what is kept
        assert {who: a.content for who, a in again.items()} == {who: a.content for who, a in answers.items()}
    tags = {who: answers[who]["ETag"] for who in readers}
    services.add(notebook="zelda", text="rest at every camp", source="dad", by=DAD, why="a hint")
    for who, api in readers.items():
        answer = _get(api, path, tags[who])
        assert answer.status_code == 200 and "rest at every camp" in answer.content.decode(), who
    assert PENDING in _get(pippa, path).content.decode()
    assert PENDING not in _get(reflector, path).content.decode()


def test_a_frozen_read_is_tagged_by_the_row_it_stands_at_and_its_redactions(zelda, pippa, dad):
    until = str(time.time() + 0.001)
    time.sleep(0.01)
    path = f"{LINES}?until={until}"
    tag = _tag(pippa, path)
    _add(pippa, "written after the frozen time")
    assert _get(pippa, path, tag).status_code == 304  # a later row is not in that past view
    redaction.redact(notebook="zelda", n=2, by=DAD, why="a guess, not a lesson")
    answer = _get(pippa, path, tag)  # the past view now shows the redaction's mark
    assert answer.status_code == 200 and answer["ETag"] != tag
    assert "[redacted: a guess, not a lesson]" in answer.content.decode()
    assert _get(pippa, path, answer["ETag"]).status_code == 304


def test_a_redaction_leaves_its_words_in_no_kept_answer(zelda, pippa, dad, django_capture_on_commit_callbacks):
    assert "always attack first" in _get(pippa, LINES).content.decode()
    assert conditional.kept_count() == 1
    with django_capture_on_commit_callbacks(execute=True):
        redaction.redact(notebook="zelda", n=2, by=DAD, why="a guess, not a lesson")
    assert conditional.kept_count() == 0


def test_a_refused_read_is_refused_as_before(zelda, pippa):
    assert _get(pippa, "/api/notebooks/zeldo/turn", '"x"').status_code == 404
    assert _get(pippa, "/api/notebooks/zelda/lines/99/history", "*").status_code == 404
    assert _get(pippa, f"{TURN}?until=not-a-time").status_code == 400
    assert _get(pippa, "/api/notebooks/zelda/lines/99/history").status_code == 404


FAST = [TURN, LINES, "/api/notebooks/zelda/rows", f"{LINES}?limit=5"]


@pytest.mark.parametrize("path", FAST)
def test_an_unchanged_live_read_is_answered_before_the_api_runs(zelda, pippa, monkeypatch, path):
    tag = _tag(pippa, path)

    def refused(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("the API ran for an unchanged read")

    monkeypatch.setattr(conditional, "stands", refused)
    again = _get(pippa, path, tag)
    assert again.status_code == 304 and again["ETag"] == tag


@pytest.mark.parametrize("path", FAST)
def test_a_304_before_the_api_has_the_headers_of_the_apis_own(zelda, pippa, monkeypatch, path):
    tag = _tag(pippa, path)
    early = _get(pippa, path, tag)
    monkeypatch.setattr(conditional, "unchanged", lambda request: None)
    late = _get(pippa, path, tag)
    assert early.status_code == late.status_code == 304
    assert sorted(early.headers.items()) == sorted(late.headers.items())


def test_an_unchanged_turn_answered_early_still_notes_that_it_was_read(zelda, pippa):
    from notebooks.log.views import turn_reads

    tag = _tag(pippa, TURN)
    turn_reads.forget()
    TurnRead = turn_reads.TurnRead
    TurnRead.objects.all().delete()
    assert _get(pippa, TURN, tag).status_code == 304
    assert list(TurnRead.objects.values_list("by", flat=True)) == ["pippa"]


def test_a_revoked_tokens_unchanged_read_is_refused_not_answered_304(zelda, pippa):
    from notebooks.agents import tokens

    tag = _tag(pippa, TURN)
    tokens.revoke(actor="pippa", why="test")
    again = _get(pippa, TURN, tag)
    assert again.status_code == 401 and "ETag" not in again


def test_a_holder_an_unknown_token_a_frozen_read_and_an_unknown_title_go_on_to_the_api(zelda, pippa, monkeypatch):
    tag = _tag(pippa, TURN)
    seen = []
    real = conditional.stands
    monkeypatch.setattr(conditional, "stands", lambda *a, **k: seen.append(a[1]) or real(*a, **k))
    assert pippa.client.get(TURN, HTTP_AUTHORIZATION="Bearer nbk_unknown", HTTP_IF_NONE_MATCH=tag).status_code == 401
    assert _get(pippa, "/api/notebooks/zeldo/turn", tag).status_code == 404
    assert _get(pippa, f"{TURN}?until=2020-01-01", tag).status_code == 200
    _take(pippa)
    held = _get(pippa, TURN, _tag(pippa, TURN))
    assert held.status_code == 304
    # The unknown token refused by the API's own sign-in; the unknown title, the frozen read and the holder's two
    # reads (her full read, then her unchanged one) read by the API.
    assert seen == ["zeldo", "zelda", "zelda", "zelda"]
