"""The vault's sweep: files kept exactly the log's rows, outside appends imported, anything else refused."""

import json
import os
import time
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from notebooks.log import services
from notebooks.log.files import imports
from notebooks.log.identity import writer_keys
from notebooks.log.views import selectors
from notebooks.vault import Vault, alarms
from tests.vault.vaulttools import (
    add,
    append_to,
    at,
    canonical,
    commits,
    file_bytes,
    outside,
    rows_of,
    signed,
)


def test_it_creates_the_repository_with_a_root_commit(vault):
    assert (vault.root / ".git").is_dir()
    assert len(commits(vault)) == 1


def test_a_file_holds_exactly_what_export_prints(vault, zelda):
    vault.sweep(claimed=set())
    out = StringIO()
    call_command("notebook", "export", "zelda", stdout=out)
    assert file_bytes(vault) == out.getvalue().encode("utf-8")
    assert file_bytes(vault) == canonical()
    assert file_bytes(vault).endswith(b"\n") and file_bytes(vault).count(b"\n") == 3


def test_an_empty_notebook_is_an_empty_file(vault, notebook):
    vault.sweep(claimed=set())
    assert file_bytes(vault) == b""


def test_new_rows_are_written_and_committed_naming_the_actors(vault, zelda):
    vault.sweep(claimed=set())
    add("the guard blocks low", by="reflector")
    result = vault.sweep(claimed=set())
    assert [f.appended for f in result.files] == [1]
    assert file_bytes(vault) == canonical()
    newest = commits(vault)[0]
    assert newest["sha"] == result.commit
    assert "zelda.jsonl: row 4 by reflector" in newest["body"]
    assert "Actors: reflector" in newest["body"]
    assert at(vault, "HEAD") == canonical()


def test_a_sweep_with_nothing_new_makes_no_commit(vault, zelda):
    vault.sweep(claimed=set())
    before = commits(vault)
    result = vault.sweep(claimed=set())
    assert result.commit is None
    assert commits(vault) == before


def test_one_commit_covers_every_notebook_a_sweep_changed(vault, zelda):
    services.create_notebook(title="mario", by="test")
    add("jump on the second block", title="mario", by="pippa")
    result = vault.sweep(claimed=set())
    assert len(commits(vault)) == 2
    assert "mario +1" in commits(vault)[0]["subject"] and "zelda +3" in commits(vault)[0]["subject"]
    assert "Actors: dad, pippa" in commits(vault)[0]["body"]
    assert result.commit == commits(vault)[0]["sha"]


def test_outside_appends_are_imported_by_the_writer_each_proves_and_unsigned_ones_by_the_outside_agent(vault, zelda):
    vault.sweep(claimed=set())
    (pippas,) = signed(outside(n=4, text="the guard blocks low", source="seen", by="pippa"))
    claim = outside(n=5, text="the moat is shallow", source="guessed", by="pippa")  # unsigned: a claim, not a proof
    (reflectors,) = signed(outside("edit", n=4, to="the guard blocks low, twice", by="reflector", why="seen again"))
    append_to(vault, "zelda", pippas, claim, reflectors)
    result = vault.sweep(claimed=set())
    (f,) = result.files
    assert f.imported == (4, 5, 6) and f.imported_by == ("pippa", "outside", "reflector")
    history = selectors.history(selectors.get_notebook("zelda"), 4)
    assert [(e.op, e.by, e.text) for e in history] == [
        ("add", "pippa", "the guard blocks low"),
        ("edit", "reflector", "the guard blocks low, twice"),
    ]
    assert file_bytes(vault) == canonical()  # rewritten with their seq and hash
    assert all("hash" in row for row in rows_of(file_bytes(vault)))
    assert "appended outside and imported: 4-6" in commits(vault)[0]["body"]
    assert "Actors: outside, pippa, reflector" in commits(vault)[0]["body"]
    assert alarms.vault_alarms() == []


