"""Rows from outside, all or nothing: a JSON Lines file imported as a new notebook, and rows an outside writer
appended to a notebook's vault file, each judged by the one decision (importing.py, decision.py)."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from notebooks.log.files import importing, rowformat
from notebooks.log.identity import outside, wordkeys
from notebooks.log.identity.roles import Actor, check_name, editor_names
from notebooks.log.rules import decision, fold, guards
from notebooks.log.rules.checks import latest_time
from notebooks.log.rules.errors import Conflict, Invalid, Redacted
from notebooks.log.rules.lines import Head
from notebooks.log.services import check_title, create_notebook
from notebooks.log.store import rows as stored
from notebooks.log.store.append import append
from notebooks.log.store.locked_reads import head
from notebooks.log.store.locks import lock_notebook
from notebooks.models import Notebook


@dataclass(frozen=True)
class Imported:
    notebook: Notebook
    rows: int
    adopted: int


def _limits() -> dict[str, Any]:
    """The limits a file from outside is read within: words, reasons, rows, and no row dated past the clock."""
    return {
        "max_words": settings.NOTEBOOK_MAX_WORDS,
        "max_reason": settings.NOTEBOOK_MAX_REASON,
        "max_rows": settings.NOTEBOOK_MAX_IMPORT_ROWS,
        "latest": latest_time(),
    }


def _locked_or_new(title: str, by: str) -> tuple[Notebook, bool, Head]:
    """The notebook titled `title`, or a new one started by `by`, locked; whether it is new; its head."""
    nb = Notebook.objects.filter(title=title).first()
    created = nb is None
    nb = lock_notebook(create_notebook(title=title, by=by) if created else nb)
    return nb, created, head(nb)


def import_notebook(
    *,
    title: str,
    lines: Iterable[str],
    by: str,
    adopt_from: Iterable[str] | None = None,
    adopt_name: str = "backup",
    progress: Callable[[int], None] | None = None,
) -> Imported:
    """A new notebook from JSON Lines, written as read; `adopt_from` recovers a hand rewrite's lost words."""
    limits = _limits()
    check_name(by)
    is_editor = editor_names().__contains__  # recorded users holding the role, never a name alone
    with transaction.atomic():
        nb, _, top = _locked_or_new(title, by)
        if top.seq:
            raise Conflict(f"Notebook {title!r} already has {top.seq} rows; import starts a new notebook.")
        state = decision.State(title=title)
        rows = importing.checked_rows(
            lines,
            state=state,
            is_editor=is_editor,
            progress=progress,
            keep_texts=False,
            **limits,
            keyed=wordkeys.keyer(title),
        )
        written = append(nb, rows, top, redacted=state.redacted)
        adopted: list[dict[str, Any]] = []
        if adopt_from is not None:
            try:
                _, backup = importing.parse(adopt_from, is_editor=is_editor, **limits)
            except Invalid as exc:
                raise Invalid(f"{adopt_name}: {exc.message}") from None
            adopted = _adoptions(state, backup, backup_name=adopt_name, by=by)
            if adopted:
                last = written[-1] if written else None
                append(nb, adopted, Head(last.seq, last.hash, last.at) if last else top, redacted=state.redacted)
        if not written and not adopted:
            raise Invalid("The file holds no rows.")
        if connection.vendor == "postgresql":
            # A big new notebook is unknown to the planner until autovacuum analyzes it: planned as "one row",
            # the view's joins turn quadratic (bench/NOTES.md).
            transaction.on_commit(stored.analyze)
    return Imported(notebook=nb, rows=len(written), adopted=len(adopted))


@dataclass(frozen=True)
class Appended:
    notebook: Notebook
    created: bool
    seqs: tuple[int, ...]
    by: tuple[str, ...]  # each row's actor, in order


