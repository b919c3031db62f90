"""The Notebook card: every live line whole, with number and source tag, in turn or number order, filtered, searched,
frozen as of a past time, and safe with markup."""

import re
import time

from notebooks.log import services
from tests.card_helpers import HX, url


def _order(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<li id="line-(\d+)"', html)]


def test_it_shows_every_live_line_in_turn_order_by_default(editor_client, lines):
    services.edit(notebook="zelda", n=1, to="roll after the second swing, always", by="dad", why="clearer")
    html = editor_client.get(url()).content.decode()
    assert _order(html) == [1, 3, 2]  # Dad's correction, his line, then hers
    assert "Dad&#x27;s corrections" in html and "Dad&#x27;s lines" in html and "Hers: guessed" in html


def test_it_switches_to_number_order(editor_client, lines):
    services.edit(notebook="zelda", n=1, to="roll twice", by="dad", why="clearer")
    html = editor_client.get(url(), {"order": "number"}).content.decode()
    assert _order(html) == [1, 2, 3]


def test_it_filters_by_source_and_searches_the_words(editor_client, lines):
    assert _order(editor_client.get(url(), {"source": "guessed"}).content.decode()) == [2]
    assert _order(editor_client.get(url(), {"q": "SECOND swing"}).content.decode()) == [1]
    assert "No line matches." in editor_client.get(url(), {"q": "zzz"}).content.decode()


def test_the_toolbar_gets_just_the_region_for_htmx(editor_client, lines):
    response = editor_client.get(url(), {"q": "attack"}, HTTP_HX_TARGET="lines-region", **HX)
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="lines-region"')
    assert _order(html) == [2]
    assert "HX-Request" in response["Vary"]


def test_a_line_is_shown_whole_however_long(editor_client, notebook, dad):
    long = "word " * 700
    services.add(notebook="zelda", text=long.strip(), source="seen", by="pippa", why="long")
    assert long.strip() in editor_client.get(url()).content.decode()


def test_markup_in_a_line_is_shown_as_text(editor_client, notebook, dad):
    services.add(notebook="zelda", text="<script>alert(1)</script>", source="seen", by="pippa", why="x")
    services.add(notebook="zelda", text='<img src=x onerror="alert(2)">', source="seen", by="pippa", why="<b>x</b>")
    html = editor_client.get(url()).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in html
    assert "<script>alert" not in html and "<img src=x" not in html
    history = editor_client.get(url(2, "history"), **HX).content.decode()
    assert "&lt;b&gt;x&lt;/b&gt;" in history


def test_the_pages_carry_no_inline_script_style_or_handler(editor_client, lines):
    for page in (url(), url(1, "edit"), url(1, "history"), "/", "/audit/", url(action="") + "?as_of=2000-01-01T00:00"):
        html = editor_client.get(page).content.decode()
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), page
        assert not re.search(r"\sstyle=", html), page
        assert not re.search(r"\son[a-z]+=", html), page
    assert '"includeIndicatorStyles": false' in html


def test_csrf_is_sent_once_through_hx_headers_on_body(editor_client, lines):
    html = editor_client.get(url()).content.decode()
    assert re.search(r"<body hx-headers='\{\"X-CSRFToken\": \"[A-Za-z0-9]+\"\}'>", html)
    assert 'src="/static/django_htmx/htmx-2.min.js"' in html


