import re

from notebooks.log import redaction, services
from notebooks.sessions import services as sessions
from tests.agent_helpers import DAD


def test_it_sends_an_anonymous_visitor_to_sign_in(client, db):
    response = client.get("/sessions/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_it_shows_each_session_with_its_change_beside_its_drift(client, dad, zelda):
    taken = sessions.take(notebook="zelda", plan="tidy the bridge lines", by="pippa")
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="seen")
    services.add(notebook="zelda", text="rest at every camp", source="dad", by=DAD, why="hint")
    sessions.land(session=taken.id, summary="the guard's timing", by="pippa")
    client.force_login(dad)
    response = client.get("/sessions/")
    assert response.status_code == 200
    html = response.content.decode()
    change, drift = html.split('class="change"')[1].split('class="drift"')
    assert "roll after the second swing" in change and "rest at every camp" not in change
    assert "rest at every camp" in drift
    assert "tidy the bridge lines" in html and "the guard&#x27;s timing" in html and "landed" in html


def test_it_filters_by_state(client, dad, zelda):
    taken = sessions.take(notebook="zelda", plan="an open plan", by="pippa")
    client.force_login(dad)
    assert "an open plan" in client.get("/sessions/", {"state": "open"}).content.decode()
    assert "an open plan" not in client.get("/sessions/", {"state": "landed"}).content.decode()
    assert taken.id


def test_it_escapes_what_agents_wrote(client, dad, zelda):
    sessions.take(notebook="zelda", plan="<script>alert(1)</script>", by="pippa")
    client.force_login(dad)
    html = client.get("/sessions/").content.decode()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html


def test_it_rejects_post(client, dad):
    client.force_login(dad)
    assert client.post("/sessions/").status_code == 405


def test_its_title_names_the_site_once_and_it_carries_no_inline_style(client, dad, zelda):
    sessions.take(notebook="zelda", plan="a plan", by="pippa")
    client.force_login(dad)
    html = client.get("/sessions/").content.decode()
    assert "<title>Sessions · Notebooks</title>" in html
    assert "<style" not in html and not re.search(r"\sstyle=", html)
    assert 'href="/static/notebooks/card.css"' in html


def test_it_links_each_session_to_its_notebook_and_tags_each_row_by_source(client, dad, zelda):
    taken = sessions.take(notebook="zelda", plan="a plan", by="pippa")
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="seen")
    client.force_login(dad)
    html = client.get("/sessions/").content.decode()
    change = html.split('class="change"')[1].split('class="drift"')[0]
    assert 'href="/notebooks/zelda/"' in html
    assert 'class="tag tag-seen"' in change
    assert f'id="session-{taken.id}"' in html


def _brought(html: str, session_id: int) -> dict[str, int]:
    """The counts a session's Brought line shows, by what they count."""
    found = html.split(f'id="session-{session_id}-brought"')[1].split("</p>")[0]
    return {what: int(n) for what, n in re.findall(r'data-count="(\w+)".*?<span class="n">(\d+)</span>', found)}


def test_each_landed_session_shows_the_seen_guessed_and_changed_lines_it_brought(client, dad, zelda):
    first = sessions.take(notebook="zelda", plan="two lessons", by="pippa")
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="seen")
    services.add(notebook="zelda", text="the owl may lie", source="guessed", by="pippa", why="a hunch")
    services.edit(notebook="zelda", n=2, to="attack after the block", by="pippa", why="seen it now")
    sessions.land(session=first.id, summary="lessons", by="pippa")
    second = sessions.take(notebook="zelda", plan="nothing yet", by="pippa")
    client.force_login(dad)
    html = client.get("/sessions/").content.decode()
    assert _brought(html, first.id) == {"seen": 1, "guessed": 1, "changed": 1}
    assert f'id="session-{second.id}-brought"' not in html  # open: it has brought nothing yet


def test_redacted_words_in_a_sessions_rows_read_as_redacted_on_the_page_and_the_cards_pending_rows(client, dad, zelda):
    sessions.take(notebook="zelda", plan="a plan", by="pippa")  # the take records Dad's #3 (seq 3) as drift
    services.add(notebook="zelda", text="my password is hunter2", source="seen", by="pippa", why="seen")
    for n in (3, 4):
        redaction.redact(notebook="zelda", n=n, by=DAD, why="a password", seq=n)
    client.force_login(dad)
    change, drift = client.get("/sessions/").content.decode().split('class="change"')[1].split('class="drift"')
    assert "[redacted: a password]" in change and "[redacted: a password]" in drift
    assert "None" not in change and "None" not in drift
    pending = client.get("/notebooks/zelda/").content.decode().split('class="group pending"')[1].split("</section>")[0]
    assert "[redacted: a password]" in pending and "None" not in pending


def test_a_sessions_plan_and_its_rows_words_keep_their_direction_to_themselves(client, dad, zelda):
    # A right-to-left override in an agent's words must not reverse the text after them: <bdi> isolates them.
    taken = sessions.take(notebook="zelda", plan="tidy \u202eit", by="pippa")
    services.add(notebook="zelda", text="roll \u202eafter", source="seen", by="pippa", why="seen")
    services.edit(notebook="zelda", n=1, to="roll \u202ebefore", by="pippa", why="timed it")
    sessions.land(session=taken.id, summary="timing", by="pippa")
    client.force_login(dad)
    html = client.get("/sessions/").content.decode()
    assert "<bdi>tidy \u202eit</bdi> <span" in html
    assert "<bdi>roll \u202eafter</bdi>" in html and "→ <bdi>roll \u202ebefore</bdi>" in html
