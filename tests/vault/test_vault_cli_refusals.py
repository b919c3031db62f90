"""The vault's commands refuse a bad path or interval in one line, before sweeping anything."""

import io
import sys
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from notebooks.log import services
from notebooks.models import Row


def _run(*args: str) -> str:
    out = StringIO()
    call_command("notebook", "vault", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_sync_refuses_a_vault_path_that_is_a_file(db, tmp_path):
    a_file = tmp_path / "not-a-directory"
    a_file.write_text("hello\n")
    with pytest.raises(CommandError) as refused:
        _run("sync", "--vault", str(a_file))
    assert refused.value.returncode == 1
    assert "it is a file, not a directory" in str(refused.value)
    assert a_file.read_text() == "hello\n"


def test_sync_refuses_a_vault_path_it_cannot_create(db, tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    with pytest.raises(CommandError) as refused:
        _run("sync", "--vault", str(a_file / "vault"))
    assert refused.value.returncode == 1 and "cannot use" in str(refused.value)


@pytest.mark.parametrize("interval", ["-1", "nan", "inf", "soon"])
def test_watch_refuses_an_interval_that_is_not_seconds(db, tmp_path, interval):
    with pytest.raises(CommandError) as refused:
        _run("watch", "--vault", str(tmp_path / "vault"), "--interval", interval, "--sweeps", "1")
    assert "is not a number of seconds, 0 or more" in str(refused.value)
    assert not (tmp_path / "vault").exists()


def test_watch_refuses_no_pause_without_an_end(db, tmp_path):
    with pytest.raises(CommandError) as refused:
        _run("watch", "--vault", str(tmp_path / "vault"), "--interval", "0")
    assert refused.value.returncode == 2 and "--interval 0 needs --sweeps N" in str(refused.value)
    assert not (tmp_path / "vault").exists()


def test_watch_may_sweep_a_fixed_number_of_times_without_pause(db, tmp_path):
    out = _run("watch", "--vault", str(tmp_path / "vault"), "--interval", "0", "--sweeps", "2")
    assert out.rstrip().endswith("stopped")


def test_watch_accepts_a_fraction_of_a_second(db, tmp_path):
    out = _run("watch", "--vault", str(tmp_path / "vault"), "--interval", "0.05", "--sweeps", "1")
    assert "every 0.05s" in out and out.rstrip().endswith("stopped")


def test_append_to_a_notebook_whose_file_is_a_directory_is_one_line_and_appends_nothing(db, tmp_path, monkeypatch):
    services.create_notebook(title="zelda", by="dad")
    vault = tmp_path / "vault"
    _run("sync", "--vault", str(vault))
    (vault / "zelda.jsonl").unlink()
    (vault / "zelda.jsonl").mkdir()
    row = b'{"op": "add", "n": 1, "text": "x", "source": "seen", "why": "w"}\n'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(row)))
    with pytest.raises(CommandError) as refused:
        _run("append", "zelda", "--vault", str(vault))
    assert refused.value.returncode == 1 and "zelda.jsonl is a directory" in str(refused.value)
    assert "nothing appended" in str(refused.value) and not Row.objects.exists()


@pytest.mark.parametrize("line", [b"\xef\xbb\xbf{}", b'{"why": "\xed\xa0\x80"}', b'{"why": "\xff"}'])
def test_append_of_a_line_that_is_not_utf_8_is_exit_2_and_appends_nothing(db, tmp_path, monkeypatch, line):
    services.create_notebook(title="zelda", by="dad")
    vault = tmp_path / "vault"
    _run("sync", "--vault", str(vault))
    before = (vault / "zelda.jsonl").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(line + b"\n")))
    with pytest.raises(CommandError) as refused:
        _run("append", "zelda", "--vault", str(vault))
    assert refused.value.returncode == 2 and "is not one JSON object in UTF-8: nothing appended" in str(refused.value)
    assert (vault / "zelda.jsonl").read_bytes() == before and not Row.objects.exists()
