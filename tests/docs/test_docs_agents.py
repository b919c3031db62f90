"""docs/agents.md's requests and answers, replayed in order against the app on the demo notebook: every ```http
block that is a request is sent with the token it names, and the ```http block after it that is an answer must match
what the API says, headers shown and all ("…" stands for any value, or any text inside a string; a list ending in "…"
may go on). `If-None-Match: $ETAG` sends the ETag last answered for the same path."""

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from notebooks.agents import tokens

DOC = Path(__file__).resolve().parents[2] / "docs" / "agents.md"
BLOCK = re.compile(r"^```http\n(.*?)^```", re.MULTILINE | re.DOTALL)
ANY = "…"


def exchanges(text: str) -> list[tuple[str, str]]:
    """(request, answer) pairs: each request block with the answer block right after it."""
    blocks = BLOCK.findall(text)
    pairs = []
    for i, block in enumerate(blocks):
        if block.startswith("HTTP/"):
            assert i > 0 and not blocks[i - 1].startswith("HTTP/"), f"an answer with no request before it:\n{block}"
            pairs.append((blocks[i - 1], block))
        else:
            assert i + 1 < len(blocks) and blocks[i + 1].startswith("HTTP/"), f"a request with no answer:\n{block}"
    return pairs


def parse(block: str) -> tuple[str, dict[str, str], Any]:
    head, _, body = block.partition("\n\n")
    first, *fields = head.splitlines()
    headers = dict(field.split(": ", 1) for field in fields)
    return first, headers, json.loads(body) if body.strip() else None


def matches(shown: Any, actual: Any) -> bool:
    if shown == ANY:
        return True
    if isinstance(shown, str) and ANY in shown:
        pattern = ".*".join(re.escape(part) for part in shown.split(ANY))
        return isinstance(actual, str) and re.fullmatch(pattern, actual, re.DOTALL) is not None
    if isinstance(shown, dict):
        return (
            isinstance(actual, dict)
            and shown.keys() == actual.keys()
            and all(matches(v, actual[k]) for k, v in shown.items())
        )
    if isinstance(shown, list):
        if not isinstance(actual, list):
            return False
        if shown and shown[-1] == ANY:
            return len(actual) >= len(shown) - 1 and all(map(matches, shown[:-1], actual))
        return len(shown) == len(actual) and all(map(matches, shown, actual))
    return type(shown) is type(actual) and shown == actual


def _renumbered(shown: Any, ids: dict[str, str]) -> Any:
    """The guide's answer with its session ids ("id", "session", "session #N") as this database gave them."""
    if isinstance(shown, dict):
        return {
            k: int(ids.get(str(v), v)) if k in ("id", "session") and type(v) is int else _renumbered(v, ids)
            for k, v in shown.items()
        }
    if isinstance(shown, list):
        return [_renumbered(v, ids) for v in shown]
    if isinstance(shown, str):
        return re.sub(r"session #(\d+)", lambda m: f"session #{ids.get(m[1], m[1])}", shown)
    return shown


def test_the_matcher_takes_what_is_shown_and_nothing_else():
    assert matches({"a": ANY, "b": [1, ANY]}, {"a": 2.5, "b": [1, 2, 3]})
    assert matches("# Notebook 'z' as it stood at …\n…", "# Notebook 'z' as it stood at 12:00\n[#1 seen] x")
    assert not matches({"a": 1}, {"a": 1, "b": 2})
    assert not matches([1, 2], [1, 2, 3])
    assert not matches(1, 1.0) and not matches(True, 1)


def test_the_guide_shows_requests_with_their_answers():
    pairs = exchanges(DOC.read_text(encoding="utf-8"))
    assert len(pairs) >= 12
    assert {parse(request)[0].split()[0] for request, _ in pairs} == {"GET", "POST"}


@pytest.mark.django_db
def test_every_request_in_the_guide_gets_the_answer_it_shows(dad):
    call_command("notebook", "demo", stdout=open("/dev/null", "w"))  # noqa: SIM115 - the demo's report is noise
    secrets = {
        "$AGENT_TOKEN": tokens.issue(actor="pippa").secret,
        "$EDITOR_TOKEN": tokens.issue(actor="dad", editor=True).secret,
    }
    ids: dict[str, str] = {}  # a session id the guide shows -> the one this database gave
    etags: dict[str, str] = {}  # a path -> the ETag last answered for it
    suggestion_ids: dict[int, Any] = {}
    client = Client()
    for request, answer in exchanges(DOC.read_text(encoding="utf-8")):
        first, headers, body = parse(request)
        method, path, _ = first.split(" ")
        path = re.sub(r"/sessions/(\d+)", lambda m: f"/sessions/{ids.get(m[1], m[1])}", path)
        extra = {}
        if "Authorization" in headers:  # $AGENT_TOKEN and $EDITOR_TOKEN stand for real tokens; any other is sent as is
            shown_token = headers["Authorization"].removeprefix("Bearer ")
            extra["HTTP_AUTHORIZATION"] = "Bearer " + secrets.get(shown_token, shown_token)
        if headers.get("Idempotency-Key"):
            extra["HTTP_IDEMPOTENCY_KEY"] = headers["Idempotency-Key"]
        if "If-None-Match" in headers:
            extra["HTTP_IF_NONE_MATCH"] = (
                etags[path] if headers["If-None-Match"] == "$ETAG" else headers["If-None-Match"]
            )
        if method == "GET":
            response = client.get(path, **extra)
        else:
            response = client.post(path, json.dumps(body), content_type="application/json", **extra)
        if response.get("ETag"):
            etags[path] = response["ETag"]
        status_line, shown_headers, shown = parse(answer)
        status = int(status_line.split()[1])
        for name, value in shown_headers.items():
            assert matches(value, response.get(name)), (
                f"{first}\nthe guide shows {name}: {value}, the API {response.get(name)}"
            )
        got = response.json() if response.content else None
        if path == "/api/sessions" and method == "POST" and response.status_code == 201 == status:
            ids[str(shown["id"])] = str(got["id"])  # the guide's session 1 is whatever this database gave
        shown = _renumbered(shown, ids)
        if isinstance(shown, dict) and isinstance(shown.get("suggestion"), dict) and isinstance(got, dict):
            # the guide's suggestion 1 is whatever this database gave first; later answers must name the same one
            given = suggestion_ids.setdefault(shown["suggestion"]["id"], (got.get("suggestion") or {}).get("id"))
            shown = {**shown, "suggestion": {**shown["suggestion"], "id": given}}
        assert (response.status_code, matches(shown, got)) == (status, True), (
            f"{first}\nthe guide shows {status} {json.dumps(shown, ensure_ascii=False)}\n"
            f"the API answers {response.status_code} {json.dumps(got, ensure_ascii=False)}"
        )


