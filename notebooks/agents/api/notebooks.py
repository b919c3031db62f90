"""The API's notebooks: list them, create one, read a notebook's turn and its raw rows."""

from django.http import HttpRequest
from ninja import Query

from notebooks.agents import answers, conditional, writes
from notebooks.agents import bodies as b
from notebooks.agents import operation_texts as said
from notebooks.agents import schemas as s
from notebooks.agents.api.operations import CREATE, LISTED, PAGING, READ, UNCHANGED, Routes, declared
from notebooks.log.views import turn_reads

router = Routes(tags=["notebooks"])


@router.get("/notebooks", response={200: s.NotebookList, **LISTED}, operation_id="listNotebooks",
            summary=said.NOTEBOOKS.summary, description=said.NOTEBOOKS.more + " " + PAGING)  # fmt: skip
def notebooks(request: HttpRequest, q: Query[b.NotebooksQuery]) -> s.NotebookList:
    return answers.notebook_list(q.after, q.limit)


@router.write("/notebooks", {201: s.NotebookItem}, refusals=CREATE, operation_id="createNotebook",
              summary=said.CREATE.summary, description=said.CREATE.more)  # fmt: skip
def create(request: HttpRequest, body: b.NotebookIn) -> s.NotebookItem:
    return writes.create(by=request.auth, **body.model_dump())


@router.get("/notebooks/{notebook}/turn", response={200: s.Turn, **UNCHANGED, **READ, **declared(503)},
            operation_id="getTurn",
            summary=said.TURN.summary, description=said.TURN.more)  # fmt: skip
@conditional.read(also=turn_reads.note_turn_read)
def turn(request: HttpRequest, notebook: s.Title, q: Query[b.UntilQuery]) -> s.Turn:
    return answers.turn(notebook, q.until, request.auth)


@router.get("/notebooks/{notebook}/rows", response={200: s.Rows, **UNCHANGED, **READ}, operation_id="listRows",
            summary=said.ROWS.summary, description=said.ROWS.more + " " + PAGING)  # fmt: skip
@conditional.read
def rows(request: HttpRequest, notebook: s.Title, q: Query[b.RowsQuery]) -> s.Rows:
    return answers.rows(notebook, q.after, q.limit)
