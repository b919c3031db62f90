"""Numbers and times in a query or a form that no one could mean ("²", 5,000 digits, year 1 in a far zone) are
refused or ignored in Dad's words, never answered 500."""

import pytest

from notebooks.log.rules import checks

ODD = ["²", "٣", "9" * 5000, "0", "-1", " 1"]


@pytest.mark.parametrize("raw", ODD)
def test_a_number_that_is_no_ascii_whole_number_in_range_is_none(raw):
    assert checks.number_in(raw) is None


def test_a_number_in_ascii_digits_within_its_limit_is_read():
    assert (checks.number_in("42"), checks.number_in("2147483647"), checks.number_in("2147483648")) == (
        42,
        2**31 - 1,
        None,
    )


@pytest.mark.parametrize("raw", ODD)
def test_an_odd_retired_line_on_the_card_is_ignored(editor_client, lines, raw):
    assert editor_client.get("/notebooks/zelda/", {"retired": raw}).status_code == 200


@pytest.mark.parametrize("raw", ODD)
def test_an_odd_seq_to_redact_is_read_as_none_and_the_lines_last_words_are_offered(editor_client, lines, raw):
    answer = editor_client.get("/notebooks/zelda/lines/1/redact/", {"seq": raw})
    assert answer.status_code == 200
    assert '<blockquote class="words">roll after the second swing</blockquote>' in answer.content.decode()


@pytest.mark.parametrize("raw", [x for x in ODD if x != "٣"])  # Django's form reads "٣" as 3, a line it may name
def test_an_odd_line_in_a_similar_decision_is_left_out_and_the_decision_refused(editor_client, lines, raw):
    answer = editor_client.post(
        "/notebooks/zelda/similar/",
        {"n": [raw, "1"], "keep": "1", "reason": "r", "action": "keep:1"},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 422  # a keep of line #1 alone: no group to decide


@pytest.mark.parametrize("as_of", ["0001-01-01T00:00+14:00", "9999-12-31T23:59:59-14:00"])
def test_a_time_at_the_ends_of_the_calendar_is_refused_in_words(editor_client, lines, as_of):
    answer = editor_client.get("/notebooks/zelda/", {"as_of": as_of})
    assert answer.status_code in (200, 422)
    assert "is not a time between the years 2 and 9998" in answer.content.decode()


@pytest.mark.parametrize("as_of", ["2020-01-01\x00T00:00", "2" * 5000])
def test_a_refused_time_is_shown_back_escaped_and_cut(editor_client, lines, as_of):
    page = editor_client.get("/notebooks/zelda/", {"as_of": as_of}).content.decode()
    assert "\x00" not in page and "2" * 100 not in page
    assert "is not a time" in page


def test_a_refused_seq_to_mark_reviewed_is_named_cut(editor_client, lines):
    answer = editor_client.post("/notebooks/zelda/reviewed/", {"seq": "9" * 5000}, HTTP_HX_REQUEST="true")
    page = answer.content.decode()
    assert "Mark reviewed names no change" in page and "(5000 characters)" in page and "9" * 100 not in page


@pytest.mark.parametrize(
    "path",
    [
        "/notebooks/zelda/lines/999999999999999999999999999999/undo-merge/",
        "/notebooks/zelda/lines/2147483648/history/",
        "/notebooks/zelda/lines/0/edit/",
        "/sessions/99999999999999999999/land/",
        "/notebooks/zelda/suggestions/9223372036854775808/",
    ],
)
def test_a_number_in_a_path_past_its_column_names_nothing(editor_client, lines, path):
    assert editor_client.get(path).status_code == 404
    assert editor_client.post(path, {"reason": "r"}, HTTP_HX_REQUEST="true").status_code == 404


def test_put_back_on_a_line_retired_since_answers_its_notice_and_quotes_the_seq_cut(editor_client, lines):
    from notebooks.log import services

    services.retire(notebook="zelda", n=1, by="dad", why="gone")
    answer = editor_client.post(
        "/notebooks/zelda/lines/1/put-back/", {"reason": "r", "seq": "9" * 5000 + "\x1b"}, HTTP_HX_REQUEST="true"
    )
    assert answer.status_code == 409 and "is retired" in answer.content.decode()
    plain = editor_client.post("/notebooks/zelda/lines/2/put-back/", {"reason": "r", "seq": "9" * 5000}, follow=True)
    page = plain.content.decode()
    assert "has no words at change" in page and "9" * 100 not in page


def test_an_audit_filter_naming_nothing_is_not_said_back(editor_client, lines):
    page = editor_client.get("/audit/", {"notebook": "Z" * 20_000, "by": "\x1b" * 10}).content.decode()
    assert "Select a valid choice" in page and "Z" * 100 not in page and "\x1b" not in page