def _fields(listed: str) -> dict[str, str]:
    """`{a, b?, c: {d, e}, f: [{g}], h: words}` as {name: what follows its colon, or "?" for an optional one}; the
    top level only (a nested `{…}` is given whole), `seq? or digest?` two names."""
    inner, depth, parts, part = listed.strip()[1:-1], 0, [], ""
    for char in inner + ",":
        depth += char in "{[" and 1 or char in "}]" and -1 or 0
        if char == "," and depth == 0:
            parts.append(part.strip())
            part = ""
        else:
            part += char
    out = {}
    for part in filter(None, parts):
        name, _, value = part.partition(":")
        for one in name.split(" or "):
            out[one.strip().rstrip("?")] = "?" if one.strip().endswith("?") else value.strip()
    return out


def _braced(cell: str) -> str | None:
    """The first `{…}` of a table cell, nested braces and all."""
    start, depth = cell.find("{"), 0
    for i, char in enumerate(cell[start:] if start >= 0 else "", start):
        depth += 1 if char == "{" else -1 if char == "}" else 0
        if depth == 0:
            return cell[start : i + 1]
    return None


def _schema(document: dict, found: dict) -> dict:
    """The object schema a property holds, through a $ref, a nullable anyOf or a list's items."""
    found = found.get("items", found)
    for candidate in [found, *found.get("anyOf", [])]:
        candidate = candidate.get("items", candidate)
        if "$ref" in candidate:
            return document["components"]["schemas"][candidate["$ref"].split("/")[-1]]
    return found


def _check_fields(document: dict, listed: str, schema: dict, where: str, *, body: bool = False) -> None:
    fields = _fields(listed)
    names = set(schema["properties"]) - {n for n, p in schema["properties"].items() if p.get("deprecated")}
    assert set(fields) == names, f"{where}: the guide lists {sorted(fields)}, the document {sorted(names)}"
    for name, value in fields.items():
        if body:
            assert (value == "?") == (name not in schema.get("required", [])), f"{where}: {name} required or not"
        nested = value.removeprefix("[").removesuffix("]")
        if nested.startswith("{"):
            _check_fields(document, _braced(nested), _schema(document, schema["properties"][name]), f"{where}.{name}")


def test_every_endpoint_is_listed_with_every_field_of_its_body_and_answer():
    """The table of every endpoint names each operation's body fields (`?` when optional) and its answer's fields,
    nested ones too, as the document declares them."""
    from notebooks.agents.api import api

    document = json.loads(json.dumps(api.get_openapi_schema(path_prefix="/api/")))  # as served: its keys strings
    text = DOC.read_text(encoding="utf-8").split("## Every endpoint", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(GET|POST) (/api/[^`\[]*)[^`]*` \|(.*?)\|(.*)\|$", text, re.MULTILINE)
    listed = set()
    for method, path, body, answer in rows:
        path = re.sub(r"<(\w+)>", r"{\1}", path)
        if path not in document["paths"]:
            continue  # the document and the docs pages themselves
        operation = document["paths"][path][method.lower()]
        listed.add((method, path))
        where = f"{method} {path}"
        request = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
        assert (request is None) == (_braced(body) is None), f"{where}: a body listed or not"
        if request:
            _check_fields(document, _braced(body), _schema(document, request), where + " body", body=True)
        ok = next(code for code in ("201", "200") if code in operation["responses"])
        returned = operation["responses"][ok]["content"]["application/json"]["schema"]
        assert _braced(answer), f"{where}: its answer's fields are not listed"
        _check_fields(document, _braced(answer), _schema(document, returned), where)
    operations = {(m.upper(), p) for p, ops in document["paths"].items() for m in ops if p != "/api/openapi.json"}
    assert listed == operations


def test_the_table_of_errors_names_every_code_and_every_field_a_refusal_carries():
    """Every code the API answers is a row, and every field a refusal may carry is named there."""
    from notebooks.agents.problems import Problem
    from notebooks.agents.refusals import CODES

    text = DOC.read_text(encoding="utf-8").split("## Errors and their codes", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| \d{3} \| `(\w+)` \|", text, re.MULTILINE)
    assert sorted(rows) == sorted(CODES)  # vault_git too: the CLI's alone, but the OpenAPI document's enum names it
    table = "\n".join(line for line in text.splitlines() if line.startswith("| "))
    named = set(re.findall(r"`(\w+)`", table))
    assert set(Problem.model_fields) - {"code", "message", "line"} <= named  # line: an import's, never the API's