def test_the_default_by_of_a_sweep_names_who_started_a_new_notebook_never_a_rows_author(vault, zelda):
    vault.sweep(claimed=set())
    append_to(vault, "zelda", outside(n=4, text="the moat is shallow", source="guessed"))
    vault.path("hyrule").write_text(outside(n=1, text="a new file", source="seen") + "\n")
    vault.sweep(claimed=set(), by_default="old-harness")
    assert selectors.history(selectors.get_notebook("zelda"), 4)[0].by == "outside"
    assert selectors.history(selectors.get_notebook("hyrule"), 1)[0].by == "outside"
    assert selectors.get_notebook("hyrule").created_by == "old-harness"


def test_an_outside_append_with_its_own_seq_and_hash_is_checked(vault, zelda):
    vault.sweep(claimed=set())
    good = canonical()
    row = {"op": "add", "n": 4, "text": "x", "source": "seen", "by": "pippa", "why": "", "at": time.time(), "seq": 5}
    append_to(vault, "zelda", json.dumps(row))
    result = vault.sweep(claimed=set())
    assert result.problems[0].problem == "refused_append"
    assert "line 4: 'seq' is 5 but this row is number 4" in result.problems[0].message
    assert file_bytes(vault) == good


def test_an_outside_row_dated_in_2255_is_refused_with_an_alarm_and_later_adds_keep_todays_date(vault, zelda):
    vault.sweep(claimed=set())
    good = canonical()
    append_to(vault, "zelda", outside(n=4, text="from the future", source="seen", by="pippa", at=9e9))
    result = vault.sweep(claimed=set())
    assert result.problems[0].problem == "refused_append"
    assert "line 4: 'at' is 2255-03-14" in result.problems[0].message
    assert [a.problem for a in alarms.vault_alarms()] == ["refused_append"]
    assert file_bytes(vault) == good
    assert add("a line written today") == 4
    assert selectors.head(zelda).at <= time.time()


def test_a_new_file_from_outside_starts_a_notebook(vault, db):
    vault.path("mario").write_text(outside(n=1, text="jump twice", source="seen", by="pippa") + "\n")
    result = vault.sweep(claimed=set())
    assert result.files[0].imported == (1,)
    assert [line.text for line in selectors.view(selectors.get_notebook("mario"))] == ["jump twice"]
    assert at(vault, "HEAD", "mario") == canonical("mario")


def test_a_file_with_a_bad_title_is_left_alone(vault, db):
    vault.path("not a title!").write_text(outside(n=1, text="x", source="seen") + "\n")
    result = vault.sweep(claimed=set())
    assert result.ignored == ["not a title!.jsonl"]
    assert result.files == [] and result.commit is None


def _refused(vault: Vault, problem: str, found: bytes | None) -> None:
    """The file was refused, kept as found on an evidence branch, restored, and the alarm is raised."""
    result = vault.sweep(claimed=set())
    (f,) = result.problems
    assert f.problem == problem
    assert f.evidence_ref.startswith("refs/heads/evidence/zelda-")
    assert at(vault, f.evidence_ref) == found
    assert commits(vault, f.evidence_ref)[1]["sha"] == result.head  # a side branch off the vault's head
    assert file_bytes(vault) == canonical()
    assert at(vault, "HEAD") == canonical()
    (alarm,) = alarms.vault_alarms()
    assert (alarm.title, alarm.problem, alarm.evidence_ref) == ("zelda", problem, f.evidence_ref)


def test_a_rewritten_file_is_refused_and_kept_as_evidence(vault, zelda):
    vault.sweep(claimed=set())
    rows_before = selectors.head(zelda).seq
    # The seed's hand rewrite: fewer, cleaner lines, numbered afresh.
    rewrite = outside(n=1, text="block first, then roll", source="dad", by="dad") + "\n"
    vault.path("zelda").write_text(rewrite)
    _refused(vault, "rewritten", rewrite.encode())
    assert selectors.head(zelda).seq == rows_before  # nothing imported
    assert "line 1 differs" in alarms.vault_alarms()[0].message


