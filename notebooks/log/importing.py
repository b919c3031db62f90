"""Reading JSON Lines into rows: every row is checked against the notebook as it stands before
anything is written, and a refusal names the file's line number. No database access here."""

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from notebooks.log import rowformat
from notebooks.log.checks import MAX_TIME
from notebooks.log.errors import NotebookError
from notebooks.log.fold import (
    PROPOSABLE,
    PROPOSE,
    LineState,
    check_may_restore,
    edit_source_allowed,
    sourceless_edit_source,
)
from notebooks.log.import_fields import (
    HEX,
    digest_of,
    fail,
    loads,
    moved_of,
    name_of,
    number_of,
    quoted,
    text_of,
    time_of,
)
from notebooks.models import How, Source

SOURCES = frozenset(Source.values)
HOWS = frozenset(How.values)  # How.values builds a new list on every read: 100k rows read it 30k times
RETIRED = How.RETIRED.value
MOVED = How.MOVED.value
DAD_CORRECTION = Source.DAD_CORRECTION.value  # a plain str: an enum member costs a lookup on every read
OPS = ("add", "edit", "strike", "adopt", "redact", "propose")
# A row appended to an existing notebook is hashed with the time the log gives it: a hash of the writer's cannot hold.
APPENDED_HASH = (
    "a row appended to an existing notebook carries no 'hash': the log gives it its time and its place in the chain "
    "(leave 'hash' out; your 'at' is kept as the row's claimed_at)"
)


@dataclass
class ImportState:
    """The notebook's lines as the rows so far leave them: enough to judge the next row."""

    lines: dict[int, LineState] = field(default_factory=dict)
    texts: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # every add/edit of a line, for adoption
    top_n: int = 0
    seq: int = 0
    at: float = 0.0
    worded: dict[int, set[str]] = field(default_factory=dict)  # digests each line's rows carried
    redacted: dict[str, int] = field(default_factory=dict)  # digest -> file line of the redact row naming it
    absent: dict[str, int] = field(default_factory=dict)  # digest -> first file line that had no words for it
    restored: dict[int, int] = field(default_factory=dict)  # a restored line -> the line that restores it
    moved: dict[int, tuple[str, int]] = field(default_factory=dict)  # a line moved away -> its notebook and line there
    keyed: dict[str, str] = field(default_factory=dict)  # plain digest -> the keyed digest given to words without one
    proposals: dict[int, tuple[str, int]] = field(default_factory=dict)  # a proposal's seq -> (op it proposes, n)
    reserved: set[int] = field(default_factory=set)  # numbers a proposed add holds, not yet landed
    pending: dict[int, dict[int, LineState]] = field(default_factory=dict)  # session -> lines as its holder sees them

    def line(self, n: int, session: int | None = None) -> LineState | None:
        """Line n as a write of `session`'s holder judges it (her proposals as the ops they propose), or as landed."""
        own = self.pending.get(session) if session is not None else None
        return own[n] if own is not None and n in own else self.lines.get(n)

    def own_line(self, n: int, session: int) -> LineState | None:
        """Line n in `session`'s own view, to change there: a copy of the landed line the first time."""
        own = self.pending.setdefault(session, {})
        if n not in own:
            landed = self.lines.get(n)
            if landed is None:
                return None
            own[n] = replace(landed)
        return own[n]


def words_of(
    obj: dict, key: str, line_no: int, state: ImportState, limit: int, keyed: Callable[[str], tuple[str, str]] | None
) -> tuple[str | None, str | None, str | None]:
    """A row's words, digest and salt, or (None, digest, None) for words redacted before export ("digest" beside
    "[redacted: why]"). Words with a salt have its keyed digest; words without one the plain digest the file's hash
    took, or, in a row without a hash, a keyed one from `keyed` (when given)."""
    if "digest" in obj and "salt" not in obj:
        digest = digest_of(obj, "digest", line_no)
        state.absent.setdefault(digest, line_no)
        return None, digest, None
    words = text_of(obj, key, line_no, required=True, limit=limit)
    salt = obj.get("salt")
    if salt is not None and (not isinstance(salt, str) or not 0 < len(salt) <= 64 or not set(salt) <= HEX):
        raise fail(line_no, f"'salt' must be hex digits, not {quoted(salt)}")
    digest = rowformat.words_digest(words, salt)  # once, here: the log keeps it (append.py)
    if "digest" in obj and obj["digest"] != digest:
        raise fail(line_no, "'hash' does not match the row's content: its words are not the ones its digest covers")
    if salt is None and keyed is not None and "hash" not in obj:
        salt, digest = keyed(words)
        state.keyed[rowformat.digest_of(words)] = digest  # a redact row of the file may name the plain one
    if digest in state.redacted:
        raise fail(line_no, f"these words were redacted on line {state.redacted[digest]}; they cannot be written again")
    return words, digest, salt


