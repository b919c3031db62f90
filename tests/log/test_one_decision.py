"""One decision at every door (log/rules/decision.py): the same break of a rule gives the same refusal code through the
service, the API, MCP, the CLI, a vault append and an import. A door that cannot make the break says why."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from notebooks.agents import mcp_server, tokens
from notebooks.log import redaction, services
from notebooks.log.files import imports, rowformat
from notebooks.log.identity.roles import Actor
from notebooks.log.rules import errors
from notebooks.log.rules.errors import NotebookError
from notebooks.models import Row
from tests.agent_helpers import DAD, Api

PIPPA = Actor("pippa")
EXIT = {400: 2, 403: 3, 404: 4, 409: 5}  # the CLI's exit codes (management/commands/notebook.py)
STATUS = {"invalid": 400, "forbidden": 403, "not_found": 404, "conflict": 409}
STATUS_OF = {**STATUS, "unchanged": 400}  # an Invalid of its own code: the CLI's exit says its status, as for invalid
# The notebook every door meets: #1 Dad's, #2 and #3 Pippa's seen, #3 retired.
FILE = [
    {"op": "add", "n": 1, "text": "save before the boss", "source": "dad", "by": "dad", "why": "rule", "at": 1.0},
    {"op": "add", "n": 2, "text": "roll after the swing", "source": "seen", "by": "pippa", "why": "saw", "at": 2.0},
    {"op": "add", "n": 3, "text": "attack first", "source": "seen", "by": "pippa", "why": "saw", "at": 3.0},
    {"op": "strike", "n": 3, "how": "retired", "by": "pippa", "why": "wrong", "at": 4.0},
]
PLAIN_2 = rowformat.digest_of("roll after the swing")
NO_SUCH_DOOR = "this door has no such act"
# An import brings history whole: whom its rows are by is claimed, never proven, so it judges no author.
HISTORY = "an import judges no author"

# (break, code, {door: how it is tried there}); a file row is the row the vault append and the import are given.
BREAKS = [
    (
        "edit of a missing line",
        "not_found",
        {
            "service": lambda: services.edit(notebook="zelda", n=9, to="x", by=PIPPA, why="w"),
            "api": ("/api/notebooks/zelda/lines/9/edit", {"text": "x", "why": "w"}),
            "mcp": ("edit", {"notebook": "zelda", "n": 9, "text": "x", "why": "w"}),
            "cli": ("edit", "zelda", "9", "x", "--by", "pippa", "--why", "w"),
            "file": {"op": "edit", "n": 9, "to": "x", "by": "pippa", "why": "w"},
        },
    ),
    (
        "edit of a retired line",
        "conflict",
        {
            "service": lambda: services.edit(notebook="zelda", n=3, to="x", by=PIPPA, why="w"),
            "api": ("/api/notebooks/zelda/lines/3/edit", {"text": "x", "why": "w"}),
            "mcp": ("edit", {"notebook": "zelda", "n": 3, "text": "x", "why": "w"}),
            "cli": ("edit", "zelda", "3", "x", "--by", "pippa", "--why", "w"),
            "file": {"op": "edit", "n": 3, "to": "x", "by": "pippa", "why": "w"},
        },
    ),
    (
        "an agent edits Dad's line",
        "forbidden",
        {
            "service": lambda: services.edit(notebook="zelda", n=1, to="x", by=PIPPA, why="w"),
            "api": ("/api/notebooks/zelda/lines/1/edit", {"text": "x", "why": "w"}),
            "mcp": ("edit", {"notebook": "zelda", "n": 1, "text": "x", "why": "w"}),
            "cli": ("edit", "zelda", "1", "x", "--by", "pippa", "--why", "w"),
            "file": {"op": "edit", "n": 1, "to": "x", "by": "pippa", "why": "w"},
            "import": HISTORY,
        },
    ),
    (
        "an agent writes a dad source",
        "forbidden",
        {
            "service": lambda: services.add(notebook="zelda", text="x", source="dad", by=PIPPA, why="w"),
            "api": ("/api/notebooks/zelda/lines", {"text": "x", "source": "dad", "why": "w"}),
            "mcp": ("add", {"notebook": "zelda", "text": "x", "source": "dad", "why": "w"}),
            "cli": ("add", "zelda", "x", "--source", "dad", "--by", "pippa", "--why", "w"),
            "file": {"op": "add", "n": 4, "text": "x", "source": "dad", "by": "pippa", "why": "w"},
            "import": HISTORY,
        },
    ),
    (
        "a restore of a live line",
        "invalid",
        {
            "service": lambda: services.restore(notebook="zelda", n=2, by=PIPPA, why="w"),
            "api": NO_SUCH_DOOR,
            "mcp": NO_SUCH_DOOR,
            "cli": ("restore", "zelda", "2", "--by", "pippa", "--why", "w"),
            "file": {"op": "add", "n": 4, "text": "x", "source": "seen", "restores": 2, "by": "pippa", "why": "w"},
        },
    ),
    (
        "an edit to the words the line already says",
        "unchanged",
        {
            "service": lambda: services.edit(notebook="zelda", n=2, to=FILE[1]["text"], by=PIPPA, why="w"),
            "api": ("/api/notebooks/zelda/lines/2/edit", {"text": FILE[1]["text"], "why": "w"}),
            "mcp": ("edit", {"notebook": "zelda", "n": 2, "text": FILE[1]["text"], "why": "w"}),
            "cli": ("edit", "zelda", "2", FILE[1]["text"], "--by", "pippa", "--why", "w"),
            "file": {"op": "edit", "n": 2, "to": FILE[1]["text"], "by": "pippa", "why": "w"},
            "import": "an import brings history whole, a repeated edit too",
        },
    ),
    (
        "a restore with other words than the line's last",
        "invalid",
        {
            "service": "a service's restore brings back the line's last words itself",
            "api": NO_SUCH_DOOR,
            "mcp": NO_SUCH_DOOR,
            "cli": "the CLI's restore brings back the line's last words itself",
            "file": {"op": "add", "n": 4, "text": "x", "source": "seen", "restores": 3, "by": "pippa", "why": "w"},
            "import": "an import brings history whole",
        },
    ),
    (
        "a retirement into a retired line",
        "invalid",
        {
            "service": lambda: services.retire(notebook="zelda", n=2, into=3, by=PIPPA, why="w"),
            "api": ("/api/notebooks/zelda/lines/2/retire", {"into": 3, "why": "w"}),
            "mcp": ("retire", {"notebook": "zelda", "n": 2, "into": 3, "why": "w"}),
            "cli": ("retire", "zelda", "2", "--into", "3", "--by", "pippa", "--why", "w"),
            "file": {"op": "strike", "n": 2, "into": 3, "by": "pippa", "why": "w"},
        },
    ),
    (
        "a retirement into a missing line",
        "not_found",
        {
            "service": lambda: services.retire(notebook="zelda", n=2, into=9, by=PIPPA, why="w"),
            "api": ("/api/notebooks/zelda/lines/2/retire", {"into": 9, "why": "w"}),
            "mcp": ("retire", {"notebook": "zelda", "n": 2, "into": 9, "why": "w"}),
            "cli": ("retire", "zelda", "2", "--into", "9", "--by", "pippa", "--why", "w"),
            "file": {"op": "strike", "n": 2, "into": 9, "by": "pippa", "why": "w"},
        },
    ),
    (
        "a retirement of a retired line",
        "conflict",
        {
            "service": lambda: services.retire(notebook="zelda", n=3, by=PIPPA, why="w"),
            "api": ("/api/notebooks/zelda/lines/3/retire", {"why": "w"}),
            "mcp": ("retire", {"notebook": "zelda", "n": 3, "why": "w"}),
            "cli": ("retire", "zelda", "3", "--by", "pippa", "--why", "w"),
            "file": {"op": "strike", "n": 3, "by": "pippa", "why": "w"},
        },
    ),
    (
        "a redaction by an agent",
        "forbidden",
        {
            "service": lambda: redaction.redact(notebook="zelda", n=2, by=PIPPA, why="w"),
            "api": ("/api/notebooks/zelda/lines/2/redact", {"why": "w"}),
            "mcp": NO_SUCH_DOOR,
            "cli": ("redact", "zelda", "2", "--by", "pippa", "--why", "w"),
            "file": {"op": "redact", "n": 2, "redacts": PLAIN_2, "by": "pippa", "why": "w"},
            # No redact row may be appended, whoever it is by: the file cannot delete the words with it.
            "vault append": "a redact row cannot be appended at all (decision.OUTSIDE_REDACT)",
        },
    ),
    (
        "an appended adopt of a missing line",
        "not_found",
        {
            "service": NO_SUCH_DOOR,  # an adopt is a file's row: recovered words, brought in
            "api": NO_SUCH_DOOR,
            "mcp": NO_SUCH_DOOR,
            "cli": NO_SUCH_DOOR,
            "file": {"op": "adopt", "n": 2147483647, "was": "x", "by": "pippa", "why": "w"},
            "import": "a file that starts a notebook brings its own numbers",
        },
    ),
]
DOORS = ("service", "api", "mcp", "cli", "vault append", "import")


@pytest.fixture
def zelda(dad):  # noqa: ANN001, ANN201
    services.create_notebook(title="zelda", by="dad")
    services.add(notebook="zelda", text=FILE[0]["text"], source="dad", by=DAD, why="rule")
    services.add(notebook="zelda", text=FILE[1]["text"], source="seen", by=PIPPA, why="saw")
    services.add(notebook="zelda", text=FILE[2]["text"], source="seen", by=PIPPA, why="saw")
    services.retire(notebook="zelda", n=3, by=PIPPA, why="wrong")


def _code_of(call) -> str:  # noqa: ANN001
    try:
        call()
    except NotebookError as exc:
        return exc.code
    raise AssertionError("the door wrote it")


def _api(spec: tuple) -> str:
    path, body = spec
    answer = Api(tokens.issue(actor="pippa").secret).post(path, body)
    code = answer.json()["error"]["code"]
    assert answer.status_code == STATUS_OF[code]
    return code


def _mcp(spec: tuple, monkeypatch) -> str:  # noqa: ANN001
    # The tool's own wrapper, in this thread and this test's transaction (a real server closes its connections).
    monkeypatch.setattr(mcp_server, "close_old_connections", lambda: None)
    monkeypatch.setattr(mcp_server.connections, "close_all", lambda: None)
    name, arguments = spec
    tool = mcp_server.build(PIPPA)._tool_manager.get_tool(name)
    answer = tool.fn(**arguments)
    assert answer.is_error
    error = answer.structured_content["error"]
    assert answer.content[0].text.startswith(f"{error['code']} ({STATUS_OF[error['code']]})")
    return error["code"]


def _cli(args: tuple) -> str:
    with pytest.raises(CommandError) as caught:
        call_command("notebook", *args, stdout=StringIO(), stderr=StringIO())
    return {exit_code: code for code, exit_code in ((c, EXIT[s]) for c, s in STATUS.items())}[caught.value.returncode]


def _append(row: dict) -> str:
    return _code_of(lambda: imports.append_rows(notebook="zelda", lines=[json.dumps(row)], by_default="operator"))


def _import(row: dict) -> str:
    lines = [json.dumps(r) for r in [*FILE, {**row, "at": 5.0}]]
    return _code_of(lambda: imports.import_notebook(title="fresh", lines=lines, by="dad"))


def _spec(how: dict, door: str) -> object:
    if door in how:
        return how[door]
    return how.get("file") if door in ("vault append", "import") else None


# Every (door, break) the door can make; those it cannot are said in the table (NO_SUCH_DOOR, HISTORY, …).
CASES = [
    pytest.param(door, name, code, _spec(how, door), id=f"{door}: {name}")
    for name, code, how in BREAKS
    for door in DOORS
    if not isinstance(_spec(how, door), str)
]


@pytest.mark.parametrize("door, name, code, spec", CASES)
def test_each_door_gives_the_same_code_for_the_same_break(zelda, monkeypatch, door, name, code, spec):
    before = Row.objects.count()
    if door == "service":
        got = _code_of(spec)
    elif door == "api":
        got = _api(spec)
    elif door == "mcp":
        got = _mcp(spec, monkeypatch)
    elif door == "cli":
        got, code = _cli(spec), {s: c for c, s in STATUS.items()}[STATUS_OF[code]]
    elif door == "vault append":
        got = _append(spec)
    else:
        got = _import(spec)
    assert got == code, f"{name} through the {door}: {got}, not {code}"
    assert Row.objects.count() == before  # nothing written


def test_every_refusal_code_of_a_rule_is_in_the_table():
    codes = {code for _name, code, _how in BREAKS}
    kinds = (errors.Invalid, errors.Unchanged, errors.Forbidden, errors.NotFound, errors.Conflict)
    assert codes == {kind.code for kind in kinds}
    assert all(set(how) - {"import"} >= {"service", "api", "mcp", "cli", "file"} for _n, _c, how in BREAKS)
    assert {case.values[1] for case in CASES} == {name for name, _c, _h in BREAKS}  # each break tried somewhere
    assert {case.values[0] for case in CASES} == set(DOORS)  # and through every door