def test_a_changed_quote_is_refused(vault, zelda):
    vault.sweep(claimed=set())
    changed = file_bytes(vault).replace(b"second swing", b"third swing")
    vault.path("zelda").write_bytes(changed)
    _refused(vault, "rewritten", changed)


def test_reordered_lines_are_refused(vault, zelda):
    vault.sweep(claimed=set())
    first, second, third = file_bytes(vault).splitlines(keepends=True)
    vault.path("zelda").write_bytes(second + first + third)  # same size, same second: still seen
    _refused(vault, "rewritten", second + first + third)


def test_a_same_size_rewrite_that_keeps_the_files_time_is_still_seen(vault, zelda):
    """Size and mtime alone are not trusted while the file was fresh when last read (git's "racily clean")."""
    vault.sweep(claimed=set())
    before = os.stat(vault.path("zelda"))
    changed = file_bytes(vault).replace(b"second swing", b"secund swing")
    with open(vault.path("zelda"), "r+b") as f:  # in place: same inode, same size
        f.write(changed)
    os.utime(vault.path("zelda"), ns=(before.st_atime_ns, before.st_mtime_ns))
    _refused(vault, "rewritten", changed)


def test_a_truncated_file_is_refused(vault, zelda):
    vault.sweep(claimed=set())
    cut = b"".join(file_bytes(vault).splitlines(keepends=True)[:1])
    vault.path("zelda").write_bytes(cut)
    _refused(vault, "truncated", cut)


def test_a_deleted_file_is_refused_and_restored(vault, zelda):
    vault.sweep(claimed=set())
    os.unlink(vault.path("zelda"))
    _refused(vault, "deleted", None)


def test_an_invalid_append_is_refused_naming_the_line(vault, zelda):
    vault.sweep(claimed=set())
    good = file_bytes(vault)
    append_to(vault, "zelda", outside(n=4, text="fine", source="seen"), "{not json")
    bad = file_bytes(vault)
    _refused(vault, "refused_append", bad)
    assert "line 5: not valid JSON" in alarms.vault_alarms()[0].message
    assert selectors.head(zelda).seq == 3  # all or nothing: the good row was not imported either
    assert file_bytes(vault) == good


def test_an_agents_append_may_not_touch_dads_line(vault, zelda):
    vault.sweep(claimed=set())
    append_to(vault, "zelda", *signed(outside("strike", n=3, by="pippa", why="I disagree")))
    result = vault.sweep(claimed=set())
    assert "pippa may not retire line #3" in result.problems[0].message
    assert selectors.head(zelda).seq == 3


def test_rows_appended_while_the_log_moved_on_follow_the_log(vault, zelda):
    vault.sweep(claimed=set())
    add("dad's page wrote this meanwhile", by="dad", source="dad")
    append_to(vault, "zelda", outside(n=5, text="the harness wrote this", source="seen", by="pippa"))
    result = vault.sweep(claimed=set())
    assert result.problems == []
    assert result.files[0].imported == (5,)
    assert [r["text"] for r in rows_of(file_bytes(vault))[3:]] == [
        "dad's page wrote this meanwhile",
        "the harness wrote this",
    ]
    assert file_bytes(vault) == canonical()


def test_an_unfinished_last_line_waits_for_the_next_sweep(vault, zelda):
    vault.sweep(claimed=set())
    with open(vault.path("zelda"), "ab") as f:
        f.write(b'{"op": "add", "n": 4, "text": "half')
    result = vault.sweep(claimed=set())
    assert "has no newline yet" in result.files[0].waiting
    assert result.problems == []
    with open(vault.path("zelda"), "ab") as f:
        f.write(b' a line", "source": "seen", "at": %d}\n' % (time.time() + 60))
    result = vault.sweep(claimed=set())
    assert result.files[0].imported == (4,)


def test_an_unfinished_line_that_never_finishes_is_refused(vault, zelda):
    vault.sweep(claimed=set())
    with open(vault.path("zelda"), "ab") as f:
        f.write(b"{garbage")
    assert vault.sweep(claimed=set()).files[0].waiting
    result = vault.sweep(claimed=set())
    assert result.problems[0].problem == "refused_append"
    assert file_bytes(vault) == canonical()