def parse(
    lines: Iterable[str], *, state: ImportState | None = None, **options: Any
) -> tuple[list[dict[str, Any]], ImportState]:
    """Check rows against the state and return them as fields for the log, with the state after them.

    `options` are checked_rows' (limits, is_editor, progress, `start`: the file's line number of the first line
    given, so a refusal names the line in the file; `keep_texts=False` skips keeping every text of every line).
    """
    state = state or ImportState()
    return list(checked_rows(lines, state=state, **options)), state


def checked_rows(
    lines: Iterable[str],
    *,
    state: ImportState,
    default_by: str = "unknown",
    is_editor: Callable[[str], bool] = lambda name: False,
    max_words: int = 4000,
    max_reason: int = 2000,
    max_rows: int = 2_000_000,
    progress: Callable[[int], None] | None = None,
    start: int = 1,
    keep_texts: bool = True,
    latest: float = MAX_TIME,
    redact_refusal: str = "",
    session_row_refusal: str = "",
    attribute: Callable[[dict[str, Any], str, int], tuple[str, bool]] | None = None,
    keyed: Callable[[str], tuple[str, str]] | None = None,
    session_of: Callable[[str, bool, int], int | None] | None = None,
    log_time: bool = False,
) -> Iterator[dict[str, Any]]:
    """parse, a row at a time: each row is checked against `state` (brought up to date as it goes) before it is
    given, so an import can write rows while it reads the file. The file's last check (words marked redacted that
    no redact row names) runs after its last row: a refusal can come after every row was given.

    `latest`: the latest time a row may carry (checks.latest_time(); the caller reads the clock). `redact_refusal`:
    when given, every redact row is refused with it (rows appended from outside may not redact);
    `session_row_refusal` likewise every proposal and landed copy (a session's change counts only by its land).
    `attribute`: when
    given, whom each row is by and whether as the editor, from the row as parsed (the JSON object, the `by` it
    claims, its file line), in place of the claim and `is_editor`: an outside row's author is proven, not read.
    `keyed`: the salt and keyed digest of words in the notebook (wordkeys.keyed), for rows that give no hash.
    `session_of`: when given, the open session a row of (by, editor, file line) belongs to, or None (the write
    guard's claim): such a row is her proposal, judged against her session's view (`state.pending`).
    `log_time`: rows appended to an existing notebook: the log gives each its time (append.py stamps it) and keeps
    the time the row gives as `claimed_at`; an `adopt` must name an existing line (rowformat docstring)."""
    latest = min(latest, MAX_TIME)
    count = 0
    for line_no, raw in enumerate(lines, start=start):
        if progress and line_no % 1000 == 0:
            progress(line_no)
        if not raw.strip():
            continue
        if count >= max_rows:
            raise fail(line_no, f"more than {max_rows} rows; the limit per import is {max_rows}")
        try:
            obj = loads(raw)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise fail(line_no, f"not valid JSON ({exc})") from None
        if not isinstance(obj, dict):
            raise fail(line_no, "a row must be a JSON object")
        op = obj.get("op")
        if op not in OPS:
            raise fail(line_no, f"unknown op {quoted(op)}: use add, edit, strike, adopt, redact or propose")
        if op == "redact" and redact_refusal:
            raise fail(line_no, redact_refusal)
        if session_row_refusal and (op == PROPOSE or "lands" in obj):
            raise fail(line_no, session_row_refusal)
        n = number_of(obj, "n", line_no)
        if log_time:  # the writer's time, kept apart; the log's is stamped on append
            key = "at" if "at" in obj or "claimed_at" not in obj else "claimed_at"
            at, writer_at = None, time_of(obj, key, line_no, required=False, latest=latest)
            if "hash" in obj:
                raise fail(line_no, APPENDED_HASH)
        else:
            at = time_of(obj, "at", line_no, latest=latest)
            if at < state.at:
                raise fail(line_no, f"'at' {at} goes back in time (the row before is at {state.at})")
            writer_at = time_of(obj, "claimed_at", line_no, required=False, latest=latest)
        proposes = obj.get("proposes") if op == PROPOSE else None
        if op == PROPOSE and proposes not in PROPOSABLE:
            raise fail(line_no, f"a proposal proposes add, edit or strike, not {quoted(proposes)}")
        kind = proposes or op  # a proposal's fields are those of the op it proposes
        claimed = name_of(obj, "by", line_no, required=kind in ("edit", "strike", "redact"))
        if attribute is None:
            by = claimed or default_by
            editor = is_editor(by)
        else:
            by, editor = attribute(obj, claimed, line_no)
        why = text_of(obj, "why", line_no, required=kind in ("edit", "strike", "redact"), limit=max_reason)
        fields: dict[str, Any] = {"op": op, "n": n, "by": by, "why": why, "at": at, "line_no": line_no}
        if writer_at is not None:
            fields["claimed_at"] = writer_at
        session = session_of(by, editor, line_no) if session_of is not None and op != PROPOSE else None
        if session is not None:
            fields["session_id"] = session  # append() writes its add, edit or strike as a proposal (fold.py)
        proposed = session is not None and op in PROPOSABLE
        if proposed:
            state.proposals[state.seq + 1] = (op, n)
        current = state.own_line(n, session) if proposed else state.line(n)
        lands = number_of(obj, "lands", line_no, required=False) if "lands" in obj else None
        if lands is not None:
            _check_landed(obj, op, n, lands, state, line_no)
            fields["lands"] = lands
        if op == PROPOSE:
            words, digest = _proposal(obj, proposes, n, fields, state, line_no, max_words, keyed)
        elif op == "add":
            if lands is not None:
                state.reserved.discard(n)  # the number its proposal held
            elif n != state.top_n + 1:
                raise fail(line_no, f"a new line takes number {state.top_n + 1}, not {n} (numbers are never reused)")
            source = obj.get("source")
            if not isinstance(source, str) or source not in SOURCES:
                raise fail(line_no, f"unknown source {quoted(source)}")
            words, digest, salt = words_of(obj, "text", line_no, state, max_words, keyed)
            fields.update(words=words, digest=digest, salt=salt, source=source)
            restores = number_of(obj, "restores", line_no, required=False)
            if restores is not None:
                old = state.line(restores, session)
                try:
                    check_may_restore(
                        n=restores, added=old is not None, live=old is not None and old.live,
                        restored_as=state.restored.get(restores), moved_to=state.moved.get(restores),
                    )  # fmt: skip
                except NotebookError as exc:
                    raise fail(line_no, f"'restores': {exc.message}") from None
                fields["into"] = restores  # the row keeps it in `into`, and hashes it there
                state.restored[restores] = n
            came = moved_of(obj, "moved_from", line_no)
            if came is not None:  # moved here from another notebook (fold.py), with the words' author and time
                if restores is not None:
                    raise fail(line_no, "an add restores a line of its notebook or moves one in, not both")
                fields.update(moved_notebook=came[0], moved_n=came[1])
                fields.update(
                    was_at=time_of(obj, "was_at", line_no, required=False, latest=latest),
                    was_by=name_of(obj, "was_by", line_no, required=False),
                )
            added = LineState(n=n, source=source, words=words, last_seq=state.seq + 1)
            if proposed:
                state.pending.setdefault(session, {})[n] = added
                state.reserved.add(n)
            else:
                state.lines[n] = added
            state.top_n = max(state.top_n, n)
        elif op == "edit":
            if current is None:
                raise fail(line_no, f"edit of line #{n}, which does not exist")
            if not current.live:
                raise fail(line_no, f"edit of line #{n}, which is retired")
            if "text" in obj:
                raise fail(line_no, "an edit's words ride under 'to', never 'text'")
            words, digest, salt = words_of(obj, "to", line_no, state, max_words, keyed)
            source = obj.get("source")
            if source is None:
                source = sourceless_edit_source(by=by, editor=editor, current=current.source)
            elif not isinstance(source, str) or not edit_source_allowed(current=current.source, given=source):
                raise fail(line_no, f"an edit keeps the line's source ({current.source}) or makes it dad_correction")
            fields.update(words=words, digest=digest, salt=salt, source=source)
            current.apply(state.seq + 1, "edit", source, words)
        elif op == "strike":
            if current is None:
                raise fail(line_no, f"strike of line #{n}, which does not exist")
            if not current.live:
                raise fail(line_no, f"strike of line #{n}, which is already retired")
            how = obj.get("how") or RETIRED
            if not isinstance(how, str) or how not in HOWS:
                raise fail(line_no, f"unknown how {quoted(how)}: use retired, merged or moved")
            went = moved_of(obj, "moved_to", line_no)
            if (how == MOVED) != (went is not None):
                raise fail(
                    line_no, "a strike how 'moved' names where it went in 'moved_to' and 'moved_to_n'; no other does"
                )
            if went is not None:
                if obj.get("into") is not None:
                    raise fail(line_no, "a moved line's 'into' stays empty: 'moved_to_n' names the line it became")
                fields.update(moved_notebook=went[0], moved_n=went[1])
                state.moved[n] = went
            into = number_of(obj, "into", line_no, required=False)
            if into is not None:
                if into == n:
                    raise fail(line_no, f"line #{n} cannot be retired into itself")
                target = state.line(into, session)
                if target is None or not target.live:
                    raise fail(line_no, f"'into' names line #{into}, which is not a live line")
            fields.update(how=how, into=into)
            current.apply(state.seq + 1, "strike", "", None)
        elif op == "redact":
            if not editor:
                raise fail(line_no, f"a redact row must be by the human editor, not {quoted(by)}")
            digest = digest_of(obj, "redacts", line_no)
            if "hash" not in obj:
                digest = state.keyed.get(digest, digest)
            if digest not in state.worded.get(n, ()):
                raise fail(line_no, f"'redacts' names words that no earlier row of line #{n} carried")
            if digest in state.redacted:
                raise fail(line_no, f"those words were already redacted on line {state.redacted[digest]}")
            state.redacted[digest] = line_no
            fields.update(redacts=digest)
            words = None
        else:  # adopt: history only, never in the view
            words, digest, salt = words_of(obj, "was", line_no, state, max_words, keyed)
            source = obj.get("source") or ""
            if source and (not isinstance(source, str) or source not in SOURCES):
                raise fail(line_no, f"unknown source {quoted(source)}")
            fields.update(
                words=words,
                digest=digest,
                salt=salt,
                source=source,
                was_at=time_of(obj, "was_at", line_no, required=False, latest=latest),
                was_by=name_of(obj, "was_by", line_no, required=False),
            )
            if log_time and current is None:  # only a file that starts a notebook brings numbers of its own
                raise fail(line_no, f"adopt of line #{n}, which does not exist: an adopt row names an existing line")
            state.top_n = max(state.top_n, n)
        if op in ("add", "edit", "adopt") or (op == PROPOSE and digest):
            state.worded.setdefault(n, set()).add(digest)
        if keep_texts and op in ("add", "edit"):
            text = {"words": words, "digest": digest, "source": fields["source"], "by": by, "at": at, "why": why}
            state.texts.setdefault(n, []).append(text)
        state.seq += 1
        if "seq" in obj and obj["seq"] != state.seq:
            raise fail(line_no, f"'seq' is {quoted(obj['seq'])} but this row is number {state.seq} in the log")
        if "hash" in obj:
            if not isinstance(obj["hash"], str):
                raise fail(line_no, "'hash' must be a string")
            fields["expect_hash"] = obj["hash"]
        if at is not None:
            state.at = at
        count += 1
        yield fields
    unnamed = {d: line for d, line in state.absent.items() if d not in state.redacted}
    if unnamed:
        digest, line_no = min(unnamed.items(), key=lambda item: item[1])
        raise fail(line_no, f"the words are marked redacted (digest {digest[:12]}…) but no redact row names them")


