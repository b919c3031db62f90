"""What each operation does, said once: the API's summary and description and the MCP tool's description alike."""

from typing import NamedTuple

from notebooks.log.files.rowformat import GAME_ONLY


class Said(NamedTuple):
    """An operation's text: the API takes `summary` and `more` apart, a tool the `whole` of it."""

    summary: str
    more: str

    @property
    def whole(self) -> str:
        return f"{self.summary} {self.more}"


# Where a refusal's seconds to wait are found, through either door.
WAIT = "with the seconds to wait (the Retry-After header over HTTP, 'retry_after' in a tool's error)"
STALE = (
    "'expected' is the seq of the line's last row as you read it: a stale {} is refused, conflict (409), naming "
    "current and current_seq"
)

# ----- notebooks ----------------------------------------------------------------------------------------------------

NOTEBOOKS = Said(
    "The notebooks by title, each with its head seq and the session that claims it, if any; a page of them.",
    "Every actor reads every notebook. 'head' is the seq of the notebook's last row (0 while it is empty); 'session' "
    "is {id, actor} of the open session that claims it, or null: while it is claimed, another actor's take of it is "
    "refused, conflict (409).",
)
CREATE = Said(
    "Start a notebook for a game, empty.",
    "Refused when the title is taken, conflict (409), or looks like one taken, title_looks_alike (409), naming it in "
    "'existing' (did you mean it?); and while you hold a session on another notebook, conflict (409): a write under "
    "another title is refused while your session is open. An agent creates at most NOTEBOOK_NEW_NOTEBOOKS notebooks "
    "per NOTEBOOK_NEW_NOTEBOOKS_WINDOW seconds (the editor NOTEBOOK_NEW_NOTEBOOKS_EDITOR); past that, "
    f"too_many_notebooks (429), {WAIT}.",
)
TURN = Said(
    "The text a play turn carries: a header naming the notebook and the time it stands at, then Dad's corrections, "
    "his other lines, then the agents' (yours), seen before guessed, each tagged with its number and source.",
    "With 'until', as it stood then. A live turn (no 'until') notes that it was read (the index shows when), so a "
    "full disk refuses it, unavailable (503).",
)
ROWS = Said(
    "The notebook's raw rows in log order, in the export format (JSON Lines objects), a page of them: for a follower "
    "that mirrors the log.",
    "Each row is the object the export writes for it (docs/file-format.md): its op, n, seq, at and hash, which chains "
    "it to the row before, and the fields its op carries. A row whose words were redacted reads '[redacted: why]'; "
    "the chain still verifies.",
)

# ----- lines --------------------------------------------------------------------------------------------------------

LINES = Said(
    "The live lines of a notebook in number order, each with n, text, source, by, at and seq; with 'until' (ISO 8601 "
    "or epoch seconds), as they stood then; a page of them.",
    "The answer names the seq and hash of the last row read, so a frozen reader can prove what it read. Pages are cut "
    "from the view read at each call: for pages of one view, give 'until'.",
)
# MCP's own tool for the API's lines with 'q' and 'match'.
SEARCH = Said(
    "Search the live lines as the card's search does: a number (12, #12, line 12) asks for that line; words find the "
    "lines with a word beginning with each of them, in any order ('match': all of them, or any), folded: case, "
    "accents and apostrophes ignored, a common ending taken off.",
    "Answered as view answers, with 'until' as it does. " + LINES.more,
)
LINE = Said(
    "One live line by its number (n, text, source, by, at, seq), as you see it; with 'until', as it stood then.",
    "A line that is not live (never written, retired, merged, moved) is refused, not_found (404): its history says "
    "what became of it.",
)
HISTORY = Said(
    "Every text line n has had, who changed it, when and why (adopted words first).",
    "One entry per row of the line (op, text, source, by, at, why, how, into), and one per row of another line that "
    "touched it: 'restored' (the line that restored it, in 'into') and 'retired_into' (a line retired or merged into "
    "it, in 'from_n'). A retired line keeps its history; a number never given is refused, not_found (404).",
)
ADD = Said(
    "Add a line to the notebook; 'why' says on what evidence.",
    "Its source is 'seen' (you saw it happen) or 'guessed' (a hunch to check) for an agent (any other "
    f"is refused, forbidden (403)); dad or dad_correction only for the human editor. {GAME_ONLY}",
)
EDIT = Said(
    "Give line n new words ('text') under the same number (the editor's edit makes it a dad_correction).",
    "'to', its old name, is still taken until the next release. "
    + STALE.format("edit")
    + ". Dad's lines are his to change (forbidden, 403, for an agent). "
    + GAME_ONLY,
)
RETIRE = Said(
    "Retire line n: a strike row takes it out of view, with a reason ('why', required); 'into' names the line that "
    "now says it.",
    "Without 'into' the line is dropped: a session's land refuses an agent's session that dropped more than half of "
    f"the lines live at its base. {STALE.format('retire')}, as is a line already retired. The line keeps its number "
    "and its history; restore brings its words back as a new line.",
)
RESTORE = Said(
    "Undo the retirement of line n: its last words and source back as a new line (the next number).",
    "Line n stays retired; both lines' histories show the restore. Inside a session this mends a land its gate "
    "refused for lines retired without a successor.",
)
PUT_BACK = Said(
    "Edit line n back to the words an earlier row of its history gave it ('seq', from history), as a new edit.",
    f"'seq' is a version of the line's words in its history; 'expected' as for an edit. {GAME_ONLY}",
)
MERGE = Said("Write one line for several and retire them into it, all or nothing.", GAME_ONLY)
SUGGEST = Said(
    "Suggest that lines repeat, contradict each other or stray. It changes no line: Dad decides it in his Similar "
    "view.",
    "A suggestion waits there until he decides it (merge, keep one, retire, not alike) or one of its lines stops "
    "being live. A line that is not live is refused, not_found (404), naming it in 'lines'; the same lines and kind "
    "already pending, or lines Dad marked not alike, answer 'already' (pending, not_alike; 200 over HTTP) instead of "
    "a new one; past NOTEBOOK_PENDING_SUGGESTIONS pending on the notebook, too_many_suggestions (429), "
    f"{WAIT}. {GAME_ONLY}",
)

