"""`notebook key issue|revoke|list|sign`, and the standard-library signer docs/vault.md shows."""

import json
import re
import subprocess
import sys
from io import BytesIO, StringIO, TextIOWrapper

import pytest
from django.core.management import CommandError, call_command

from notebooks.log.identity import writer_keys
from tests.databases import ROOT

ROWS = [
    {"op": "add", "n": 4, "text": "Keese are fast. «é»", "source": "seen", "by": "pippa", "why": "saw it", "at": 1.7e9},
    {"op": "strike", "n": 2, "how": "retired", "by": "pippa", "why": "wrong", "at": 1700000001},
]


def _run(*args: str, stdin: bytes | None = None, monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", TextIOWrapper(BytesIO(stdin), encoding="utf-8"))
    call_command("notebook", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def _issue(*args: str) -> tuple[str, str]:
    out, _ = _run("key", "issue", *args)
    first, secret = out.strip().splitlines()
    return re.search(r"writer key (wk[0-9a-f]{10})", first).group(1), secret


def _jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


def test_key_issue_prints_the_key_id_and_its_secret_once_on_the_last_line(db):
    key_id, secret = _issue("--actor", "pippa", "--by", "dad")
    assert writer_keys.actor_for(key_id).actor.name == "pippa"
    assert writer_keys.keys()[0].created_by == "dad"
    assert secret == writer_keys.secret_of(writer_keys.keys()[0])


def test_key_issue_for_the_editor_needs_the_role(dad):
    key_id, _ = _issue("--actor", "dad", "--editor")
    assert writer_keys.actor_for(key_id).actor.editor
    with pytest.raises(CommandError) as refused:
        _run("key", "issue", "--actor", "pippa", "--editor")
    assert refused.value.returncode == 3


def test_key_issue_refuses_a_name_with_a_control_character(db):
    with pytest.raises(CommandError) as refused:
        _run("key", "issue", "--actor", "dad\x1b[0m")
    assert refused.value.returncode == 2 and not writer_keys.keys()


def test_key_list_shows_every_key_and_never_a_secret(db):
    first, secret = _issue("--actor", "pippa")
    _issue("--actor", "bob")
    _run("key", "revoke", first, "--by", "dad", "--why", "leaked")
    listing, _ = _run("key", "list")
    assert secret not in listing and secret[4:20] not in listing
    assert re.search(rf"^{first} pippa agent created .* by cli revoked .* by dad$", listing, re.M)
    assert re.search(r"^wk[0-9a-f]{10} bob agent .* live$", listing, re.M)
    as_json = json.loads(_run("key", "list", "--actor", "pippa", "--json")[0])
    assert [k["key_id"] for k in as_json] == [first] and as_json[0]["revoked_why"] == "leaked"
    assert secret not in json.dumps(as_json)


def test_key_revoke_twice_is_a_conflict_and_an_unknown_key_not_found(db):
    key_id, _ = _issue("--actor", "pippa")
    assert "revoked writer key" in _run("key", "revoke", key_id)[0]
    assert writer_keys.actor_for(key_id) is None
    with pytest.raises(CommandError) as again:
        _run("key", "revoke", key_id)
    with pytest.raises(CommandError) as unknown:
        _run("key", "revoke", "wk0000000000")
    assert (again.value.returncode, unknown.value.returncode) == (5, 4)


def test_key_sign_prints_each_row_signed_as_the_key_proves(db, tmp_path, monkeypatch):
    key_id, secret = _issue("--actor", "pippa")
    (tmp_path / "pippa.key").write_text(secret + "\n")
    out, _ = _run(
        "key", "sign", "--notebook", "zelda", "--key-id", key_id, "--secret-file", str(tmp_path / "pippa.key"),
        stdin=_jsonl(ROWS[:1]) + b"\n" + _jsonl(ROWS[1:]), monkeypatch=monkeypatch,
    )  # fmt: skip
    signed = [json.loads(line) for line in out.splitlines()]
    assert [{k: v for k, v in r.items() if k not in ("kid", "mac")} for r in signed] == ROWS
    assert secret not in out
    for row in signed:
        writer, why = writer_keys.proven_writer(row, notebook="zelda")
        assert why == "" and writer.actor.name == "pippa"


def test_key_sign_reads_the_secret_from_the_environment(db, monkeypatch):
    key_id, secret = _issue("--actor", "pippa")
    monkeypatch.setenv("NOTEBOOK_WRITER_KEY", secret)
    out, _ = _run("key", "sign", "--notebook", "zelda", "--key-id", key_id, stdin=_jsonl(ROWS), monkeypatch=monkeypatch)
    assert all(writer_keys.proven_writer(json.loads(line), notebook="zelda")[0] for line in out.splitlines())


@pytest.mark.parametrize(
    "stdin", [b"", b"not json\n", b'{"op":"add"}\n[1, 2]\n', b'{"at": NaN}\n', b'{"to": "\\ud800"}\n', b"\xff\n"]
)
def test_key_sign_refuses_input_that_is_not_json_objects_and_prints_nothing(db, monkeypatch, stdin):
    key_id, secret = _issue("--actor", "pippa")
    monkeypatch.setenv("NOTEBOOK_WRITER_KEY", secret)
    out = StringIO()
    monkeypatch.setattr(sys, "stdin", TextIOWrapper(BytesIO(stdin), encoding="utf-8"))
    with pytest.raises(CommandError) as refused:
        call_command("notebook", "key", "sign", "--notebook", "zelda", "--key-id", key_id, stdout=out)
    assert refused.value.returncode == 2 and out.getvalue() == ""


def test_key_sign_refuses_a_missing_or_malformed_secret_or_key_id(db, tmp_path, monkeypatch):
    monkeypatch.delenv("NOTEBOOK_WRITER_KEY", raising=False)
    (tmp_path / "bad.key").write_text("hunter2")
    attempts = [
        ("--key-id", "wk0123456789"),
        ("--key-id", "wk0123456789", "--secret-file", str(tmp_path / "absent.key")),
        ("--key-id", "wk0123456789", "--secret-file", str(tmp_path / "bad.key")),
        ("--key-id", "dad", "--secret-file", str(tmp_path / "bad.key")),
    ]
    for args in attempts:
        with pytest.raises(CommandError) as refused:
            _run("key", "sign", "--notebook", "zelda", *args, stdin=_jsonl(ROWS), monkeypatch=monkeypatch)
        assert refused.value.returncode == 2
    with pytest.raises(CommandError) as refused:
        _run("key", "sign", "--notebook", "../etc", "--key-id", "wk0123456789", stdin=b"", monkeypatch=monkeypatch)
    assert refused.value.returncode == 2


def _documented_signer() -> str:
    text = (ROOT / "docs" / "vault.md").read_text(encoding="utf-8")
    section = text[text.index("## Writer keys") :]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_standard_library_signer_in_the_docs_signs_as_the_command_does(db, tmp_path, monkeypatch):
    code = _documented_signer()
    assert len([line for line in code.splitlines() if line.strip()]) <= 10
    key_id, secret = _issue("--actor", "pippa")
    (tmp_path / "pippa.key").write_text(secret)
    (tmp_path / "sign.py").write_text(code)
    done = subprocess.run(
        [sys.executable, str(tmp_path / "sign.py"), "zelda", key_id, str(tmp_path / "pippa.key")],
        input=_jsonl(ROWS), capture_output=True, timeout=30, check=True,
    )  # fmt: skip
    by_docs = [json.loads(line) for line in done.stdout.decode().splitlines()]
    monkeypatch.setenv("NOTEBOOK_WRITER_KEY", secret)
    out, _ = _run("key", "sign", "--notebook", "zelda", "--key-id", key_id, stdin=_jsonl(ROWS), monkeypatch=monkeypatch)
    assert by_docs == [json.loads(line) for line in out.splitlines()]
    assert all(writer_keys.proven_writer(row, notebook="zelda")[0] for row in by_docs)
