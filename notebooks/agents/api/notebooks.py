"""The API's notebooks: list them, create one, read a notebook's turn and its raw rows."""

from django.http import HttpRequest
from ninja import Query

from notebooks.agents import answers, conditional, writes
from notebooks.agents import bodies as b
from notebooks.agents import schemas as s
from notebooks.agents.api.operations import CREATE, LISTED, PAGING, READ, UNCHANGED, Routes, declared
from notebooks.log.views import turn_reads

router = Routes(tags=["notebooks"])


@router.get("/notebooks", response={200: s.NotebookList, **LISTED}, operation_id="listNotebooks",
            summary="The notebooks by title, each with its head seq and the session that claims it, if any; a page "
            "of them.",
            description="Any token reads every notebook. 'head' is the seq of the notebook's last row (0 while it is "
            "empty); 'session' is {id, actor} of the open session that claims it, or null: while it is claimed, "
            "another actor's take of it is refused (409)."
            " " + PAGING)  # fmt: skip
def notebooks(request: HttpRequest, q: Query[b.NotebooksQuery]) -> s.NotebookList:
    return answers.notebook_list(q.after, q.limit)


@router.write("/notebooks", {201: s.NotebookItem}, refusals=CREATE, operation_id="createNotebook",
              summary="Start a notebook (a game's), empty.",
              description="Refused (409) when the title is taken or looks like one taken (title_looks_alike, naming "
              "it in 'existing'), and while the actor holds a session on another notebook: a write under another "
              "title is refused while a session is open. An actor creates at most NOTEBOOK_NEW_NOTEBOOKS notebooks "
              "per NOTEBOOK_NEW_NOTEBOOKS_WINDOW seconds (429 too_many_notebooks, Retry-After).")  # fmt: skip
def create(request: HttpRequest, body: b.NotebookIn) -> s.NotebookItem:
    return writes.create(by=request.auth, **body.model_dump())


@router.get("/notebooks/{notebook}/turn", response={200: s.Turn, **UNCHANGED, **READ, **declared(503)},
            operation_id="getTurn",
            summary="The text a play turn carries: a header naming the notebook and the time it stands at, Dad's "
            "corrections, his other lines, then hers, each tagged.",
            description="A live turn notes that it was read (the index shows when), so a full disk answers 503."
            )  # fmt: skip
@conditional.read(also=turn_reads.note_turn_read)
def turn(request: HttpRequest, notebook: s.Title, q: Query[b.UntilQuery]) -> s.Turn:
    return answers.turn(notebook, q.until, request.auth)


@router.get("/notebooks/{notebook}/rows", response={200: s.Rows, **UNCHANGED, **READ}, operation_id="listRows",
            summary="Raw rows in log order, in the export format (JSON Lines objects), a page of them: for "
            "followers.",
            description="Each row is the object the export writes for it (docs/file-format.md): its op, n, seq, at "
            "and hash, which chains it to the row before, and the fields its op carries. A row whose words were "
            "redacted reads '[redacted: why]'; the chain still verifies."
            " " + PAGING)  # fmt: skip
@conditional.read
def rows(request: HttpRequest, notebook: s.Title, q: Query[b.RowsQuery]) -> s.Rows:
    return answers.rows(notebook, q.after, q.limit)
