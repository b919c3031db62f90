"""Realistic notebooks made up fast: JSON Lines rows in the seed's format, about half adds, a fifth edits,
the rest retirements and merges, so that about 15% of the rows' lines are still live (15k of 100k)."""

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

START = 1_790_000_000  # epoch seconds; whole seconds so simple-history's datetimes hold them exactly

WORDS = (
    "guard swings twice roll after second block first then attack his swing bridge key door chest left right "
    "lever torch water fire ice boss phase three hearts shield sword bow arrow bomb wall crack switch timer "
    "enemy patrol pattern wait stand still jump dash climb ledge spikes pit fall damage potion red blue green "
    "shop rupees save point checkpoint map compass dungeon floor basement stairs north south east west tower "
    "moblin keese octorok stalfos darknut wizzrobe lynel bokoblin chuchu lizalfos temple forest desert lake "
    "always never only when before after while until unless because so the a an of in on at to from with"
).split()
WHY = (
    "died twice there",
    "it said the opposite of line above",
    "the boss changed pattern in phase two",
    "not about the game",
    "clearer words",
    "they said one thing",
    "tested it three times",
    "wrong room",
)
AGENTS = ("pippa", "reflector")


@dataclass
class Mix:
    """Relative weights of the operations; a merge writes one add and strikes two or three lines into it."""

    add: float = 0.44
    edit: float = 0.22
    retire: float = 0.22
    merge: float = 0.04


@dataclass
class _Live:
    """The live lines, with O(1) random pick and removal."""

    numbers: list[int] = field(default_factory=list)
    where: dict[int, int] = field(default_factory=dict)
    source: dict[int, str] = field(default_factory=dict)

    def put(self, n: int, source: str) -> None:
        self.where[n] = len(self.numbers)
        self.numbers.append(n)
        self.source[n] = source

    def drop(self, n: int) -> None:
        i = self.where.pop(n)
        last = self.numbers.pop()
        if last != n:
            self.numbers[i] = last
            self.where[last] = i
        del self.source[n]

    def __len__(self) -> int:
        return len(self.numbers)


def rows(count: int, *, seed: int = 6, mix: Mix | None = None) -> Iterator[dict[str, Any]]:
    """`count` rows (a merge's rows are never split, so it may end one to three rows over)."""
    mix = mix or Mix()
    rng = random.Random(seed)
    live = _Live()
    top = 0
    at = START
    made = 0
    ops = ("add", "edit", "retire", "merge")
    weights = (mix.add, mix.edit, mix.retire, mix.merge)

    def words() -> str:
        return " ".join(rng.choices(WORDS, k=rng.randint(8, 24)))

    def tick() -> int:
        nonlocal at
        at += rng.randint(1, 900)
        return at

    while made < count:
        op = rng.choices(ops, weights)[0]
        if op != "add" and len(live) < 8:
            op = "add"
        if op == "add":
            top += 1
            source = rng.choices(("seen", "guessed", "dad"), (6, 3, 1))[0]
            by = "dad" if source == "dad" else rng.choice(AGENTS)
            live.put(top, source)
            yield {"op": "add", "n": top, "text": f"{words()} ({top})", "source": source, "by": by,
                   "why": rng.choice(WHY), "at": tick()}  # fmt: skip
            made += 1
        elif op == "edit":
            n = rng.choice(live.numbers)
            mine = live.source[n] in ("seen", "guessed")
            by = rng.choice(AGENTS) if mine and rng.random() < 0.7 else "dad"
            source = live.source[n] if by != "dad" else "dad_correction"
            live.source[n] = source
            yield {"op": "edit", "n": n, "to": f"{words()} ({n}, seq {made + 1})", "source": source, "by": by,
                   "why": rng.choice(WHY), "at": tick()}  # fmt: skip
            made += 1
        elif op == "retire":
            n = rng.choice(live.numbers)
            live.drop(n)
            by = "dad" if rng.random() < 0.5 else rng.choice(AGENTS)
            yield {"op": "strike", "n": n, "how": "retired", "into": None, "by": by, "why": rng.choice(WHY),
                   "at": tick()}  # fmt: skip
            made += 1
        else:
            old = rng.sample(live.numbers, rng.randint(2, 3))
            top += 1
            why = "they said one thing"
            sources = {live.source[n] for n in old}
            source = "seen" if "seen" in sources else ("guessed" if sources <= {"guessed"} else "dad_correction")
            by = "dad" if source == "dad_correction" else rng.choice(AGENTS)
            live.put(top, source)
            yield {"op": "add", "n": top, "text": f"{words()} ({top}, merged)", "source": source, "by": by,
                   "why": why, "at": tick()}  # fmt: skip
            made += 1
            for n in old:
                live.drop(n)
                yield {"op": "strike", "n": n, "how": "merged", "into": top, "by": by, "why": why, "at": tick()}
                made += 1


def jsonl(count: int, *, seed: int = 6) -> list[str]:
    return [json.dumps(row, separators=(",", ":")) for row in rows(count, seed=seed)]


def fold(rows_: list[dict[str, Any]]) -> dict[int, tuple[str, str]]:
    """The live lines the rows leave, n -> (words, source): the reference every benchmarked read must match."""
    lines: dict[int, tuple[str, str]] = {}
    for row in rows_:
        if row["op"] == "add":
            lines[row["n"]] = (row["text"], row["source"])
        elif row["op"] == "edit":
            lines[row["n"]] = (row["to"], row["source"])
        elif row["op"] == "strike":
            del lines[row["n"]]
    return lines


def with_live(live: int, *, seed: int = 6) -> list[dict[str, Any]]:
    """A realistic notebook with exactly `live` live lines: generated rows, then topped up with adds
    or trimmed with retirements."""
    rows_ = list(rows(max(10, int(live / 0.157)), seed=seed))
    lines = fold(rows_)
    at = rows_[-1]["at"]
    top = max(r["n"] for r in rows_)
    rng = random.Random(seed)
    for n in rng.sample(sorted(lines), max(0, len(lines) - live)):
        at += 60
        rows_.append({"op": "strike", "n": n, "how": "retired", "into": None, "by": "dad", "why": "trim", "at": at})
    for _ in range(live - len(lines)):
        at += 60
        top += 1
        rows_.append({"op": "add", "n": top, "text": f"topped up line {top}", "source": "seen", "by": "pippa",
                      "why": "bench", "at": at})  # fmt: skip
    return rows_
