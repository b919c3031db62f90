"""Dad's decision on /sessions/, without JavaScript and with htmx: land a session as his approval or discard it,
each with his reason; the editor only."""

import pytest
from django.test import Client

from notebooks.log import services
from notebooks.log.identity.roles import Actor
from notebooks.log.rules import fold
from notebooks.log.store import append as log_append
from notebooks.log.views import selectors
from notebooks.models import SessionEvent
from notebooks.sessions import services as sessions

PIPPA = Actor("pippa")
LIVE_BEFORE = ["the bridge guard swings twice", "always attack first", "block first, then attack"]
HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "session-1"}


@pytest.fixture
def refused(zelda) -> int:  # noqa: ANN001
    """Pippa's session that retired two of the three live lines without a successor: its land was refused."""
    taken = sessions.take(notebook="zelda", plan="tidy the bridge lines", by=PIPPA)
    for n in (1, 2):
        services.retire(notebook="zelda", n=n, by=PIPPA, why="stale")
    with pytest.raises(sessions.GateRefused):
        sessions.land(session=taken.id, summary="dropped two", by=PIPPA)
    return taken.id


def _kinds(sid: int) -> list[str]:
    return list(SessionEvent.objects.filter(session_id=sid).order_by("seq").values_list("kind", flat=True))


def test_the_page_shows_a_refused_session_with_its_reasons_and_dads_two_decisions(editor_client, refused):
    html = editor_client.get("/sessions/").content.decode()
    assert f'id="session-{refused}-refused"' in html and "retired 2 of the 3 lines" in html
    assert f'action="/sessions/{refused}/land/"' in html and f'action="/sessions/{refused}/discard/"' in html
    assert "Land as Dad…" in html and "Discard…" in html and "its rows never count" in html


def test_a_reader_sees_no_decision_and_may_not_post_one(client, agent_user, refused):
    client.force_login(agent_user)
    assert "/land/" not in client.get("/sessions/").content.decode()
    for verb in ("land", "discard"):
        assert client.post(f"/sessions/{refused}/{verb}/", {"reason": "mine"}).status_code == 403
    assert _kinds(refused)[-1] == "refuse"