def test_a_lost_state_falls_back_to_comparing_with_the_log(vault, zelda):
    vault.sweep(claimed=set())
    (vault.root / ".git" / "notebooks-vault-state.json").unlink()
    add("after the state was lost")
    append_to(vault, "zelda")  # nothing: the file lags the log
    result = vault.sweep(claimed=set())
    assert result.files[0].appended == 1 and result.problems == []
    assert file_bytes(vault) == canonical()


@pytest.mark.parametrize(
    ("was", "now"), [(b'"by": "pippa"', b'"by": "dad"'), (b'"source": "seen"', b'"source": "dad"')]
)
def test_a_row_the_vault_wrote_changed_by_hand_is_refused_though_its_state_was_lost(vault, zelda, was, now):
    vault.sweep(claimed=set())
    (vault.root / ".git" / "notebooks-vault-state.json").unlink()
    first, *rest = file_bytes(vault).splitlines(keepends=True)
    assert was in first
    changed = b"".join([first.replace(was, now), *rest])
    vault.path("zelda").write_bytes(changed)
    _refused(vault, "rewritten", changed)


def test_a_file_with_seq_and_hash_rebuilds_a_notebook_with_the_same_chain_when_its_writers_sign_it(vault, zelda):
    """What a database restored from an older backup would meet: rows it lacks, each one checked by its hash, and
    each one proven by its writer (an unsigned copy of Dad's rows cannot pass for his: notebook import can)."""
    vault.sweep(claimed=set())
    rows = [line.decode() for line in file_bytes(vault).splitlines()]
    vault.path("zelda-restored").write_text("".join(line + "\n" for line in signed(*rows, title="zelda-restored")))
    result = vault.sweep(claimed=set())
    assert [f.imported for f in result.files if f.title == "zelda-restored"] == [(1, 2, 3)]
    assert selectors.head(selectors.get_notebook("zelda-restored")) == selectors.head(zelda)
    assert canonical("zelda-restored") == canonical("zelda")


def test_an_unsigned_copy_of_a_file_with_dads_rows_is_refused_and_starts_no_notebook_as_his(vault, zelda):
    vault.sweep(claimed=set())
    vault.path("zelda-restored").write_bytes(file_bytes(vault))
    result = vault.sweep(claimed=set())
    assert result.problems[0].problem == "refused_append"
    assert "line 3: outside is an agent and may write only seen or guessed lines, not dad" in result.problems[0].message


def test_sync_prints_what_it_did(vault, zelda):
    out = StringIO()
    call_command("notebook", "vault", "sync", stdout=out)
    assert "zelda.jsonl: wrote 3 row(s)" in out.getvalue()
    assert "committed" in out.getvalue()


def test_sync_reports_a_refusal_on_stderr_and_exits_non_zero(vault, zelda):
    call_command("notebook", "vault", "sync", stdout=StringIO())
    vault.path("zelda").write_text("rewritten by hand\n")
    err = StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("notebook", "vault", "sync", stdout=StringIO(), stderr=err)
    assert caught.value.returncode == 6
    assert "REFUSED zelda.jsonl is not an append of the log" in err.getvalue()
    assert "refs/heads/evidence/zelda-" in err.getvalue()


def test_a_refusal_that_kept_no_evidence_names_no_branch(vault, zelda):
    call_command("notebook", "vault", "sync", stdout=StringIO())
    os.mkfifo(vault.root / "pipe.jsonl")  # never read, so nothing is kept on an evidence branch
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("notebook", "vault", "sync", stdout=StringIO(), stderr=err)
    assert "REFUSED pipe.jsonl was a named pipe" in err.getvalue()
    assert "kept on" not in err.getvalue()


def test_sync_takes_the_vault_directory_as_an_option(db, zelda, tmp_path):
    call_command("notebook", "vault", "sync", "--vault", str(tmp_path / "elsewhere"), stdout=StringIO())
    assert (tmp_path / "elsewhere" / "zelda.jsonl").read_bytes() == canonical()