def test_as_of_shows_the_notebook_frozen_and_read_only(editor_client, lines):
    before = time.time()
    time.sleep(0.01)
    services.edit(notebook="zelda", n=2, to="block first", by="dad", why="later")
    services.add(notebook="zelda", text="a later line", source="seen", by="pippa", why="later")
    from datetime import UTC, datetime

    when = datetime.fromtimestamp(before, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")
    html = editor_client.get(url(), {"as_of": when}).content.decode()
    assert "Frozen view: read-only." in html
    assert "always attack first" in html and "block first" not in html and "a later line" not in html
    assert ">Edit</button>" not in html and ">Add line</button>" not in html and 'form="select-form"' not in html
    assert "Back to now" in html
    # a line's number links to the line as it stood then, on this page, not to the line as it is now
    assert '<a class="num" href="#line-2"' in html and 'href="/notebooks/zelda/lines/2/"' not in html


def test_an_unreadable_as_of_says_it_is_not_a_time_and_that_the_card_shows_now(editor_client, lines):
    for sent in ("yesterday-ish", "2026-13-45T99:99"):
        for headers in ({}, {"HTTP_HX_TARGET": "lines-region", **HX}):  # the page, and the list htmx swaps
            html = editor_client.get(url(), {"as_of": sent}, **headers).content.decode()
            note = re.search(r'<p class="note message-error" role="status" id="view-as_of_error">(.*?)</p>', html, re.S)
            assert note and note.group(1) == f"&#x27;{sent}&#x27; is not a time: showing the notebook as it is now."
            assert "Frozen view" not in html and "Enter a valid date/time." not in html


def test_the_source_filter_names_each_source_as_the_card_does(editor_client, lines):
    services.edit(notebook="zelda", n=1, to="roll after the second swing, always", by="dad", why="clearer")
    html = editor_client.get(url()).content.decode()
    assert '<option value="dad_correction">Dad&#x27;s correction</option>' in html
    assert '<option value="seen">Seen</option>' in html and '<option value="dad">Dad</option>' in html
    assert _order(editor_client.get(url(), {"source": "dad_correction"}).content.decode()) == [1]


def test_it_answers_404_for_an_unknown_notebook(editor_client, lines):
    response = editor_client.get("/notebooks/zeldaa/")
    assert response.status_code == 404


def test_a_reader_sees_the_card_without_edit_controls(client, agent_user, lines):
    client.force_login(agent_user)
    html = client.get(url()).content.decode()
    assert "roll after the second swing" in html
    assert ">Edit</a>" not in html and ">Add line</button>" not in html and ">History</a>" in html


def test_the_chart_draws_lines_added_per_day_by_source(editor_client, lines):
    html = editor_client.get(url()).content.decode()
    assert '<svg class="bars"' in html
    assert html.count('class="bar bar-') >= 3
    assert "seen 1, guessed 1, Dad 1, Dad&#x27;s correction 0" in html


def test_a_title_with_spaces_and_signs_has_working_links(editor_client, dad):
    from notebooks.log import services

    services.create_notebook(title="zelda 2.0+", by="test")
    services.add(notebook="zelda 2.0+", text="a line", source="seen", by="pippa", why="s")
    html = editor_client.get("/notebooks/zelda%202.0+/").content.decode()
    assert 'href="/notebooks/zelda%202.0+/lines/1/edit/"' in html
    response = editor_client.post("/notebooks/zelda%202.0+/lines/1/edit/", {"words": "b", "reason": "r", "expected": 1})
    assert response.status_code == 302 and response["Location"] == "/notebooks/zelda%202.0+/#line-1"


def test_an_empty_notebook_offers_add_line_but_no_merge_or_retire_selected(editor_client, notebook):
    html = editor_client.get(url()).content.decode()
    assert "No live lines." in html and ">Add line</button>" in html
    assert 'id="select-form"' not in html and "0 lines, in turn order" not in html


def test_the_selection_form_comes_back_with_the_first_line(editor_client, notebook):
    editor_client.post(url(action="add"), {"words": "save before the boss door", "reason": "a rule"})
    html = editor_client.get(url()).content.decode()
    assert 'id="select-form"' in html and re.search(r"1 line,\s+in turn order", html)


def test_it_shows_the_head_hash_a_reader_can_pin(editor_client, lines, notebook):
    from notebooks.log.views import selectors

    top = selectors.head(notebook)
    body = editor_client.get(url()).content.decode()
    assert top.hash[:16] in body
    services.add(notebook=notebook.title, text="one more", source="dad", by="dad", why="moves the head")
    moved = selectors.head(notebook)
    assert moved.hash[:16] in editor_client.get(url()).content.decode()
    assert moved.hash != top.hash


def test_a_big_card_lists_its_first_lines_in_turn_order_and_offers_more(editor_client, lines, monkeypatch):
    from html import unescape

    from notebooks.card.views import respond

    monkeypatch.setattr(respond, "CARD_LINES", 2)
    services.add(notebook="zelda", text="a fourth line", source="seen", by="pippa", why="seen")
    html = editor_client.get(url()).content.decode()
    assert _order(html) == [3, 1]  # Dad's line first, then hers: the first two in turn order
    assert "2 of 4 lines listed so far." in html and "Show 2 more" in html
    more = unescape(re.search(r'<p class="more[^"]*" id="more">.*?href="([^"]+)"', html, re.S).group(1))
    assert more == url() + "?start=2"
    # With JavaScript the next page is appended after the last line shown: only its lines, and no more to offer.
    response = editor_client.get(more, HTTP_HX_TARGET="more", **HX)
    page = response.content.decode()
    assert _order(page) == [4, 2]
    assert 'id="lines-region"' not in page and "Show" not in page
    assert "<h2" not in page.split("line-4")[0]  # it continues her group: no second heading
    # Without, it opens on its own, with the way back to the lines before.
    alone = editor_client.get(more).content.decode()
    assert _order(alone) == [4, 2] and "Show the 2 lines before" in alone


def test_show_more_keeps_the_order_filter_and_search(editor_client, lines, monkeypatch):
    from html import unescape

    from notebooks.card.views import respond

    monkeypatch.setattr(respond, "CARD_LINES", 1)
    html = editor_client.get(url(), {"order": "number", "q": "the", "source": "seen"}).content.decode()
    assert _order(html) == [1]
    assert "so far" not in html  # one line matches: nothing more to show
    html = editor_client.get(url(), {"order": "number", "q": "the"}).content.decode()
    assert _order(html) == [1]
    more = unescape(re.search(r'<p class="more[^"]*" id="more">.*?href="([^"]+)"', html, re.S).group(1))
    assert "order=number" in more and "q=the" in more and "start=1" in more
    assert _order(editor_client.get(more).content.decode()) == [3]


def test_a_number_opens_the_page_holding_that_line(editor_client, lines, monkeypatch):
    from notebooks.card.views import respond

    monkeypatch.setattr(respond, "CARD_LINES", 2)
    for k in range(6):
        services.add(notebook="zelda", text=f"line {k}", source="seen", by="pippa", why="seen")  # #4 to #9
    for asked in ("8", "#8", "line 8"):
        response = editor_client.get(url(), {"q": asked, "order": "number"}, HTTP_HX_TARGET="lines-region", **HX)
        html = response.content.decode()
        assert 'data-focus-line="8"' in html and _order(html) == [7, 8], asked
    # Without JavaScript: to the page holding it, scrolled there by its anchor; the search box keeps the number.
    response = editor_client.get(url(), {"q": "#8", "order": "number"})
    assert response.status_code == 302
    assert response["Location"] == url() + "?q=%238&order=number&line=8#line-8"
    assert _order(editor_client.get(response["Location"]).content.decode()) == [7, 8]
    # A link to a line (its own URL) opens the card's page holding it, in any order.
    assert editor_client.get(url(8))["Location"] == url() + "?line=8#line-8"
    assert 8 in _order(editor_client.get(url(), {"line": 8}).content.decode())
    html = editor_client.get(url(), {"q": "99"}, HTTP_HX_TARGET="lines-region", **HX).content.decode()
    assert "There is no line #99: this notebook's lines go up to #9." in html


def test_a_number_of_a_retired_line_shows_its_notice(editor_client, lines):
    services.retire(notebook="zelda", n=2, by="dad", why="not about the game")
    html = editor_client.get(url(), {"q": "2"}, HTTP_HX_TARGET="lines-region", **HX).content.decode()
    assert "Line #2 is retired, by dad." in html and "not about the game" in html


def test_words_are_found_whatever_their_case_accents_punctuation_and_order(editor_client, notebook, dad):
    for text in ("Zora's Domain sells spears.", "Guardian beams: the Lynel ignores them.", "Café in Kakariko"):
        services.add(notebook=notebook.title, text=text, source="seen", by="pippa", why="seen")
    for q, found in (("zoras", [1]), ("ZORA", [1]), ("lynel guardian", [2]), ("cafe", [3]), ("kakariko café", [3])):
        html = editor_client.get(url(), {"q": q, "order": "number"}).content.decode()
        assert _order(html) == found, q
    html = editor_client.get(url(), {"q": "zoras"}).content.decode()
    assert "<mark>Zora&#x27;s</mark> Domain sells spears." in html
    html = editor_client.get(url(), {"q": "lynel guardian"}).content.decode()
    assert "<mark>Guardian</mark> beams: the <mark>Lynel</mark> ignores them." in html


def test_a_marked_search_never_lets_markup_through(editor_client, notebook, dad):
    payload = '<img src=x onerror="alert(1)"> <script>alert(2)</script> img'
    services.add(notebook=notebook.title, text=payload, source="seen", by="pippa", why="seen")
    for q in ("img", "script", "onerror alert", "src x", "lt", "amp"):
        html = editor_client.get(url(), {"q": q}).content.decode()
        assert "<img" not in html and "<script>alert" not in html, q
    html = editor_client.get(url(), {"q": "img"}).content.decode()
    assert "&lt;<mark>img</mark> src=x onerror=&quot;alert(1)&quot;&gt;" in html


def _run(plan: str, *words: tuple[str, str]) -> int:
    from notebooks.sessions import services as sessions

    taken = sessions.take(notebook="zelda", plan=plan, by="pippa")
    for text, source in words:
        services.add(notebook="zelda", text=text, source=source, by="pippa", why="seen")
    sessions.land(session=taken.id, summary=plan, by="pippa")
    return taken.id


def test_the_chart_counts_by_run_one_bar_per_landed_session_named_by_id_actor_and_date(editor_client, lines):
    first = _run("two lessons", ("the owl sleeps at noon", "seen"), ("maybe the lake", "guessed"))
    second = _run("one lesson", ("the lake hides a key", "seen"))
    html = editor_client.get(url(), {"chart": "run"}).content.decode()
    chart = html.split('id="chart"')[1].split("</section>")[0]
    assert "Lines added per run" in chart and 'aria-current="true">by run</a>' in chart
    assert "seen 2, guessed 1, Dad 0, Dad&#x27;s correction 0" in chart  # the three lines of no run are not counted
    day = time.strftime("%Y-%m-%d", time.gmtime())
    assert f"<title>#{first} · pippa · {day}: 1 seen</title>" in chart
    assert f"<title>#{second} · pippa · {day}: 1 seen</title>" in chart
    rows = re.findall(r"<tr><th scope=\"row\">(.*?)</tr>", chart)
    assert [re.sub(r"<.*?>", " ", r).split() for r in rows] == [
        [f"#{first}", "pippa", day, "1", "1", "0", "0", "0"],
        [f"#{second}", "pippa", day, "1", "0", "0", "0", "0"],
    ]
    assert '<input type="hidden" name="chart" value="run" form="view-form">' in chart


def test_by_day_stays_the_default_and_each_link_keeps_the_cards_filters(editor_client, lines):
    html = editor_client.get(url(), {"q": "swing", "order": "number"}).content.decode()
    chart = html.split('id="chart"')[1].split("</section>")[0]
    assert "Lines added per day" in chart and 'aria-current="true">by day</a>' in chart
    assert 'href="/notebooks/zelda/?order=number&amp;q=swing&amp;chart=run#chart"' in chart


def test_a_chart_by_run_with_no_landed_session_says_so(editor_client, lines):
    html = editor_client.get(url(), {"chart": "run"}).content.decode()
    assert "No session has landed: a run is counted when it lands." in html


def test_htmx_asking_for_the_chart_gets_only_the_chart(editor_client, lines):
    _run("a lesson", ("the owl sleeps at noon", "seen"))
    response = editor_client.get(url(), {"chart": "run"}, HTTP_HX_TARGET="chart", **HX)
    html = response.content.decode()
    assert html.lstrip().startswith('<section class="box chart" id="chart"') and 'id="lines-region"' not in html
    assert "Lines added per run" in html and "HX-Target" in response["Vary"]


def test_a_frozen_card_counts_only_the_runs_landed_by_then(editor_client, lines):
    from notebooks.models import SessionEvent

    first = _run("a lesson", ("the owl sleeps at noon", "seen"))
    upto = SessionEvent.objects.get(session_id=first, kind="land").head
    second = _run("another", ("the lake hides a key", "seen"))
    chart = editor_client.get(url(), {"chart": "run", "upto": upto}).content.decode().split('id="chart"')[1]
    assert f"#{first} · pippa" in chart and f"#{second} · pippa" not in chart
    assert f"upto={upto}&amp;chart=run" in chart or f"chart=run&amp;upto={upto}" in chart


def test_a_change_answers_with_the_chart_as_the_card_counted_it(editor_client, lines):
    _run("a lesson", ("the owl sleeps at noon", "seen"))
    response = editor_client.post(
        "/notebooks/zelda/add/", {"words": "a rule of mine", "reason": "hint", "chart": "run"}, **HX
    )
    oob = response.content.decode().split('id="chart"')[1].split("</section>")[0]
    assert "Lines added per run" in oob and "seen 1, guessed 0, Dad 0" in oob  # his add in no run is not counted
