"""docs/file-format.md's chain checker, run as a reader would run it, on an export holding every kind of row the
services write (add, edit, strike retired and merged, a restore, a redaction, a line moved in and out): it must
accept the chain, and refuse it once one row's words are changed."""

import json
import re
import subprocess
import sys
from pathlib import Path

from notebooks.log import moves, redaction, services
from notebooks.log.views import selectors
from notebooks.sessions import services as sessions
from tests.agent_helpers import DAD

DOC = Path(__file__).resolve().parents[2] / "docs" / "file-format.md"


def _checker() -> str:
    [code] = re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL)
    return code


def _check(lines: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", _checker()], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60
    )


def test_the_guides_checker_accepts_an_export_and_refuses_a_changed_row(notebook, dad):
    add = services.add
    add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="seen")
    add(notebook="zelda", text="always attack first", source="guessed", by="pippa", why="a hunch")
    add(notebook="zelda", text="Zora's domain is north — café", source="seen", by="pippa", why="seen")
    services.edit(notebook="zelda", n=2, to="block first, then attack", by=DAD, why="she died")
    services.retire(notebook="zelda", n=1, by=DAD, why="not needed")
    services.restore(notebook="zelda", n=1, by=DAD, why="it was needed")
    services.merge(notebook="zelda", numbers=[2, 3], text="one line", by=DAD, why="same")
    redaction.redact(notebook="zelda", n=3, by=DAD, why="private", seq=3)
    services.create_notebook(title="zelda heading", by="dad")
    add(notebook="zelda heading", text="the owl statue saves", source="seen", by="pippa", why="seen")
    moves.move(notebook="zelda heading", n=1, to="zelda", by=DAD, why="a wrong title")
    moved_back = add(notebook="zelda", text="a heading stray", source="guessed", by="pippa", why="a hunch")
    moves.move(notebook="zelda", n=moved_back.n, to="zelda heading", by=DAD, why="it belongs there")
    exported = list(selectors.export(selectors.get_notebook("zelda")))
    rows = [json.loads(line) for line in exported]
    assert {r["op"] for r in rows} == {"add", "edit", "strike", "redact"}
    assert any("restores" in r for r in rows) and any(r.get("redacted") for r in rows)
    assert any("moved_from" in r for r in rows) and any("moved_to" in r for r in rows)

    done = _check(exported)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"the chain holds; head {rows[-1]['hash']}"

    changed = [*exported]
    changed[0] = changed[0].replace("roll after", "jump after")
    refused = _check(changed)
    assert refused.returncode != 0 and "row 1 does not chain" in refused.stderr


def test_the_guides_checker_accepts_a_sessions_proposals_and_their_landed_copies(notebook, dad):
    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="seen")
    services.retire(notebook="zelda", n=1, by="pippa", why="not needed")
    taken = sessions.take(notebook="zelda", plan="mend it", by="pippa")
    services.restore(notebook="zelda", n=1, by="pippa", why="it was needed")  # a proposed add that restores
    services.add(notebook="zelda", text="the guard sleeps at night", source="guessed", by="pippa", why="a hunch")
    services.edit(notebook="zelda", n=3, to="the guard naps at noon", by="pippa", why="saw it")
    exported = list(selectors.export(selectors.get_notebook("zelda")))
    pending = [json.loads(line) for line in exported]
    assert any(r.get("proposes") == "add" and "restores" in r for r in pending)
    assert any(r.get("proposes") == "edit" and "proposed_to" in r for r in pending)
    assert _check(exported).returncode == 0, _check(exported).stderr
    sessions.land(session=taken.id, summary="mended", by="pippa")
    exported = list(selectors.export(selectors.get_notebook("zelda")))
    assert any(json.loads(line).get("lands") for line in exported)
    done = _check(exported)
    assert done.returncode == 0, done.stderr
    changed = [line.replace("naps at noon", "naps at dusk") for line in exported]
    assert "does not chain" in _check(changed).stderr
