"""The API's lines of a notebook: read, history, the writes (writes.py's, as MCP's) and suggestions."""

from django.http import HttpRequest
from ninja import Query
from ninja.responses import Status

from notebooks.agents import answers, conditional, writes
from notebooks.agents import bodies as b
from notebooks.agents import operation_texts as said
from notebooks.agents import schemas as s
from notebooks.agents.api.operations import PAGING, READ, SUGGEST, UNCHANGED, Routes

router = Routes(tags=["lines"])


@router.get("/notebooks/{notebook}/lines", response={200: s.Lines, **UNCHANGED, **READ}, operation_id="listLines",
            summary=said.LINES.summary, description=said.LINES.more + " " + PAGING)  # fmt: skip
@conditional.read
def lines(request: HttpRequest, notebook: s.Title, q: Query[b.LinesQuery]) -> s.Lines:
    return answers.lines(notebook, q.until, q.after, q.limit, reader=request.auth, q=q.q, match=q.match)


@router.write("/notebooks/{notebook}/lines", {201: s.Added}, operation_id="addLine",
              summary=said.ADD.summary, description=said.ADD.more)  # fmt: skip
def add(request: HttpRequest, notebook: s.Title, body: b.AddIn) -> s.Added:
    return writes.add(notebook=notebook, by=request.auth, **body.model_dump())


@router.get("/notebooks/{notebook}/lines/{n}", response={200: s.OneLine, **READ}, operation_id="getLine",
            summary=said.LINE.summary, description=said.LINE.more)  # fmt: skip
def line(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, q: Query[b.UntilQuery]) -> s.OneLine:
    return answers.line(notebook, n, q.until, reader=request.auth)


@router.get("/notebooks/{notebook}/lines/{n}/history", response={200: s.History, **UNCHANGED, **READ},
            operation_id="getHistory",
            summary=said.HISTORY.summary, description=said.HISTORY.more)  # fmt: skip
@conditional.read
def history(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber) -> s.History:
    return answers.history(notebook, n)


@router.write("/notebooks/{notebook}/lines/{n}/edit", {200: s.Written}, operation_id="editLine",
              summary=said.EDIT.summary, description=said.EDIT.more)  # fmt: skip
def edit(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, body: b.EditIn) -> s.Written:
    return writes.edit(notebook=notebook, n=n, by=request.auth, **body.model_dump())


@router.write("/notebooks/{notebook}/lines/{n}/retire", {200: s.Written}, operation_id="retireLine",
              summary=said.RETIRE.summary, description=said.RETIRE.more)  # fmt: skip
def retire(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, body: b.RetireIn) -> s.Written:
    return writes.retire(notebook=notebook, n=n, by=request.auth, **body.model_dump())


@router.write("/notebooks/{notebook}/lines/{n}/restore", {201: s.Written}, operation_id="restoreLine",
              summary=said.RESTORE.summary, description=said.RESTORE.more)  # fmt: skip
def restore(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, body: b.RestoreIn) -> s.Written:
    return writes.restore(notebook=notebook, n=n, by=request.auth, **body.model_dump())


@router.write("/notebooks/{notebook}/lines/{n}/put-back", {200: s.Written}, operation_id="putBackWords",
              summary=said.PUT_BACK.summary, description=said.PUT_BACK.more)  # fmt: skip
def put_back(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, body: b.PutBackIn) -> s.Written:
    return writes.put_back(notebook=notebook, n=n, by=request.auth, **body.model_dump())


@router.write("/notebooks/{notebook}/lines/{n}/redact", {200: s.Written}, operation_id="redactWords",
              summary="Remove words of line n from the database for good (the human editor only).",
              description="The words are those of row 'seq' of the line, or those with sha256 'digest', or else the "
              "line's current words. A redact row naming their digest is appended and the words are deleted in the "
              "same transaction; every row that carried them then reads '[redacted: why]', and the hash chain still "
              "verifies. Redacted words cannot be written into the notebook again.")  # fmt: skip
def redact(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, body: b.RedactIn) -> s.Written:
    return writes.redact(notebook=notebook, n=n, by=request.auth, **body.model_dump())


@router.write("/notebooks/{notebook}/merge", {201: s.Merged}, operation_id="mergeLines",
              summary=said.MERGE.summary, description=said.MERGE.more)  # fmt: skip
def merge(request: HttpRequest, notebook: s.Title, body: b.MergeIn) -> s.Merged:
    return writes.merge(notebook=notebook, by=request.auth, **body.model_dump())


@router.write("/notebooks/{notebook}/suggestions", {201: s.Suggested, 200: s.Suggested}, refusals=SUGGEST,
              operation_id="suggestLines",
              summary=said.SUGGEST.summary, description=said.SUGGEST.more)  # fmt: skip
def suggest(request: HttpRequest, notebook: s.Title, body: b.SuggestIn) -> Status:
    done = writes.suggest(notebook=notebook, by=request.auth, **body.model_dump())
    return Status(201 if done.already is None else 200, done)  # one already there is answered, not stored again