def _check_landed(obj: dict, op: str, n: int, lands: int, state: ImportState, line_no: int) -> None:
    """A landed copy names an earlier proposal of the same op and line, landed once."""
    proposed = state.proposals.pop(lands, None)
    if op not in PROPOSABLE or proposed != (op, n):
        raise fail(line_no, f"'lands' names seq {lands}, which is no unlanded proposal of {op} of line #{n}")


def _proposal(
    obj: dict,
    proposes: str,
    n: int,
    fields: dict[str, Any],
    state: ImportState,
    line_no: int,
    max_words: int,
    keyed: Callable[[str], tuple[str, str]] | None,
) -> tuple[str | None, str | None]:
    """A session's proposal (fold.py): checked as far as its op's own fields go; it changes no line. A proposed add
    holds its number; the line it proposes to change must have a number already. Returns its words and digest."""
    if "text" in obj or "to" in obj:
        raise fail(line_no, "a proposal's words ride under 'proposed_text' or 'proposed_to', never 'text' or 'to'")
    fields["proposes"] = proposes
    words = digest = None
    if proposes == "add":
        if n != state.top_n + 1:
            raise fail(line_no, f"a new line takes number {state.top_n + 1}, not {n} (numbers are never reused)")
        state.top_n = n
        state.reserved.add(n)
        fields["into"] = number_of(obj, "restores", line_no, required=False)
    elif n > state.top_n:
        raise fail(line_no, f"a proposal to change line #{n}, which has no number yet")
    if proposes in ("add", "edit"):
        source = obj.get("source")
        if not isinstance(source, str) or source not in SOURCES:
            raise fail(line_no, f"unknown source {quoted(source)}")
        key = rowformat.PROPOSED_WORDS_FIELD[proposes]
        words, digest, salt = words_of(obj, key, line_no, state, max_words, keyed)
        fields.update(words=words, digest=digest, salt=salt, source=source)
    else:
        how = obj.get("how") or RETIRED
        if not isinstance(how, str) or how not in HOWS or how == MOVED:
            raise fail(line_no, f"unknown how {quoted(how)} for a proposal: use retired or merged")
        fields.update(how=how, into=number_of(obj, "into", line_no, required=False))
    state.proposals[state.seq + 1] = (proposes, n)
    return words, digest
