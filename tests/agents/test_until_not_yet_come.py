"""A view is read as it stood at a time that has passed: a time this server's clock has not reached could still gain
rows, so the doors a harness pins a view through (API, MCP, CLI) refuse it rather than answer a frozen view that
later changes. (The card shows Dad such a time read-only, as the notebook stands now.)"""

import time
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from notebooks.agents import answers
from notebooks.log.rules.errors import Invalid


@pytest.mark.parametrize("path", ["lines", "turn", "lines/1"])
def test_the_api_refuses_an_until_not_yet_come(zelda, pippa, path):
    later = time.time() + 120
    refused = pippa.get(f"/api/notebooks/zelda/{path}?until={later}")
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["code"] == "invalid" and error["fields"] == ["until"]
    assert "is later than this server's clock" in error["message"] and "could still change" in error["message"]


def test_an_until_far_beyond_any_date_is_refused_in_words(zelda, pippa):
    refused = pippa.get("/api/notebooks/zelda/lines?until=1e308")
    assert (
        refused.status_code == 400 and "1e+308 is later than this server's clock" in refused.json()["error"]["message"]
    )


def test_a_past_until_is_read_as_before(zelda, pippa):
    assert pippa.get(f"/api/notebooks/zelda/lines?until={time.time() - 1}").status_code == 200


def test_mcp_and_the_cli_refuse_it_too(zelda):
    with pytest.raises(Invalid, match="later than this server's clock"):
        answers.until_of(str(time.time() + 120))
    for command in (["view", "zelda"], ["turn", "zelda"], ["export", "zelda"], ["head", "zelda"]):
        with pytest.raises(CommandError, match="--until .* is later than this server's clock"):
            call_command("notebook", *command, "--until", str(time.time() + 120), stdout=StringIO(), stderr=StringIO())
