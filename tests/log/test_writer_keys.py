"""Writer keys (log/identity/writer_keys.py) and signed rows (log/identity/signing.py): what will prove who wrote a
vault row."""

import hashlib

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import ImproperlyConfigured

from notebooks.log.identity import signing, writer_keys
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid, NotFound
from notebooks.models import WriterKey

ROW = {"op": "edit", "n": 3, "to": "Dad: roll after the second swing.", "by": "dad", "why": "seen it", "at": 1.7e9}


def test_issuing_a_key_returns_its_secret_and_stores_nothing_it_could_be_recovered_from(db):
    issued = writer_keys.issue(actor="pippa")
    stored = WriterKey.objects.filter(pk=issued.key.pk).values().get()
    digest = hashlib.sha256(issued.secret.encode()).hexdigest()
    assert issued.secret.startswith("nbw_") and signing.SECRET.fullmatch(issued.secret)
    assert not any(issued.secret[4:20] in str(v) or digest in str(v) for v in stored.values())
    assert stored["actor"] == "pippa" and stored["editor"] is False and stored["revoked_at"] is None
    assert signing.KEY_ID.fullmatch(stored["key_id"]) and len(stored["salt"]) == 32
    # Derived again when a row is checked: the same secret while the server's secret stays the same.
    assert writer_keys.secret_of(WriterKey.objects.get(pk=issued.key.pk)) == issued.secret


def test_two_keys_of_one_actor_have_different_ids_and_secrets(db):
    first, second = writer_keys.issue(actor="pippa"), writer_keys.issue(actor="pippa")
    assert first.key.key_id != second.key.key_id and first.secret != second.secret


def test_a_changed_server_secret_changes_every_writer_secret(db, settings):
    settings.NOTEBOOK_WRITER_KEY_SECRET = "one server secret"
    issued = writer_keys.issue(actor="pippa")
    signed = signing.sign(ROW, issued.key.key_id, issued.secret, notebook="zelda")
    assert writer_keys.proven_writer(signed, notebook="zelda")[0] is not None
    settings.NOTEBOOK_WRITER_KEY_SECRET = "another"
    writer, why = writer_keys.proven_writer(signed, notebook="zelda")
    assert writer is None and "does not match" in why


def test_without_its_own_setting_the_server_secret_is_derived_from_secret_key_not_equal_to_it(settings):
    settings.NOTEBOOK_WRITER_KEY_SECRET = ""
    settings.SECRET_KEY = "k1"
    one = writer_keys.server_secret()
    settings.SECRET_KEY = "k2"
    assert one != writer_keys.server_secret() and b"k1" not in one and len(one) == 32


def test_a_key_names_its_actor_through_the_one_name_check(db):
    for bad in ("", "dad\nSession: 4", "\x1b[31mdad", "x" * 81):
        with pytest.raises(Invalid):
            writer_keys.issue(actor=bad)
    assert not WriterKey.objects.exists()


def test_an_editor_key_is_issued_only_to_an_actor_holding_the_role(dad):
    with pytest.raises(Forbidden, match="editor"):
        writer_keys.issue(actor="pippa", editor=True)
    assert writer_keys.issue(actor="dad", editor=True).key.editor


def test_keys_lists_oldest_first_by_actor_and_live_only(db):
    a, b, c = (writer_keys.issue(actor=name).key for name in ("pippa", "bob", "pippa"))
    writer_keys.revoke(key_id=a.key_id, by="dad", why="lost the laptop")
    assert [k.key_id for k in writer_keys.keys()] == [a.key_id, b.key_id, c.key_id]
    assert [k.key_id for k in writer_keys.keys(actor="pippa")] == [a.key_id, c.key_id]
    assert [k.key_id for k in writer_keys.keys(actor="pippa", live_only=True)] == [c.key_id]


def test_a_live_key_maps_to_its_actor_and_a_revoked_one_to_nobody(db):
    issued = writer_keys.issue(actor="pippa")
    writer = writer_keys.actor_for(issued.key.key_id)
    assert writer.actor.name == "pippa" and not writer.actor.editor
    revoked = writer_keys.revoke(key_id=issued.key.key_id, by="dad", why="leaked")
    assert (revoked.revoked_by, revoked.revoked_why) == ("dad", "leaked") and revoked.revoked_at is not None
    assert writer_keys.actor_for(issued.key.key_id) is None


