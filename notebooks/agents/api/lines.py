"""The API's lines of a notebook: read, history, the writes (writes.py's, as MCP's) and suggestions."""

from django.http import HttpRequest
from ninja import Query
from ninja.responses import Status

from notebooks.agents import answers, conditional, writes
from notebooks.agents import bodies as b
from notebooks.agents import schemas as s
from notebooks.agents.api.operations import PAGING, READ, SUGGEST, UNCHANGED, Routes
from notebooks.log.files.rowformat import GAME_ONLY

router = Routes(tags=["lines"])


@router.get("/notebooks/{notebook}/lines", response={200: s.Lines, **UNCHANGED, **READ}, operation_id="listLines",
            summary="The live lines, in number order; with 'until', as they stood then; a page of them.",
            description="The answer names the seq and hash of the last row read, so a frozen reader can prove what "
            "it read. Pages are cut from the view read at each call: for pages of one view, give 'until'. "
            + PAGING)  # fmt: skip
@conditional.read
def lines(request: HttpRequest, notebook: s.Title, q: Query[b.LinesQuery]) -> s.Lines:
    return answers.lines(notebook, q.until, q.after, q.limit, reader=request.auth, q=q.q, match=q.match)


@router.write("/notebooks/{notebook}/lines", {201: s.Added}, operation_id="addLine",
              summary="Add a line to the notebook.",
              description="Add a line (source seen or guessed for an agent; dad or dad_correction only for the human "
              f"editor). {GAME_ONLY}")  # fmt: skip
def add(request: HttpRequest, notebook: s.Title, body: b.AddIn) -> s.Added:
    return writes.add(notebook=notebook, by=request.auth, **body.model_dump())


@router.get("/notebooks/{notebook}/lines/{n}", response={200: s.OneLine, **READ}, operation_id="getLine",
            summary="One live line by its number, as the reader sees it; with 'until', as it stood then.",
            description="A line that is not live (never written, retired, merged, moved) is 404; its history says "
            "what became of it.")  # fmt: skip
def line(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, q: Query[b.UntilQuery]) -> s.OneLine:
    return answers.line(notebook, n, q.until, reader=request.auth)


@router.get("/notebooks/{notebook}/lines/{n}/history", response={200: s.History, **UNCHANGED, **READ},
            operation_id="getHistory",
            summary="Every text line n has had, who changed it, when and why (adopted words first).",
            description="One entry per row of the line (op, text, source, by, at, why, how, into), and one per row of "
            "another line that touched it: 'restored' (the line that restored it, in 'into') and 'retired_into' (a "
            "line retired or merged into it, in 'from_n'). A retired line keeps its history; a number never given is "
            "404.")  # fmt: skip
@conditional.read
def history(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber) -> s.History:
    return answers.history(notebook, n)


@router.write("/notebooks/{notebook}/lines/{n}/edit", {200: s.Written}, operation_id="editLine",
              summary="New words for line n under the same number (the editor's edit makes it a dad_correction).",
              description="'text' is the new words ('to', its old name, is still taken until the next release). "
              "'expected' is the seq of the line's last row as you read it: a stale edit is refused (409, with "
              "current and current_seq). " + GAME_ONLY)  # fmt: skip
def edit(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, body: b.EditIn) -> s.Written:
    return writes.edit(notebook=notebook, n=n, by=request.auth, **body.model_dump())


@router.write("/notebooks/{notebook}/lines/{n}/retire", {200: s.Written}, operation_id="retireLine",
              summary="Take line n out of view with a strike row; 'into' names the line that now says it.",
              description="'why' is required. Without 'into' the line is dropped: a session's land refuses an "
              "agent's session that dropped more than half of the lines live at its base. 'expected' is the seq of "
              "the line's last row as you read it: a stale retire is refused (409, with current and current_seq), "
              "as is a line already retired. The line keeps its number and its history; restore brings its words "
              "back as a new line.")  # fmt: skip
def retire(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, body: b.RetireIn) -> s.Written:
    return writes.retire(notebook=notebook, n=n, by=request.auth, **body.model_dump())


@router.write("/notebooks/{notebook}/lines/{n}/restore", {201: s.Written}, operation_id="restoreLine",
              summary="Undo the retirement of line n: its last words and source back as a new line (the next "
              "number).",
              description="Line n stays retired; both lines' histories show the restore. Inside a session this mends "
              "a land its gate refused for lines retired without a successor.")  # fmt: skip
def restore(request: HttpRequest, notebook: s.Title, n: s.PathLineNumber, body: b.RestoreIn) -> s.Written:
    return writes.restore(notebook=notebook, n=n, by=request.auth, **body.model_dump())


@router.write("/notebooks/{notebook}/lines/{n}/put-back", {200: s.Written}, operation_id="putBackWords",
              summary="Edit line n back to the words an earlier row of its history gave it ('seq'), as a new edit.",
              description="'seq' is a version of the line's words in its history; 'expected' as for an edit. "
              + GAME_ONLY)  # fmt: skip
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
              summary="Write one line for several and retire them into it, all or nothing.",
              description=GAME_ONLY)  # fmt: skip
def merge(request: HttpRequest, notebook: s.Title, body: b.MergeIn) -> s.Merged:
    return writes.merge(notebook=notebook, by=request.auth, **body.model_dump())


@router.write("/notebooks/{notebook}/suggestions", {201: s.Suggested, 200: s.Suggested}, refusals=SUGGEST,
              operation_id="suggestLines",
              summary="Suggest that lines repeat, contradict each other or stray; Dad decides it, no line changes.",
              description="A suggestion waits in Dad's Similar view until he decides it (merge, keep one, retire, not "
              "alike) or one of its lines stops being live. A line that is not live is refused (404 naming it in "
              "'lines'); the same lines and kind already pending, or lines Dad marked not alike, answer 200 with "
              "'already'; past NOTEBOOK_PENDING_SUGGESTIONS pending on the notebook, 429 too_many_suggestions with "
              "Retry-After. " + GAME_ONLY)  # fmt: skip
def suggest(request: HttpRequest, notebook: s.Title, body: b.SuggestIn) -> Status:
    done = writes.suggest(notebook=notebook, by=request.auth, **body.model_dump())
    return Status(201 if done.already is None else 200, done)  # one already there is answered, not stored again