def test_a_visitor_is_sent_to_sign_in_and_a_get_is_refused(client, dad, refused):
    response = client.post(f"/sessions/{refused}/land/", {"reason": "x"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    client.force_login(dad)
    assert client.get(f"/sessions/{refused}/land/").status_code == 405
    assert client.post("/sessions/999999/land/", {"reason": "x"}).status_code == 404


def test_a_decision_needs_the_csrf_token(dad, refused):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(dad)
    assert strict.post(f"/sessions/{refused}/land/", {"reason": "ok"}).status_code == 403
    assert _kinds(refused)[-1] == "refuse"


def test_a_plain_land_redirects_to_the_session_landed_by_dad_with_his_reason(editor_client, refused):
    response = editor_client.post(f"/sessions/{refused}/land/", {"reason": "both were wrong"})
    assert response.status_code == 302 and response["Location"] == f"/sessions/#session-{refused}"
    html = editor_client.get("/sessions/").content.decode()
    decision = html.split(f'id="session-{refused}-decision"')[1].split("</p>")[0]
    assert "Landed by dad as his approval" in decision and "both were wrong" in decision
    assert f'id="session-{refused}-overruled"' in html
    assert f'action="/sessions/{refused}/land/"' not in html
    assert _kinds(refused)[-2:] == ["refuse", "land"]


def test_a_plain_discard_ends_the_session_with_dads_reason(editor_client, refused):
    response = editor_client.post(f"/sessions/{refused}/discard/", {"reason": "start again"}, follow=True)
    html = response.content.decode()
    assert "Discarded by dad" in html and "start again" in html and "Its rows never count" in html
    assert _kinds(refused)[-1] == "abandon"


def test_a_session_discarded_on_the_page_leaves_its_proposed_lines_out_of_the_notebook(editor_client, zelda):
    taken = sessions.take(notebook="zelda", plan="the guard", by=PIPPA)
    services.add(notebook="zelda", text="roll twice under the bridge", source="seen", by=PIPPA, why="seen")
    services.retire(notebook="zelda", n=1, by=PIPPA, why="stale")
    editor_client.post(f"/sessions/{taken.id}/discard/", {"reason": "not this"})
    html = editor_client.get("/notebooks/zelda/").content.decode()
    assert "the bridge guard swings twice" in html and "roll twice under the bridge" not in html
    assert "Pending in session" not in html
    assert [line.text for line in selectors.view(selectors.get_notebook("zelda"))] == LIVE_BEFORE


@pytest.mark.parametrize("verb", ["land", "discard"])
def test_no_reason_answers_the_page_with_the_form_open_and_nothing_decided(editor_client, refused, verb):
    response = editor_client.post(f"/sessions/{refused}/{verb}/", {"reason": "  "})
    assert response.status_code == 422
    html = response.content.decode()
    assert "A reason is required" in html and f'id="{verb}-{refused}-error"' in html
    assert f'<details class="decide-{verb}" open>' in html
    assert _kinds(refused)[-1] == "refuse"


def test_htmx_gets_the_session_back_in_place(editor_client, refused):
    response = editor_client.post(f"/sessions/{refused}/land/", {"reason": "fine by me"}, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith(f'<section class="box session" id="session-{refused}"')
    assert "<html" not in html and "Landed by dad as his approval" in html and 'role="status"' in html


def test_htmx_gets_a_refused_decision_in_place_with_its_draft_kept(editor_client, refused):
    editor_client.post(f"/sessions/{refused}/discard/", {"reason": "first"})
    response = editor_client.post(f"/sessions/{refused}/land/", {"reason": "second thoughts"}, **HTMX)
    assert response.status_code == 409
    html = response.content.decode()
    assert "already abandoned by dad" in html and "<html" not in html


def test_a_second_plain_decision_answers_409_with_the_message(editor_client, refused):
    editor_client.post(f"/sessions/{refused}/land/", {"reason": "first"})
    response = editor_client.post(f"/sessions/{refused}/discard/", {"reason": "second"})
    assert response.status_code == 409
    assert "already landed by dad; that decision stands" in response.content.decode()
    assert _kinds(refused)[-1] == "land"


def test_a_reason_over_the_limit_is_refused_with_the_whole_draft_kept_as_it_says(editor_client, refused, settings):
    draft = "a" * settings.NOTEBOOK_MAX_REASON + " and the end of my reason"
    response = editor_client.post(f"/sessions/{refused}/land/", {"reason": draft}, **HTMX)
    assert response.status_code == 422
    html = response.content.decode()
    assert "nothing was cut: your text is kept here" in html and f'value="{draft}"' in html
    assert _kinds(refused)[-1] == "refuse"


def test_a_session_id_of_thousands_of_digits_is_a_404_that_echoes_it_cut(editor_client, refused):
    huge = "9" * 4000
    response = editor_client.post(f"/sessions/{huge}/land/", {"reason": "x"}, **HTMX)
    assert response.status_code == 404
    assert huge[:400] not in response.content.decode() and _kinds(refused)[-1] == "refuse"


def test_a_session_whose_rows_an_older_release_wrote_says_they_count_and_a_discard_leaves_them(
    editor_client, zelda, monkeypatch
):
    taken = sessions.take(notebook="zelda", plan="the old way", by=PIPPA)
    with monkeypatch.context() as m:
        m.setattr(fold, "PROPOSABLE", ())  # an older release wrote a session's rows as they were, no proposal
        log_append.append(zelda, [{"op": "add", "n": 4, "words": "old words", "source": "seen", "by": "pippa",
                                   "why": "then", "session_id": taken.id}])  # fmt: skip
    assert "old words" in [line.text for line in selectors.view(zelda)]
    html = editor_client.get("/sessions/").content.decode()
    assert f'id="session-{taken.id}-written"' in html and "they counted as they were written" in html
    answer = editor_client.post(f"/sessions/{taken.id}/discard/", {"reason": "not this"}, **HTMX)
    said = answer.content.decode()
    assert "counted as written and still do" in said and "never count" not in said
    assert "old words" in [line.text for line in selectors.view(zelda)]