# ----- sessions -----------------------------------------------------------------------------------------------------

SESSIONS = Said(
    "The sessions, newest first, each with its state and events; only those in 'state', of 'actor' or on 'notebook' "
    "when given; a page of them.",
    "Each session names its notebook, actor, plan, base and state (open, landed, no-op, abandoned or lapsed, with "
    "lapsed_at), its events (take, drift, checkpoint, refuse, withdraw, land, abandon, lapse) and how many rows its "
    "change and its drift hold.",
)
SESSION = Said(
    "One session: its events, and a page of its rows at a time, its own (its semantic change) and the drift "
    "recorded apart, together in log order.",
    "'change' holds the rows the session wrote (its proposals and, once it landed, their landed copies), 'drift' the "
    "rows others wrote since its base, recorded apart; 'change_rows' and 'drift_rows' are their totals. Every actor "
    "reads any session; an unknown id is refused, not_found (404).",
)
TAKE = Said(
    "Take a session on a notebook before changing it: pending drift is recorded first, then base is fixed at the "
    "notebook's head.",
    "One open session per notebook and per actor: a notebook claimed by another is refused, conflict (409), naming "
    f"the holder and the session, {WAIT} until its holder's lease would lapse; a second take of yours is refused "
    "naming the session you hold. While it is open, your writes belong to it and your writes under any other title "
    "are refused.",
)
CHECKPOINT = Said(
    "Checkpoint an open session: the head recorded as recovery evidence; it moves no base and grants nothing.",
    "'note' says where the run stands; the answer gives the session's base and the head now. Only its holder "
    "checkpoints a session (forbidden, 403, for anyone else's); a session landed or abandoned is refused, conflict "
    "(409), a lapsed one lapsed (409). Like any call of the holder's, it renews the lease.",
)
LAND = Said(
    "Land a session: its rows become one semantic change, others' rows are recorded as drift.",
    "A session that wrote nothing gives result no-op; one that wrote needs a 'summary' of what it changed. The final "
    "gates compare with the original base, never a checkpoint; a failed gate is refused, gate_refused (409), naming "
    "its reasons, and leaves the session open.",
)
WITHDRAW = Said(
    "Withdraw one proposal of your open session ('seq', as its write answered or a gate's reason names it), with a "
    "reason; the rest of the session stays to land.",
    "Nothing is erased: a withdraw event names the proposal, which stays in the log and history but no longer counts "
    "in your view, the final gates or the land; a merge is taken back whole, by its merged line's add. Refused: a seq "
    "that is no proposal of the session, not_found (404); one already withdrawn, one a later proposal builds on "
    "(withdraw that one first) or one strike of a merge, conflict (409); a session landed or abandoned, conflict "
    "(409), or lapsed, lapsed (409); another's, forbidden (403; the editor may).",
)
ABANDON = Said(
    "Abandon a session without a semantic change; its rows stay in the log.",
    "'why' is required. The holder or the editor abandons a session (forbidden, 403, for anyone else), a lapsed one "
    "too; one landed or abandoned is refused, conflict (409). Its proposals never count, drift since its base is "
    "recorded apart, and the notebook is free to take again.",
)
