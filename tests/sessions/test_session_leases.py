"""Leases: a session lapses after NOTEBOOK_SESSION_TTL seconds without a call of its holder, and frees its notebook.

The leases' clock (notebooks.sessions.leases.now) is moved by the `clock` fixture; rows keep the real time.
"""

import pytest

from notebooks.log import services
from notebooks.log.rules.errors import Conflict
from notebooks.models import EventKind, SessionEvent
from notebooks.sessions import leases
from notebooks.sessions import services as sessions
from tests.conftest import LEASE_TTL

TTL = LEASE_TTL


def _take(api, notebook="zelda", plan="tidy the bridge lines"):  # noqa: ANN001, ANN201
    return api.post("/api/sessions", {"notebook": notebook, "plan": plan})


def _add(api, text="roll after the second swing"):  # noqa: ANN001, ANN201
    return api.post("/api/notebooks/zelda/lines", {"text": text, "source": "seen", "why": "seen it"})


def test_an_idle_session_lapses_and_the_next_take_succeeds(zelda, pippa, reflector, clock):
    sid = _take(pippa).json()["id"]
    clock.move(TTL + 1)
    taken = _take(reflector)
    assert taken.status_code == 201
    lapse = SessionEvent.objects.get(session_id=sid, kind=EventKind.LAPSE)
    assert lapse.at == pytest.approx(clock.at - 1) and lapse.by == "reflector"
    session = reflector.get(f"/api/sessions/{sid}").json()
    assert session["state"] == "lapsed" and session["lapsed_at"] == pytest.approx(lapse.at)


def test_a_lapsed_sessions_land_checkpoint_and_writes_answer_409_lapsed(zelda, pippa, clock):
    sid = _take(pippa).json()["id"]
    assert _add(pippa).status_code == 201
    clock.move(TTL + 1)
    for response in (
        pippa.post(f"/api/sessions/{sid}/land", {"summary": "the guard's timing"}),
        pippa.post(f"/api/sessions/{sid}/checkpoint", {"note": "still here"}),
        _add(pippa, "a line after the lapse"),
    ):
        assert response.status_code == 409
        error = response.json()["error"]
        assert error["code"] == "lapsed" and error["session"] == sid and error["holder"] == "pippa"
    assert not SessionEvent.objects.filter(session_id=sid, kind=EventKind.LAND).exists()


def test_a_lapsed_session_stays_lapsed_once_recorded_and_may_be_abandoned(zelda, pippa, reflector, clock):
    sid = _take(pippa).json()["id"]
    clock.move(TTL + 1)
    assert _take(reflector).status_code == 201  # records the lapse
    assert pippa.post(f"/api/sessions/{sid}/land", {}).json()["error"]["code"] == "lapsed"
    assert _add(pippa).json()["error"]["code"] == "lapsed"  # its holder's writes are not silently outside it
    abandoned = pippa.post(f"/api/sessions/{sid}/abandon", {"why": "it lapsed"})
    assert abandoned.status_code == 200
    assert pippa.get(f"/api/sessions/{sid}").json()["state"] == "abandoned"


def test_the_rows_of_a_lapsed_session_stay_pending_and_out_of_others_views(zelda, pippa, reflector, clock):
    sid = _take(pippa).json()["id"]
    _add(pippa)
    clock.move(TTL + 1)
    _take(reflector)
    session = reflector.get(f"/api/sessions/{sid}").json()
    assert [r["proposed_text"] for r in session["change"]] == ["roll after the second swing"]
    assert "roll after the second swing" not in [
        line["text"] for line in reflector.get("/api/notebooks/zelda/lines").json()["lines"]
    ]


def test_a_holders_read_renews_its_lease(zelda, pippa, reflector, clock):
    _take(pippa)
    clock.move(TTL * 0.75)
    assert pippa.get("/api/notebooks/zelda/turn").status_code == 200
    clock.move(TTL * 0.75)  # past the take's TTL, within the read's
    assert _take(reflector).status_code == 409


def test_a_holders_write_renews_its_lease(zelda, pippa, reflector, clock):
    _take(pippa)
    clock.move(TTL * 0.75)
    leases.forget()  # not the API's renewal of any call: the write's own
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="seen")
    clock.move(TTL * 0.75)
    with pytest.raises(Conflict, match="already claimed by pippa"):
        sessions.take(notebook="zelda", plan="mine now", by="reflector")


