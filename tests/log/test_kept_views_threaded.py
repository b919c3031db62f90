"""The kept live view under threads: while one thread writes, every read another thread makes is the log's view at
the head that read reports, recomputed here from the rows by a fold of the test's own."""

import random
import re
import threading
from collections.abc import Iterator

import pytest
from django.db import connection, connections

from notebooks.log import services
from notebooks.log.views import selectors

WRITES = 100
READERS = 3
TITLE = "threads"
HEAD_IN_TURN = re.compile(r"\(seq (\d+), head ([0-9a-f]{16})\)")


@pytest.fixture
def shared_db(django_db_blocker, scratch_db) -> Iterator[None]:  # noqa: ANN001
    """A scratch database (migrated, with the editor dad) made the default one for the test, in every thread.
    Not the test database: on SQLite that is in memory with a shared cache, whose table locks fail a reader at once
    instead of waiting, and a transactional test's flush at the end is refused by the log's triggers."""
    scratch = scratch_db()
    kept_settings = connections.settings["default"]
    kept_connection = connections["default"]  # left open: closing it would drop SQLite's in-memory test database
    name = str(scratch.path) if scratch.vendor == "sqlite" else scratch.name
    connections.settings["default"] = {**kept_settings, "NAME": name, "TEST": {"NAME": None}}
    connections["default"] = connections.create_connection("default")
    try:
        with django_db_blocker.unblock():
            yield
    finally:
        connections["default"].close()
        connections.settings["default"] = kept_settings
        connections["default"] = kept_connection


def reference_view(notebook, seq: int) -> list[tuple[int, str, str]]:  # noqa: ANN001
    """(n, text, source) of each live line after row `seq`, in number order, folded from the log's rows."""
    lines: dict[int, tuple[str, str]] = {}
    for row in selectors.rows(notebook, upto=seq):
        if row["op"] == "add":
            lines[row["n"]] = (row["text"], row["source"])
        elif row["op"] == "edit" and row["n"] in lines:
            lines[row["n"]] = (row["to"], row["source"])
        elif row["op"] == "strike":
            lines.pop(row["n"], None)
        # adopt and redact rows change no live line's words here
    return [(n, text, source) for n, (text, source) in sorted(lines.items())]


def reference_turn_lines(notebook, seq: int) -> list[str]:  # noqa: ANN001
    rank = {source: i for i, source in enumerate(selectors.TURN_ORDER)}
    live = sorted(reference_view(notebook, seq), key=lambda line: (rank.get(line[2], len(rank)), line[0]))
    return [f"[#{n} {source}] {text}" for n, text, source in live]


def seen(lines) -> list[tuple[int, str, str]]:  # noqa: ANN001
    return [(line.n, line.text, line.source) for line in lines]


def write(stop: threading.Event, errors: list[str]) -> None:
    rng = random.Random(7)
    live: list[int] = []
    try:
        for k in range(WRITES):
            roll = rng.random()
            if len(live) < 3 or roll < 0.5:
                source = rng.choice(["seen", "guessed"])
                live.append(services.add(notebook=TITLE, text=f"line {k}", source=source, by="pippa", why="seen").n)
            elif roll < 0.8:
                services.edit(notebook=TITLE, n=rng.choice(live), to=f"edit {k}", by="dad", why="clearer")
            else:
                n = live.pop(rng.randrange(len(live)))
                services.retire(notebook=TITLE, n=n, by="dad", why="wrong")
    except Exception as exc:  # noqa: BLE001 - reported by the main thread's assertion
        errors.append(f"writer: {exc!r}")
    finally:
        stop.set()
        connection.close()  # each thread's own connection


def read(notebook, stop: threading.Event, errors: list[str], heads: set[int], which: int) -> None:  # noqa: ANN001
    try:
        while not stop.is_set():
            if which == 0:
                pinned = selectors.pinned_view(notebook)
                heads.add(pinned.seq)
                if seen(pinned.lines) != reference_view(notebook, pinned.seq):
                    errors.append(f"pinned at seq {pinned.seq} differs from the log's view there")
                if pinned.seq and pinned.hash != selectors.row_hash(notebook, pinned.seq):
                    errors.append(f"pinned at seq {pinned.seq} names hash {pinned.hash}, not that row's")
            elif which == 1:
                # view names no head: it must be the log's view at some seq between the heads around the read
                before = selectors.head(notebook).seq
                got = seen(selectors.view(notebook))
                after = selectors.head(notebook).seq
                heads.add(after)
                if all(got != reference_view(notebook, seq) for seq in range(before, after + 1)):
                    errors.append(f"view read between seq {before} and {after} is the log's view at none of them")
            else:
                text = selectors.turn(notebook)
                seq_text, hash_prefix = HEAD_IN_TURN.search(text).groups()
                seq = int(seq_text)
                heads.add(seq)
                body = text.splitlines()[1:-1]  # between the header and the closing reminder
                if body != reference_turn_lines(notebook, seq):
                    errors.append(f"turn at seq {seq} differs from the log's view there")
                if seq and not selectors.row_hash(notebook, seq).startswith(hash_prefix):
                    errors.append(f"turn at seq {seq} names head {hash_prefix}, not that row's")
    except Exception as exc:  # noqa: BLE001 - reported by the main thread's assertion
        errors.append(f"reader {which}: {exc!r}")
    finally:
        connection.close()


def test_every_read_during_writes_is_the_logs_view_at_the_head_it_reports(shared_db):
    notebook = services.create_notebook(title=TITLE, by="test")
    selectors.view(notebook)  # a kept fold exists before the writes start, so they are folded into it
    stop = threading.Event()
    errors: list[str] = []
    heads: list[set[int]] = [set() for _ in range(READERS)]
    threads = [threading.Thread(target=write, args=(stop, errors))]
    threads += [threading.Thread(target=read, args=(notebook, stop, errors, heads[i], i)) for i in range(READERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a thread did not finish within 120 s"
    assert not errors, "\n".join(errors[:20])
    # The reads overlapped the writes: each kind saw the head at more than one place.
    assert all(len(kind) > 1 for kind in heads), heads
    final = selectors.pinned_view(notebook)
    assert final.seq == WRITES and seen(final.lines) == reference_view(notebook, WRITES)
