"""A vault file cannot test a guess at redacted words: a file refused for any other reason gets that refusal, never
the redaction's answer, and the redaction's answer itself says only that some words of the file were redacted, not
which row nor which redaction (docs/RELIABILITY.md, "What a redaction leaves to guess from")."""

import json
import logging
import time

import pytest

from notebooks.log import redaction, services
from notebooks.log.files import imports, rowformat
from notebooks.log.rules.errors import Forbidden, Invalid, NotebookError, Redacted
from notebooks.log.store import append as log_append
from notebooks.log.views import selectors
from notebooks.vault import alarms
from tests.vault.vaulttools import append_to, outside, signed

PIN = "the safe's code is 4711"


@pytest.fixture
def secret(zelda):  # noqa: ANN001, ANN201
    """zelda with a line #4 whose words Dad redacted."""
    services.add(notebook="zelda", text=PIN, source="seen", by="pippa", why="oops")
    redaction.redact(notebook="zelda", n=4, by="dad", why="a code")
    return zelda


def _append(*lines: str) -> NotebookError:
    with pytest.raises(NotebookError) as refused:
        imports.append_rows(notebook="zelda", lines=list(lines), by_default="harness", first_line=7)
    return refused.value


def _guess(**fields: object) -> str:
    return outside(**{"n": 5, "text": PIN, "source": "seen", "by": "pippa", **fields})


def test_a_guess_followed_by_a_bad_row_gets_the_bad_rows_refusal(secret):
    refused = _append(_guess(), "not json")
    assert not isinstance(refused, Redacted) and "line 8: not valid JSON" in refused.message
    assert "redacted" not in refused.message.lower()


def test_a_guess_written_as_dads_gets_the_agents_refusal(secret):
    refused = _append(outside(n=5, text=PIN, source="dad", by="dad"))
    assert isinstance(refused, Forbidden) and "may write only seen or guessed lines" in refused.message
    assert "redacted" not in refused.message.lower()


def test_a_guess_as_an_edit_that_changes_the_source_gets_the_source_refusal(secret):
    refused = _append(outside("edit", n=1, to=PIN, source="guessed", by="pippa", why="x"))
    assert "an edit keeps the line's source" in refused.message and not isinstance(refused, Redacted)


def test_a_guess_beside_an_edit_of_dads_line_gets_the_edit_refusal(secret):
    refused = _append(_guess(), outside("edit", n=3, to="anything", by="dad", why="x"))
    assert isinstance(refused, Forbidden) and "outside may not edit line #3" in refused.message


def test_a_guess_with_a_wrong_seq_gets_the_seq_refusal(secret):
    refused = _append(_guess(seq=99))
    assert "'seq' is 99" in refused.message and not isinstance(refused, Redacted)


def test_a_signed_guess_beside_an_unproven_row_under_the_refuse_policy_gets_the_unproven_refusal(secret, settings):
    settings.NOTEBOOK_VAULT_UNPROVEN = "refuse"
    (proven,) = signed(_guess())
    refused = _append(proven, outside(n=6, text="the moat is shallow", source="seen", by="pippa"))
    assert "line 8: the row proves no writer" in refused.message and not isinstance(refused, Redacted)


def test_a_plain_digest_of_a_guess_is_refused_whatever_it_names(zelda):
    """A row marked redacted (a digest, no words) in an append was an oracle for words redacted under their plain
    digest: accepted when a redact row named it, refused otherwise. Now refused either way, in the same words."""
    fields = {"op": "add", "n": 4, "words": PIN, "digest": rowformat.digest_of(PIN), "source": "seen"}
    log_append.append(zelda, [{**fields, "by": "pippa", "why": "the shop's code"}])  # as written before keyed digests
    redaction.redact(notebook="zelda", n=4, by="dad", why="a code")
    said = []
    for digest in (rowformat.digest_of(PIN), rowformat.digest_of("a wrong guess")):
        row = {"op": "add", "n": 5, "digest": digest, "source": "seen", "at": time.time() + 60}
        refused = _append(json.dumps(row))
        said.append(refused.message.replace(digest[:12], "D"))
    assert said[0] == said[1] and "no redact row names them" in said[0]
    assert selectors.head(zelda).seq == 5


def test_only_a_file_refused_for_nothing_else_gets_the_redactions_answer_naming_no_row(secret, caplog):
    with caplog.at_level(logging.WARNING, logger="notebooks.log.store.locked_reads"):
        refused = _append(outside(n=5, text="a fine line", source="seen", by="pippa"), _guess(n=6))
    assert isinstance(refused, Redacted) and refused.code == "invalid"
    assert (
        refused.message
        == "Words of these rows were redacted from notebook 'zelda'; they cannot be written into it again."
    )
    assert "line" not in refused.message and "seq" not in refused.message  # not which row, nor which redaction
    assert any("redacted from notebook 'zelda'" in r.getMessage() for r in caplog.records)  # each guess is logged
    assert selectors.head(secret).seq == 5


def test_a_probe_file_in_the_vault_gets_the_other_refusal_as_its_alarm(vault, secret):
    vault.sweep(claimed=set())
    append_to(vault, "zelda", _guess(), outside("strike", n=3, by="dad", why="lifted"))
    (problem,) = vault.sweep(claimed=set()).problems
    assert problem.problem == "refused_append" and "outside may not retire line #3" in problem.message
    assert "redacted" not in problem.message.lower()
    assert [a.problem for a in alarms.vault_alarms()] == ["refused_append"]


def test_an_append_without_redacted_words_to_a_redacted_notebook_still_lands(vault, secret):
    vault.sweep(claimed=set())
    append_to(vault, "zelda", outside(n=5, text="the moat is shallow", source="seen", by="pippa"))
    assert vault.sweep(claimed=set()).problems == []
    assert [x.text for x in selectors.view(secret) if x.n == 5] == ["the moat is shallow"]


def test_invalid_is_still_what_the_api_reads(secret, pippa):
    answer = pippa.post("/api/notebooks/zelda/lines", {"text": PIN, "source": "seen", "why": "again"})
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid"
    assert issubclass(Redacted, Invalid)
