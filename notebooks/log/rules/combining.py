"""Lines combined into one: a retire into a kept line, and a merge; each row judged by the one decision."""

from collections.abc import Sequence
from typing import Any

from notebooks.log.rules import checks, decision, fold
from notebooks.log.rules.decision import MERGED, RETIRED, SERVICE
from notebooks.log.rules.errors import Invalid
from notebooks.log.rules.state import State


def retire_into_rows(
    state: State, *, numbers: Sequence[int], into: int, by: str, editor: bool, why: str,
    expected: dict[int, int] | None = None, **extra: Any,
) -> list[dict[str, Any]]:  # fmt: skip
    """Keep line `into` and retire each of `numbers` into it: the kept line is live, then each strike as any."""
    kept = state.line(into)
    if kept is None:
        raise decision.missing_line(state, SERVICE, "keep", into)
    if not kept.live:
        raise Invalid(f"Line #{into} is retired, so it cannot say what the others said.")
    strikes = [
        {"op": "strike", "n": x, "how": RETIRED, "into": into, "by": by, "why": why, **extra,
         "expected": (expected or {}).get(x)}
        for x in numbers
    ]  # fmt: skip
    return decision.decide_all(state, strikes, editor=editor)


def merge_rows(
    state: State,
    *,
    numbers: Sequence[int],
    words: str,
    source: str | None,
    by: str,
    editor: bool,
    why: str,
    **extra: Any,
) -> list[dict[str, Any]]:
    """A merge: an add of the new line and a strike of each merged line, how="merged", into it."""
    lines = []
    for x in numbers:
        line = state.line(x)
        if line is None:
            raise decision.missing_line(state, SERVICE, "merge", x)
        if not line.live:
            raise decision.already_retired(SERVICE, "merge", line)
        lines.append(line)
    for line in lines:
        fold.check_may_change(name=by, editor=editor, n=line.n, source=line.source, verb="merge")
    if source is None:
        source = fold.merge_source(editor=editor, lines=[(x.n, x.source, x.words) for x in lines], text=words).source
    checks.check_source(source)
    add = {"op": "add", "words": words, "source": source, "by": by, "why": why, **extra}
    fold.check_may_write(name=by, editor=editor, source=source)
    (add,) = decision.decide_all(state, [add], editor=editor)
    strikes = [
        {"op": "strike", "n": x, "how": MERGED, "into": add["n"], "by": by, "why": why, "verb": "merge", **extra}
        for x in numbers
    ]
    return [add, *decision.decide_all(state, strikes, editor=editor)]
