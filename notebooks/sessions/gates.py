"""The final gates a session's land must pass, compared with its original base (a checkpoint never moves it)."""

from notebooks.log.rules.fold import DAD_SOURCES
from notebooks.log.store import session_rows
from notebooks.log.views.selectors import view_at_seq
from notebooks.models import Notebook, Role, Session

# An agent's session may drop (retire without a successor) at most this share of the lines live at its base.
MAX_DROPPED_SHARE = 0.5


def own_rows(session: Session) -> list[tuple]:
    """The session's rows (seq, op, n, how, into, why), each proposal as the op it proposes (fold.py)."""
    return session_rows.session_ops(session.notebook_id, session.base, session.pk)


def _sources_of(notebook: Notebook, numbers: set[int], upto: int) -> dict[int, list[tuple[int, str]]]:
    """Each line's (seq, source) after every add or edit, in log order."""
    if not numbers:
        return {}
    found: dict[int, list[tuple[int, str]]] = {n: [] for n in numbers}
    for n, seq, source in session_rows.worded_sources(notebook.pk, upto):
        if n in found:
            found[n].append((seq, source))
    return found


def _source_before(history: list[tuple[int, str]], seq: int) -> str:
    before = [source for s, source in history if s < seq]
    return before[-1] if before else ""


def gates(session: Session, own: list[tuple], top: int) -> list[str]:
    """Why the session may not land; none when it may."""
    reasons: list[str] = []
    for seq, op, n, _how, _into, why in own:
        if op == "strike" and not (why or "").strip():
            reasons.append(f"Line #{n} was retired without a reason (seq {seq}).")
    reasons += _changed_since(session, own)
    if session.role == Role.EDITOR:
        return reasons
    nb = session.notebook
    touched = {(seq, n) for seq, op, n, *_ in own if op in ("edit", "strike")}
    history = _sources_of(nb, {n for _, n in touched}, top)
    dads = set()
    for seq, n in sorted(touched):
        at_base = _source_before(history[n], session.base + 1)
        at_touch = _source_before(history[n], seq)
        if n not in dads and (at_base in DAD_SOURCES or at_touch in DAD_SOURCES):
            dads.add(n)
            reasons.append(f"Line #{n} is Dad's ({at_base or at_touch}); the session changed it (seq {seq}).")
    live_at_base = {line.n for line in view_at_seq(nb, session.base)}
    dropped = {n for _seq, op, n, how, into, _why in own if op == "strike" and how == "retired" and into is None}
    restored = {into for _seq, op, _n, _how, into, _why in own if op == "add" and into is not None}
    dropped = (dropped - restored) & live_at_base  # a line the session restored again is mended, not dropped
    if len(dropped) > 1 and len(dropped) > MAX_DROPPED_SHARE * len(live_at_base):
        numbers = ", ".join(f"#{n}" for n in sorted(dropped))
        reasons.append(
            f"The session retired {len(dropped)} of the {len(live_at_base)} lines live at its base without a "
            f"successor ({numbers}): more than {MAX_DROPPED_SHARE:.0%}, which reads as a rewrite by hand. Retire "
            "into the line that says it, merge, restore the lines, or leave the session to Dad, who may land or "
            "discard it on /sessions/."
        )
    return reasons


def _changed_since(session: Session, own: list[tuple]) -> list[str]:
    """Lines another writer changed since the session's base that it proposes to change too: its land undoes that."""
    touched = {n: seq for seq, op, n, *_ in reversed(own) if op in ("edit", "strike")}
    if not touched:
        return []
    changed = session_rows.changed_by_others(session.notebook_id, session.base, session.pk)
    return [
        f"Line #{n} was changed by another writer (seq {changed[n]}) since the session's base; the session "
        f"proposes to change it too (seq {seq}). Read it again and mend, or leave the session to Dad."
        for n, seq in sorted(touched.items())
        if n in changed
    ]