def test_a_revoke_is_final_and_names_the_key(db):
    key = writer_keys.issue(actor="pippa").key
    writer_keys.revoke(key_id=key.key_id)
    with pytest.raises(Conflict, match="revoked already"):
        writer_keys.revoke(key_id=key.key_id)
    with pytest.raises(NotFound):
        writer_keys.revoke(key_id="wk0000000000")


def test_an_unknown_or_malformed_key_id_maps_to_nobody(db):
    assert writer_keys.actor_for("wk0000000000") is None
    assert writer_keys.actor_for("' OR 1=1 --") is None
    assert writer_keys.actor_for(None) is None  # type: ignore[arg-type]


def test_an_editor_key_writes_as_editor_only_while_the_user_holds_the_role(dad):
    key_id = writer_keys.issue(actor="dad", editor=True).key.key_id
    assert writer_keys.actor_for(key_id).actor.editor
    dad.groups.remove(Group.objects.get(name="editors"))
    writer = writer_keys.actor_for(key_id)
    assert writer.actor.name == "dad" and not writer.actor.editor  # still his, no longer the editor's
    dad.groups.add(Group.objects.get(name="editors"))
    assert writer_keys.actor_for(key_id).actor.editor
    dad.is_active = False
    dad.save()
    assert not writer_keys.actor_for(key_id).actor.editor


def test_an_agent_key_never_writes_as_editor_even_for_the_editor(dad):
    key_id = writer_keys.issue(actor="dad").key.key_id
    assert not writer_keys.actor_for(key_id).actor.editor


# ----- signed rows ---------------------------------------------------------------------------------------------


def _signed(actor: str = "pippa", **extra: object) -> tuple[dict, str]:
    issued = writer_keys.issue(actor=actor, **extra)
    return signing.sign(ROW, issued.key.key_id, issued.secret, notebook="zelda"), issued.key.key_id


def test_a_signed_row_proves_its_key_and_its_writer(db):
    signed, key_id = _signed()
    assert {k: v for k, v in signed.items() if k not in ("kid", "mac")} == ROW and signed["kid"] == key_id
    assert signing.MAC_PATTERN.fullmatch(signed["mac"])
    writer, why = writer_keys.proven_writer(signed, notebook="zelda")
    assert why == "" and writer.key_id == key_id and writer.actor.name == "pippa"


def test_signing_leaves_the_row_given_alone_and_replaces_an_old_signature(db):
    signed, key_id = _signed()
    other = writer_keys.issue(actor="bob")
    again = signing.sign(signed, other.key.key_id, other.secret, notebook="zelda")
    assert "kid" not in ROW and again["kid"] == other.key.key_id and again["mac"] != signed["mac"]
    assert writer_keys.proven_writer(again, notebook="zelda")[0].actor.name == "bob"


@pytest.mark.parametrize("field", sorted(ROW))
def test_changing_any_field_of_a_signed_row_makes_it_prove_nothing(db, field):
    signed, _ = _signed()
    value = signed[field]
    changed = {**signed, field: value + 1 if isinstance(value, int | float) else value + "!"}
    writer, why = writer_keys.proven_writer(changed, notebook="zelda")
    assert writer is None and "does not match" in why


def test_adding_or_dropping_a_field_makes_it_prove_nothing(db):
    signed, _ = _signed()
    added = {**signed, "source": "dad"}
    dropped = {k: v for k, v in signed.items() if k != "why"}
    for row in (added, dropped):
        assert writer_keys.proven_writer(row, notebook="zelda")[0] is None


def test_a_row_naming_another_key_or_an_unknown_one_proves_nothing(db):
    signed, _ = _signed(actor="pippa")
    bob = writer_keys.issue(actor="bob").key.key_id
    writer, why = writer_keys.proven_writer({**signed, "kid": bob}, notebook="zelda")
    assert writer is None and f"does not match key {bob}" in why
    writer, why = writer_keys.proven_writer({**signed, "kid": "wk0000000000"}, notebook="zelda")
    assert writer is None and why == "no writer key wk0000000000 was ever issued"


def test_a_changed_or_malformed_mac_proves_nothing(db):
    signed, _ = _signed()
    flipped = signed["mac"][:-1] + ("0" if signed["mac"][-1] != "0" else "1")
    assert "does not match" in writer_keys.proven_writer({**signed, "mac": flipped}, notebook="zelda")[1]
    for bad in (signed["mac"].upper(), signed["mac"][:63], 12, None):
        writer, why = writer_keys.proven_writer({**signed, "mac": bad}, notebook="zelda")
        assert writer is None and "mac is not 64 lowercase hex digits" in why