def test_a_holders_checkpoint_renews_its_lease(zelda, clock):
    taken = sessions.take(notebook="zelda", plan="tidy", by="pippa")
    clock.move(TTL * 0.75)
    sessions.checkpoint(session=taken.id, note="halfway", by="pippa")
    clock.move(TTL * 0.75)
    assert not leases.lapse_due(by="test")


def test_a_renewal_is_skipped_when_the_lease_was_just_renewed(zelda, pippa, clock):
    sid = _take(pippa).json()["id"]
    first = leases.SessionLease.objects.get(session_id=sid).renewed_at
    clock.move(leases.renew_step() / 2)
    pippa.get("/api/notebooks/zelda/turn")
    assert leases.SessionLease.objects.get(session_id=sid).renewed_at == first
    clock.move(leases.renew_step())
    leases.forget()
    pippa.get("/api/notebooks/zelda/turn")
    assert leases.SessionLease.objects.get(session_id=sid).renewed_at == clock.at


def test_another_actors_read_does_not_renew_the_lease(zelda, pippa, reflector, clock):
    _take(pippa)
    clock.move(TTL * 0.75)
    reflector.get("/api/notebooks/zelda/turn")
    clock.move(TTL * 0.75)
    assert _take(reflector).status_code == 201


def test_a_take_of_a_claimed_notebook_answers_retry_after_and_the_holder(zelda, pippa, reflector, clock):
    sid = _take(pippa).json()["id"]
    clock.move(TTL - 20.5)
    response = _take(reflector)
    assert response.status_code == 409
    assert response["Retry-After"] == "21"
    error = response.json()["error"]
    assert error["code"] == "conflict" and error["holder"] == "pippa" and error["session"] == sid


def test_the_wait_is_said_in_each_transports_own_words(zelda, pippa, reflector, clock):
    """HTTP says it in its header, Retry-After; MCP in its refusal, retry_after (below): never both in one answer."""
    _take(pippa)
    response = _take(reflector)
    assert response["Retry-After"] == str(int(TTL)) and "retry_after" not in response.json()["error"]


def test_a_lapsed_notebook_is_free_to_another_agents_write(zelda, pippa, reflector, clock):
    _take(pippa)
    assert _add(reflector, "a line of the reflector's").status_code == 409
    clock.move(TTL + 1)
    assert _add(reflector, "a line of the reflector's").status_code == 201


def test_the_sessions_page_shows_a_lapsed_session_as_such(client, dad, zelda, clock):
    taken = sessions.take(notebook="zelda", plan="an idle plan", by="pippa")
    clock.move(TTL + 1)
    client.force_login(dad)
    html = client.get("/sessions/").content.decode()
    assert 'class="state state-lapsed">lapsed<' in html and f'id="session-{taken.id}-lapsed"' in html
    assert SessionEvent.objects.filter(session_id=taken.id, kind=EventKind.LAPSE, by="dad").exists()
    assert "an idle plan" in client.get("/sessions/?state=lapsed").content.decode()
    assert "an idle plan" not in client.get("/sessions/?state=open").content.decode()


def test_the_vaults_claims_leave_out_a_lapsed_session_and_record_its_lapse(zelda, clock):
    from notebooks.vault.claims import open_session_titles

    taken = sessions.take(notebook="zelda", plan="tidy", by="pippa")
    assert open_session_titles() == {"zelda"}
    clock.move(TTL + 1)
    assert open_session_titles() == set()
    assert SessionEvent.objects.filter(session_id=taken.id, kind=EventKind.LAPSE, by="vault").exists()


def test_the_mcp_refusal_names_the_holder_and_retry_after(zelda, clock):
    from notebooks.agents.mcp_strict import refusal

    taken = sessions.take(notebook="zelda", plan="tidy", by="pippa")
    with pytest.raises(Conflict) as refused:
        sessions.take(notebook="zelda", plan="mine", by="reflector")
    result = refusal(refused.value)
    assert result.is_error and result.content[0].text.startswith("conflict (409): ")
    error = result.structured_content["error"]
    assert {k: error[k] for k in ("holder", "session", "retry_after")} == {
        "holder": "pippa", "session": taken.id, "retry_after": int(TTL),
    }  # fmt: skip


def test_the_cli_lists_a_lapsed_session_with_when(zelda, clock):
    from io import StringIO

    from django.core.management import call_command

    sessions.take(notebook="zelda", plan="tidy", by="pippa")
    clock.move(TTL + 1)
    out = StringIO()
    call_command("notebook", "sessions", "--state", "lapsed", stdout=out)
    assert "lapsed" in out.getvalue() and "(lapsed 20" in out.getvalue()