def test_a_file_that_changes_while_it_is_swept_is_left_for_the_next_sweep(vault, zelda, monkeypatch):
    import notebooks.vault.mirror as mirror  # the refusal restores the file from canonical_bytes

    vault.sweep(claimed=set())
    append_to(vault, "zelda", "{a bad line")
    late = outside(n=9, text="written late", source="seen")
    real = mirror.canonical_bytes

    def a_writer_strikes_meanwhile(nb):  # noqa: ANN001, ANN202 - between the sweep's read and its restore
        append_to(vault, "zelda", late)
        return real(nb)

    monkeypatch.setattr(mirror, "canonical_bytes", a_writer_strikes_meanwhile)
    result = vault.sweep(claimed=set())
    assert result.files[0].waiting == "the file changed while it was being swept"
    assert late.encode() in file_bytes(vault)  # not replaced under the writer
    monkeypatch.undo()
    result = vault.sweep(claimed=set())  # judged as it now is: refused, with the late row in the evidence
    assert late.encode() in at(vault, result.problems[0].evidence_ref)
    assert file_bytes(vault) == canonical()


def test_rows_imported_before_the_file_could_be_rewritten_are_not_imported_twice(vault, zelda, monkeypatch):
    import notebooks.vault.mirror as mirror

    vault.sweep(claimed=set())
    append_to(vault, "zelda", outside("edit", n=1, to="roll after the second swing, then block", by="pippa", why="x"))

    def stopped(*args: object) -> None:
        raise mirror._Moved  # as if the process stopped after the import, before the file was rewritten

    monkeypatch.setattr(mirror.Vault, "_write", stopped)
    assert vault.sweep(claimed=set()).files[0].waiting
    assert selectors.head(zelda).seq == 4  # imported
    monkeypatch.undo()
    result = vault.sweep(claimed=set())
    assert result.problems == [] and result.files[0].imported == ()
    assert selectors.head(zelda).seq == 4  # not twice
    assert file_bytes(vault) == canonical()


def test_a_row_by_dad_from_a_file_is_refused_with_an_alarm_once_he_holds_no_editor_role(vault, zelda, dad):
    vault.sweep(claimed=set())
    dads_key = writer_keys.issue(actor="dad", editor=True)
    dad.is_active = False  # no active user named dad holds the role: the name alone grants nothing
    dad.save()
    # Signed with Dad's editor's key, issued while he held the role: his key writes as the editor no longer.
    (row,) = signed(outside("edit", n=3, to="attack first", by="dad", why="by name only"), key=dads_key)
    append_to(vault, "zelda", row)
    result = vault.sweep(claimed=set())
    assert "dad may not edit line #3" in result.problems[0].message
    assert alarms.vault_alarms()[0].problem == "refused_append"
    assert selectors.head(zelda).seq == 3


def test_rows_another_sweep_imported_are_not_imported_again_when_more_were_appended_since(vault, zelda):
    vault.sweep(claimed=set())
    (first,) = signed(outside(n=4, text="the east gate opens at dawn", source="seen", by="pippa", why="saw it"))
    append_to(vault, "zelda", first)
    # Another process's sweep imported that row but could not rewrite the file (it moved under it)…
    imports.append_rows(notebook="zelda", lines=[first], by_default="harness")
    services.add(notebook="zelda", text="a line through the API meanwhile", source="seen", by="pippa", why="saw it")
    # …and the outside writer went on appending.
    append_to(
        vault, "zelda", *signed(outside(n=6, text="the west gate stays shut", source="seen", by="pippa", why="saw it"))
    )
    result = vault.sweep(claimed=set())
    assert result.problems == []
    assert alarms.vault_alarms() == []
    texts = [line.text for line in selectors.view(zelda)]
    assert texts.count("the east gate opens at dawn") == 1 and "the west gate stays shut" in texts
    assert file_bytes(vault) == "".join(line + "\n" for line in selectors.export(zelda)).encode()
