"""Random operation sequences through the services give the same view, frozen views and histories as a plain
Python fold written after the seed's sketch (extended with merge and adopt, as its exercise asks)."""

import json
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from django.db import transaction
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from notebooks.log import services
from notebooks.log.files import imports
from notebooks.log.files.verify import verify_chain
from notebooks.log.rules.errors import Conflict, Forbidden, Invalid, NotebookError, NotFound, Unchanged
from notebooks.log.store import append
from notebooks.log.views import selectors

EDITORS = {"dad"}
ACTORS = ["pippa", "reflector", "dad"]
DADS = {"dad", "dad_correction"}


@dataclass
class Model:
    """The seed's file: a list of rows only ever appended to, and folds over it."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    def append(self, row: dict[str, Any], now: float) -> None:
        last = self.rows[-1]["at"] if self.rows else 0.0
        self.rows.append({"seq": len(self.rows) + 1, "at": max(now, last) if "at" not in row else row["at"], **row})

    # ----- folds -----

    def view(self, until: float | None = None) -> dict[int, dict[str, Any]]:
        lines: dict[int, dict[str, Any]] = {}
        for r in self.rows:
            if until is not None and r["at"] > until:
                break  # a frozen reader sees the file as it stood
            stamp = {"by": r["by"], "at": r["at"], "seq": r["seq"]}
            if r["op"] == "add":
                lines[r["n"]] = {"text": r["text"], "source": r["source"], **stamp}
            elif r["op"] == "edit" and r["n"] in lines:
                source = "dad_correction" if r["by"] in EDITORS else lines[r["n"]]["source"]
                lines[r["n"]] = {"text": r["to"], "source": source, **stamp}
            elif r["op"] == "strike":
                lines.pop(r["n"], None)
        return lines

    def history(self, n: int) -> list[tuple]:
        mine = [r for r in self.rows if r["n"] == n]
        adopted = sorted((r for r in mine if r["op"] == "adopt"), key=lambda r: (r["was_at"] or 0.0, r["seq"]))
        out = [
            (
                r["seq"],
                "adopt",
                r["was"],
                r["source"],
                r["by"],
                r["at"],
                r["why"],
                "",
                None,
                True,
                r["was_at"],
                r["was_by"],
                None,
            )
            for r in adopted
        ]
        text, source = None, ""
        for r in mine:
            if r["op"] == "adopt":
                continue
            if r["op"] == "add":
                text, source = r["text"], r["source"]
            elif r["op"] == "edit":
                text, source = r["to"], "dad_correction" if r["by"] in EDITORS else source
            how, into = (r["how"], r["into"]) if r["op"] == "strike" else ("", None)
            out.append((r["seq"], r["op"], text, source, r["by"], r["at"], r["why"], how, into, False, None, "", None))
        # Each other line's strike into this one, with what that line said just before it.
        for r in self.rows:
            if r["op"] == "strike" and r["into"] == n and r["n"] != n and mine:
                text, source = self.said_before(r["n"], r["seq"])
                entry = (r["seq"], "retired_into", text, source, r["by"], r["at"], r["why"], r["how"], n, False)
                out.append((*entry, None, "", r["n"]))
        adopted, rest = out[: len(adopted)], sorted(out[len(adopted) :])
        return adopted + rest

    def said_before(self, n: int, seq: int) -> tuple[str | None, str]:
        text, source, live = None, "", False
        for r in self.rows:
            if r["n"] != n or r["seq"] >= seq:
                continue
            if r["op"] == "add" and text is None:
                text, source, live = r["text"], r["source"], True
            elif r["op"] == "edit" and live:
                text, source = r["to"], "dad_correction" if r["by"] in EDITORS else source
            elif r["op"] == "strike":
                live = False
        return text, source

    # ----- what the services must accept or refuse -----

    def top(self) -> int:
        return max((r["n"] for r in self.rows), default=0)

    def exists(self, n: int) -> bool:
        return any(r["n"] == n and r["op"] == "add" for r in self.rows)

    def last_seq(self, n: int) -> int:
        return max(r["seq"] for r in self.rows if r["n"] == n and r["op"] != "adopt")

    def live_line(self, n: int) -> dict[str, Any]:
        if not self.exists(n):
            raise NotFound(f"no line #{n}")
        line = self.view().get(n)
        if line is None:
            raise Conflict(f"#{n} retired")
        return line

    def may_change(self, by: str, line: dict[str, Any]) -> None:
        if by not in EDITORS and line["source"] in DADS:
            raise Forbidden("Dad's")

    def add(self, text: str, source: str, by: str, why: str, now: float) -> None:
        if not text.strip() or not why.strip():
            raise Invalid("empty")
        if by not in EDITORS and source in DADS:
            raise Forbidden("agent")
        self.append({"op": "add", "n": self.top() + 1, "text": text, "source": source, "by": by, "why": why}, now)

    def edit(self, n: int, to: str, by: str, why: str, expected: int | None, now: float) -> None:
        if not to.strip() or not why.strip():
            raise Invalid("empty")
        line = self.live_line(n)
        self.may_change(by, line)
        if expected is not None and expected != self.last_seq(n):
            raise Conflict("stale")
        if to == line["text"]:
            raise Unchanged("same words")
        self.append({"op": "edit", "n": n, "to": to, "by": by, "why": why}, now)

    def retire(self, n: int, by: str, why: str, into: int | None, now: float) -> None:
        if not why.strip():
            raise Invalid("empty")
        self.may_change(by, self.live_line(n))
        if into is not None:
            if into == n:
                raise Invalid("into itself")
            if not self.exists(into):
                raise NotFound("into")
            if into not in self.view():
                raise Invalid("into a dead line")
        self.append({"op": "strike", "n": n, "how": "retired", "into": into, "by": by, "why": why}, now)

    def merge(self, numbers: list[int], text: str, by: str, why: str, now: float) -> None:
        if not text.strip() or not why.strip() or len(set(numbers)) < 2 or len(set(numbers)) != len(numbers):
            raise Invalid("bad merge")
        lines = [self.live_line(x) for x in numbers]
        for line in lines:
            self.may_change(by, line)
        sources = {line["source"] for line in lines}
        by_number = sorted(zip(numbers, lines, strict=True), key=lambda pair: pair[0])
        kept = [line["source"] for _n, line in by_number if line["text"].strip() == text.strip()]
        if by in EDITORS and kept:  # his merge that keeps one line's words keeps its source
            source = kept[0]
        elif by in EDITORS:
            source = "dad" if sources == {"dad"} else "dad_correction"
        else:
            source = "seen" if "seen" in sources else "guessed"
        new = self.top() + 1
        self.append({"op": "add", "n": new, "text": text, "source": source, "by": by, "why": why}, now)
        for x in numbers:
            self.append({"op": "strike", "n": x, "how": "merged", "into": new, "by": by, "why": why}, now)

    def import_rewrite(self, rewrite: list[dict], backup: list[dict], by: str, now: float) -> None:
        """A hand rewrite imported with --adopt-from its backup: adopted rows for every line it changed or dropped."""
        for r in rewrite:
            self.rows.append({"seq": len(self.rows) + 1, "by": r["by"], "why": "", **r})
        old = Model()
        for r in backup:
            old.rows.append({"seq": len(old.rows) + 1, "why": "", **r})
        now_words = {n: line["text"] for n, line in self.view().items()}
        for n in sorted({r["n"] for r in backup}):
            if now_words.get(n) == old.view()[n]["text"]:
                continue
            for _seq, _op, text, source, was_by, was_at, why, *_ in old.history(n):
                why = "recovered from backup" + (f": {why}" if why else "")
                adopt = {"op": "adopt", "n": n, "was": text, "source": source, "by": by, "why": why}
                self.append({**adopt, "was_at": was_at, "was_by": was_by}, now)


# ----- strategies ---------------------------------------------------------------------------------

# Few words and low numbers, so edits hit lines, words repeat and refusals happen, but most writes go through.
words = st.sampled_from(["roll", "block", "jump", "roll after his swing", "roll", "block", " ", "block "])
reasons = st.sampled_from(["died", "seen twice", "died", "seen twice", ""])
actors = st.sampled_from(ACTORS)
numbers = st.integers(min_value=1, max_value=6)
ticks = st.sampled_from([0.0, 0.5, 1.0, 3.0, -2.0])  # the clock may stand still or go backwards

# Mostly two or three lines that may exist; sometimes fewer than two, or one named twice.
merged = st.lists(st.integers(1, 4), min_size=2, max_size=3, unique=True) | st.lists(numbers, max_size=3)
adds = st.tuples(
    st.just("add"),
    words,
    st.sampled_from(["seen", "guessed", "seen", "guessed", "dad", "dad_correction"]),
    actors,
    reasons,
    ticks,
)
operations = st.one_of(
    adds,
    st.tuples(st.just("edit"), numbers, words, actors, reasons, st.sampled_from([None, "fresh", "stale"]), ticks),
    st.tuples(st.just("retire"), numbers, actors, reasons, st.sampled_from([None, None, None, 1, 2, 3]), ticks),
    st.tuples(st.just("merge"), merged, words, actors, reasons, ticks),
)


@st.composite
def hand_rewrites(draw: st.DrawFn) -> tuple[list[dict], list[dict]] | None:
    """None, or (rewrite, backup): a backup of a few lines with edits, and a rewrite keeping or changing some."""
    if not draw(st.booleans()):
        return None
    backup: list[dict] = []
    at = 10.0
    for n in range(1, draw(st.integers(0, 4)) + 1):
        backup.append(
            {"op": "add", "n": n, "text": draw(words.filter(str.strip)), "source": "seen", "by": "pippa", "at": at}
        )
        at += 1
        for _ in range(draw(st.integers(0, 2))):
            by = draw(actors)
            backup.append({"op": "edit", "n": n, "to": f"{draw(words)} v{at}", "by": by, "why": "better", "at": at})
            at += 1
    finals = Model(rows=[{"seq": i + 1, "why": "", **r} for i, r in enumerate(backup)]).view()
    rewrite: list[dict] = []
    for n in range(1, draw(st.integers(0, 4)) + 1):
        keep = n in finals and draw(st.booleans())
        text = finals[n]["text"] if keep else draw(words.filter(str.strip))
        rewrite.append({"op": "add", "n": n, "text": text, "source": "seen", "by": "chat", "at": 100.0 + n})
    return rewrite, backup


# ----- the property -------------------------------------------------------------------------------


def _apply(op: tuple, model: Model, now: float) -> tuple[type | None, type | None]:
    """Apply one operation to the model and through the services; return (model's refusal, the services')."""
    kind = op[0]
    if kind == "add":
        _, text, source, by, why, _ = op
        m = lambda: model.add(text, source, by, why, now)  # noqa: E731
        s = lambda: services.add(notebook="zelda", text=text, source=source, by=by, why=why)  # noqa: E731
    elif kind == "edit":
        _, n, to, by, why, mode, _ = op
        expected = None
        if mode and model.exists(n):
            expected = model.last_seq(n) - (1 if mode == "stale" else 0)
        m = lambda: model.edit(n, to, by, why, expected, now)  # noqa: E731
        s = lambda: services.edit(notebook="zelda", n=n, to=to, by=by, why=why, expected=expected)  # noqa: E731
    elif kind == "retire":
        _, n, by, why, into, _ = op
        m = lambda: model.retire(n, by, why, into, now)  # noqa: E731
        s = lambda: services.retire(notebook="zelda", n=n, by=by, why=why, into=into)  # noqa: E731
    else:
        _, merged, text, by, why, _ = op
        m = lambda: model.merge(merged, text, by, why, now)  # noqa: E731
        s = lambda: services.merge(notebook="zelda", numbers=merged, text=text, by=by, why=why)  # noqa: E731
    refusals = []
    for write in (m, s):
        try:
            write()
            refusals.append(None)
        except NotebookError as exc:
            refusals.append(type(exc))
    return refusals[0], refusals[1]


def _db_view(nb, until: float | None = None) -> dict[int, dict[str, Any]]:  # noqa: ANN001
    return {
        x.n: {"text": x.text, "source": x.source, "by": x.by, "at": x.at, "seq": x.seq}
        for x in selectors.view(nb, until=until)
    }


def _db_history(nb, n: int) -> list[tuple] | None:  # noqa: ANN001
    try:
        entries = selectors.history(nb, n)
    except NotFound:
        return None
    return [
        (e.seq, e.op, e.text, e.source, e.by, e.at, e.why, e.how, e.into, e.adopted, e.was_at, e.was_by, e.from_n)
        for e in entries
    ]


@pytest.mark.django_db
@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],  # the explain phase takes minutes here
)
@given(
    start=hand_rewrites(),
    # A few adds first, so that the edits, retirements and merges after them find lines.
    ops=st.tuples(st.lists(adds, min_size=2, max_size=6), st.lists(operations, min_size=2, max_size=20)).map(
        lambda t: t[0] + t[1]
    ),
)
def test_the_services_agree_with_the_seeds_fold(dad, monkeypatch, start, ops):
    clock = SimpleNamespace(now=1000.0)
    monkeypatch.setattr(append, "time", SimpleNamespace(time=lambda: clock.now))
    model = Model()
    with transaction.atomic():
        if start and (start[0] or start[1]):
            rewrite, backup = start
            imports.import_notebook(
                title="zelda",
                lines=[json.dumps(r) for r in rewrite],
                by="dad",
                adopt_from=[json.dumps(r) for r in backup],
            )
            model.import_rewrite(rewrite, backup, by="dad", now=clock.now)
        else:
            services.create_notebook(title="zelda", by="dad")
        for op in ops:
            clock.now += op[-1]
            expected, got = _apply(op, model, clock.now)
            assert got == expected, (op, got, expected)
            event(f"{op[0]} {got.__name__ if got else 'written'}")

        nb = selectors.get_notebook("zelda")
        assert _db_view(nb) == model.view()
        times = sorted({r["at"] for r in model.rows})
        for cut in [times[0] - 1 if times else 0.0, *times]:
            assert _db_view(nb, until=cut) == model.view(until=cut), cut
        assert [r["at"] for r in model.rows] == sorted(r["at"] for r in model.rows)
        for n in range(1, model.top() + 2):
            assert _db_history(nb, n) == (model.history(n) or None), n
        assert verify_chain(nb) == []
        transaction.set_rollback(True)