def append_rows(*, notebook: str, lines: Iterable[str], by_default: str, first_line: int = 1) -> Appended:
    """Rows appended to a notebook's file, checked as an import's, their writers proven (outside.py); a new title
    starts a notebook by `by_default` (the operator's, never a row's)."""
    check_title(notebook)
    lines = list(lines)
    authors = outside.Authors(notebook=notebook)
    with transaction.atomic():
        nb, created, top = _locked_or_new(notebook, by_default)
        state = import_state(nb)
        # The log's redactions are asked last, by append(): a file refused for any other reason is refused for it,
        # so a probe cannot test a guess at redacted words (docs/RELIABILITY.md, "What a redaction leaves"). A row
        # marked redacted may name only a keyed digest (a copy of an exported row): no guess can make one.
        state.named = frozenset(d for d in state.redacted if rowformat.is_keyed(d))
        state.redacted.clear()
        door = decision.Door(
            file=True,
            appended=not created,  # a file that starts a notebook keeps its times; rows of one that exists (even
            # with no rows yet: its empty past views were readable) take the log's
            outside=True,
            session_rows=created,
            editors=frozenset(editor_names()),
        )
        rows, after = importing.parse(
            lines,
            state=state,
            door=door,
            attribute=authors.attribute,
            start=first_line,
            **_limits(),
            keyed=wordkeys.keyer(notebook),
            session_of=_Claims(notebook),
        )
        if not rows:
            raise Invalid("No rows to append.")
        if not created:  # a new file's rows are a whole notebook, copied in with their hashes as an import's
            for fields in rows:
                _own_salt(fields, notebook)
        try:
            written = append(nb, rows, top, redacted=frozenset(after.redacted))
        except Redacted:  # one answer per attempt, logged there: not which row, nor which redaction
            raise Redacted(
                f"Words of these rows were redacted from notebook {notebook!r}; they cannot be written into it again."
            ) from None
        authors.record(nb, [(fields["line_no"], row.seq) for fields, row in zip(rows, written, strict=True)])
    return Appended(notebook=nb, created=created, seqs=tuple(r.seq for r in written), by=tuple(r.by for r in written))


class _Claims:
    """The session each author's rows belong to (the write guard's claim; a refusal names the line), asked once."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.found: dict[str, int | None] = {}

    def __call__(self, by: str, editor: bool, line_no: int) -> int | None:
        if by not in self.found:
            try:
                self.found[by] = guards.current().claim(title=self.title, actor=Actor(name=by, editor=editor))
            except Conflict as exc:
                raise Conflict(f"line {line_no}: {exc.message}") from None
        return self.found[by]


def _own_salt(fields: dict[str, Any], title: str) -> None:
    """An appended row's salt is the notebook's own or none: another would let a guess be checked once redacted."""
    salt, words = fields.get("salt"), fields.get("words")
    if salt and words is not None and salt != wordkeys.salt_of(title, words):
        raise Invalid(
            f"line {fields['line_no']}: 'salt' is not this notebook's salt of the words; leave 'salt' (and 'digest') "
            "out and the server keys them",
            line=fields["line_no"],
        )


def import_state(notebook: Notebook) -> decision.State:
    """The notebook as the decision's state, its stored rows folded as a file's are (state.apply): enough to judge
    rows appended after its head."""
    state = decision.State(title=notebook.title)
    for row in stored.rows_to_judge(notebook.pk):
        seq, op, n, source, at, digest, redacts, into, moved_nb, moved_n, proposes, lands, sid, withdrawn, words = row
        fields = {
            "op": op, "n": n, "source": source, "at": at, "digest": digest, "redacts": redacts, "into": into,
            "moved_notebook": moved_nb, "moved_n": moved_n, "lands": lands, "words": words,
        }  # fmt: skip
        session = None
        if op == fold.PROPOSE:
            fields.update(proposes=proposes, withdrawn=withdrawn)
            # A session's write of the op, as its holder's later writes see it (a restore restores for her alone).
            if sid is not None and not withdrawn:
                fields["op"], session = proposes, sid
        state.seq = seq - 1  # the row keeps its stored seq (apply numbers it after the row before)
        decision.apply(state, fields, session)
    state.absent.clear()  # words the log's own rows lack were redacted by its own redact rows (decision.finish)
    return state


def _adoptions(rewrite: decision.State, backup: decision.State, *, backup_name: str, by: str) -> list[dict[str, Any]]:
    """Adopted rows for every backup line the rewrite changed or dropped: the backup's words, as history."""
    out: list[dict[str, Any]] = []
    redacted = backup.redacted.keys() | rewrite.redacted
    for n in sorted(backup.lines):
        new = rewrite.lines.get(n)
        if new is not None and new.words == backup.lines[n].words:
            continue
        for text in backup.texts.get(n, ()):
            words = text["words"]
            if words is None or not {text["digest"], rowformat.digest_of(words)}.isdisjoint(redacted):
                continue  # redacted words stay gone, by either digest they may have had
            why = f"recovered from {backup_name}" + (f": {text['why']}" if text["why"] else "")
            was = {"was_at": text["at"], "was_by": text["by"], "by": by}
            out.append({"op": "adopt", "n": n, "words": words, "source": text["source"], "why": why, **was})
    return out