def test_a_row_signed_for_one_notebook_proves_nothing_in_another(db):
    signed, _ = _signed()
    writer, why = writer_keys.proven_writer(signed, notebook="zelda2")
    assert writer is None and "does not match" in why


def test_a_row_signed_by_a_revoked_key_proves_nothing(db):
    signed, key_id = _signed()
    writer_keys.revoke(key_id=key_id)
    writer, why = writer_keys.proven_writer(signed, notebook="zelda")
    assert writer is None and why == f"writer key {key_id} is revoked"


def test_an_unsigned_row_or_a_bad_kid_says_why_it_proves_nothing(db):
    assert writer_keys.proven_writer(ROW, notebook="zelda") == (None, "the row is not signed (no kid, no mac)")
    writer, why = writer_keys.proven_writer({**ROW, "kid": "dad\n", "mac": "0" * 64}, notebook="zelda")
    assert writer is None and why == "the row's kid is not a writer key id"


def test_the_mac_is_compared_in_constant_time(db, monkeypatch):
    signed, _ = _signed()
    compared = []
    real = signing.hmac.compare_digest
    monkeypatch.setattr(signing.hmac, "compare_digest", lambda a, b: compared.append((a, b)) or real(a, b))
    assert writer_keys.proven_writer(signed, notebook="zelda")[0] is not None
    assert compared == [(signed["mac"], signed["mac"])]


def test_one_prover_looks_each_key_up_once(db, django_assert_max_num_queries):
    signed, _ = _signed()
    prove = writer_keys.prover(notebook="zelda")
    with django_assert_max_num_queries(3):  # the key, its live state, the actor's user: not once a row
        for _ in range(20):
            assert prove(signed)[0] is not None


# ----- canonical bytes -----------------------------------------------------------------------------------------


def test_canonical_bytes_are_sorted_compact_unescaped_utf8_without_kid_and_mac():
    row = {"text": "Keese é “fast”", "op": "add", "n": 1, "at": 1700000000.5, "kid": "wk0123456789", "mac": "ab"}
    expected = '{"at":1700000000.5,"n":1,"op":"add","text":"Keese é “fast”"}'.encode()
    assert signing.canonical_bytes(row) == expected
    reordered = dict(reversed(list(row.items())))
    assert signing.canonical_bytes(reordered) == expected


def test_the_message_binds_the_notebook_title():
    assert signing.message("zelda", ROW) == b"notebooks row v1\x00zelda\x00" + signing.canonical_bytes(ROW)


def test_a_row_with_no_canonical_form_is_refused_at_signing_and_proves_nothing(db):
    issued = writer_keys.issue(actor="pippa")
    for bad in ({**ROW, "at": float("nan")}, {**ROW, "to": "half \ud800 a pair"}):
        with pytest.raises(signing.NotCanonical):
            signing.sign(bad, issued.key.key_id, issued.secret, notebook="zelda")
        writer, why = writer_keys.proven_writer({**bad, "kid": issued.key.key_id, "mac": "0" * 64}, notebook="zelda")
        assert writer is None and "no canonical form" in why


def test_sign_refuses_what_is_not_a_key_id_or_a_secret():
    with pytest.raises(ValueError, match="key id"):
        signing.sign(ROW, "dad", "nbw_" + "a" * 43, notebook="zelda")
    with pytest.raises(ValueError, match="secret"):
        signing.sign(ROW, "wk0123456789", "hunter2", notebook="zelda")


# ----- what an unproven row becomes (read by the import once rows carry kid and mac) ---------------------------


def test_the_unproven_policy_defaults_to_an_outside_agent(db):
    assert writer_keys.unproven_policy() == ("agent", "outside")


def test_the_unproven_policy_refuses_a_bad_setting(dad, settings):
    settings.NOTEBOOK_VAULT_UNPROVEN = "trust"
    with pytest.raises(ImproperlyConfigured, match="'agent' or 'refuse'"):
        writer_keys.unproven_policy()
    settings.NOTEBOOK_VAULT_UNPROVEN = "refuse"
    assert writer_keys.unproven_policy() == ("refuse", "outside")
    settings.NOTEBOOK_VAULT_OUTSIDE_AGENT = "dad"
    with pytest.raises(ImproperlyConfigured, match="editor"):
        writer_keys.unproven_policy()
    settings.NOTEBOOK_VAULT_OUTSIDE_AGENT = "out\nside"
    with pytest.raises(ImproperlyConfigured, match="control character"):
        writer_keys.unproven_policy()
