"""The vault's alarms: recorded, append-only, shown as a banner until the editor acknowledges them."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.template import Context, Template

from notebooks.log.rules.errors import Conflict, Forbidden, NotFound
from notebooks.vault import alarms
from tests.vault.vaulttools import file_bytes

BANNER = Template("{% load vault_tags %}<main>{% vault_banner %}</main>")


@pytest.fixture
def refused(vault, zelda):  # noqa: ANN001, ANN201
    """A sweep that met a hand rewrite."""
    vault.sweep(claimed=set())
    vault.path("zelda").write_text("one clean line, by hand\n")
    (problem,) = vault.sweep(claimed=set()).problems
    return problem


def test_a_refusal_is_recorded_with_its_evidence(refused):
    (alarm,) = alarms.vault_alarms()
    assert (alarm.title, alarm.problem) == ("zelda", "rewritten")
    assert alarm.evidence_ref == refused.evidence_ref and alarm.evidence_sha == refused.evidence_sha
    assert "not an append of the log" in alarm.message


def test_alarms_are_append_only(refused):
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE notebooks_vaultalarm SET message = 'all is well'")


def test_the_banner_shows_each_unacknowledged_alarm(refused):
    html = BANNER.render(Context({}))
    assert 'role="alert"' in html
    assert "The vault refused 1 file" in html
    assert "zelda" in html and refused.evidence_ref in html
    assert "Nothing was lost" in html


def test_the_banner_is_empty_without_alarms(db):
    assert "".join(BANNER.render(Context({})).split()) == "<main></main>"


def test_the_editor_acknowledges_an_alarm_and_the_banner_clears(refused, dad):
    (alarm,) = alarms.vault_alarms()
    alarms.acknowledge_vault_alarm(alarm=alarm.id, by="dad", why="seen; the rewrite was mine")
    assert alarms.vault_alarms() == []
    assert [a.id for a in alarms.vault_alarms(include_acknowledged=True)] == [alarm.id]
    assert "<section" not in BANNER.render(Context({}))


def test_an_agent_may_not_acknowledge_an_alarm(refused):
    with pytest.raises(Forbidden):
        alarms.acknowledge_vault_alarm(alarm=alarms.vault_alarms()[0].id, by="pippa")


def test_an_alarm_is_acknowledged_once(refused, dad):
    alarm = alarms.vault_alarms()[0].id
    alarms.acknowledge_vault_alarm(alarm=alarm, by="dad")
    with pytest.raises(Conflict):
        alarms.acknowledge_vault_alarm(alarm=alarm, by="dad")


def test_acknowledging_an_unknown_alarm_is_not_found(db, dad):
    with pytest.raises(NotFound):
        alarms.acknowledge_vault_alarm(alarm=999, by="dad")


def test_the_command_line_lists_and_acknowledges_alarms(refused, dad, vault):
    out = StringIO()
    call_command("notebook", "vault", "alarms", stdout=out)
    alarm = alarms.vault_alarms()[0]
    assert f"#{alarm.id} " in out.getvalue() and "zelda rewritten" in out.getvalue()
    out = StringIO()
    call_command("notebook", "vault", "ack", str(alarm.id), "--by", "dad", stdout=out)
    assert "acknowledged" in out.getvalue()
    err = StringIO()
    call_command("notebook", "vault", "alarms", stdout=StringIO(), stderr=err)
    assert "(no alarms)" in err.getvalue()
    assert file_bytes(vault).count(b"\n") == 3  # restored, all along
    out = StringIO()
    call_command("notebook", "vault", "alarms", "--all", stdout=out)
    assert f"#{alarm.id} " in out.getvalue() and "; acknowledged by dad 20" in out.getvalue()
    out = StringIO()
    call_command("notebook", "vault", "alarms", "--all", "--json", stdout=out)
    assert json.loads(out.getvalue())[0]["acknowledged_by"] == "dad"


def test_dads_pages_carry_the_banner(refused, dad, client):
    client.force_login(dad)
    html = client.get("/sessions/").content.decode()
    assert "The vault refused 1 file" in html and refused.evidence_ref in html
