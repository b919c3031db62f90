"""One database's measurements, run in its own process by `python -m bench` (bench/__main__.py), which
gives it DATABASE_URL and reads back the JSON it writes. Every figure is wall time in seconds."""

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test import Client  # noqa: E402

from bench import data, floor, web  # noqa: E402
from bench.peer import build  # noqa: E402
from bench.peer.models import PeerLine  # noqa: E402
from notebooks.log import services  # noqa: E402
from notebooks.log.files import imports, verify  # noqa: E402
from notebooks.log.identity.roles import Actor  # noqa: E402
from notebooks.log.views import kept, selectors  # noqa: E402
from notebooks.models import Notebook, Row, Words  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def say(*parts: Any) -> None:
    print(f"[{connection.vendor}]", *parts, file=sys.stderr, flush=True)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


FIRST_READS = {"cold", "frozen_mid"}  # cases that drop the kept folds themselves; every other is timed warm
SINGLE_CALLS = 41  # reads timed one call each (right after a write): many, for a steady median of a ~0.1 ms read
BATCH = 0.05  # seconds: a round repeats a fast case for at least this long and takes the mean


def batched(fn: Callable[[], Any]) -> float:
    """Seconds per call: one call, or the mean of as many as fill BATCH (a single call of a fast case is
    mostly the scheduler's noise on a shared machine)."""
    first = timed(fn)[0]
    if first >= BATCH:
        return first
    calls, spent = 0, 0.0
    while spent < BATCH:
        spent += timed(fn)[0]
        calls += 1
    return spent / calls


def interleaved(cases: dict[str, Callable[[], Any]], reps: int, slow: dict[str, int] | None = None) -> dict:
    """Median seconds of each case over `reps` rounds; each round runs every case (batched), in a rotated
    order, so that a burst of load from elsewhere on the machine falls on all of them alike."""
    slow = slow or {}
    times: dict[str, list[float]] = {name: [] for name in cases}
    names = list(cases)
    for rep in range(reps):
        order = names[rep % len(names) :] + names[: rep % len(names)]
        for name in order:
            if rep >= slow.get(name, reps):
                continue
            if name not in FIRST_READS:
                cases[name]()  # a read again is timed again: warm it, since a first read before it dropped the folds
            gc.collect()
            times[name].append(batched(cases[name]))
    return {name: {"median": statistics.median(ts), "runs": ts} for name, ts in times.items()}


# ----- the ways of reading a notebook, side by side --------------------------------------------------------


def floor_live_table(title: str) -> Callable[[], list]:
    """What simple-history's users read for the current state: a plain table of exactly the live lines."""

    def read() -> list:
        with connection.cursor() as cursor:
            cursor.execute('SELECT n, text, source, "by" FROM peer_peerline WHERE notebook = %s ORDER BY n', [title])
            return cursor.fetchall()

    return read


def floor_every_row(nb: Notebook) -> Callable[[], list]:
    """One bare SQL query reading every row of the log."""
    columns = 'seq, op, n, digest, source, "by", why, how, "into", at, was_at, was_by, prev_hash, hash'

    def read() -> list:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {columns} FROM notebooks_row WHERE notebook_id = %s ORDER BY seq", [nb.pk])
            return cursor.fetchall()

    return read


def naive_fold(nb: Notebook) -> Callable[[], dict]:
    """The naive way: an ORM loop over Row objects, folded in Python."""

    def read() -> dict:
        words = dict(Words.objects.filter(notebook=nb).values_list("digest", "body"))
        lines: dict[int, tuple] = {}
        for row in Row.objects.filter(notebook=nb).order_by("seq"):
            if row.op in ("add", "edit") and (row.op == "add" or row.n in lines):
                lines[row.n] = (words.get(row.digest), row.source, row.by, row.at, row.seq)
            elif row.op == "strike":
                lines.pop(row.n, None)
        return dict(sorted(lines.items()))

    return read


def peer_as_of(title: str, at: float) -> Callable[[], list]:
    def read() -> list:
        return list(PeerLine.history.as_of(build.when(at)).filter(notebook=title))

    return read


def cold_view(nb: Notebook) -> Callable[[], list]:
    def read() -> list:
        kept.forget()
        return selectors.view(nb)

    return read


def first_frozen(nb: Notebook, until: float) -> Callable[[], list]:
    """A frozen view read for the first time (past views are kept once read)."""

    def read() -> list:
        kept.forget()
        return selectors.view(nb, until=until)

    return read


def peak_memory(fn: Callable[[], Any]) -> int:
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    result = fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del result
    return peak


def lines_of(view: list) -> dict[int, tuple[str, str]]:
    return {line.n: (line.text, line.source) for line in view}


def check(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"[{connection.vendor}] the benchmark's own check failed: {what}")


# ----- one size ---------------------------------------------------------------------------------------------


def load(size: int, index: int) -> dict[str, Any]:
    title = f"bench-{size}"
    rows = list(data.rows(size, seed=size))
    text = [json.dumps(r, separators=(",", ":")) for r in rows]
    say(f"{size:,} rows: importing")
    import_s, imported = timed(lambda: imports.import_notebook(title=title, lines=text, by="bench"))
    inserts_s = timed(lambda: bare_inserts(size, text))[0]  # right after it: the floor its target is a ratio to
    nb = imported.notebook
    if size <= 1000:
        build.through_the_model(title, rows)
        # The bulk writer must write exactly what simple-history writes: compare on this small notebook.
        build.in_bulk(f"{title}-bulk", rows, first_id=9_000_000_000)
        check(build.records(title) == build.records(f"{title}-bulk"), "the bulk peer writes what the model writes")
        peer_how = "through the model"
    else:
        build.in_bulk(title, rows, first_id=(index + 1) * 1_000_000_000)
        peer_how = "in bulk (the records the model writes)"
    analyze()
    return {"title": title, "rows": rows, "text": text, "nb": nb, "import_s": import_s, "inserts_s": inserts_s,
            "peer_how": peer_how}  # fmt: skip


def bare_inserts(size: int, text: list[str]) -> None:
    """The floor for an import: the same lines as rows of a scratch table (number, JSON text), one transaction."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE bench_import_{size} (n integer PRIMARY KEY, body text)")
        cursor.executemany(f"INSERT INTO bench_import_{size} (n, body) VALUES (%s, %s)", list(enumerate(text)))


def analyze() -> None:
    """PostgreSQL's autovacuum would do this after a big load; done now so plans don't depend on its timing."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")


def after_other_write(nb: Notebook, title: str, times: int) -> tuple[list[float], list[float]]:
    """The live view read right after a row added by another process (another worker), and read again."""
    worker = subprocess.Popen(
        [sys.executable, "-m", "bench.writer", "--one-at-a-time", title],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    after, again = [], []
    try:
        for _ in range(times):
            selectors.view(nb)
            worker.stdin.write("add\n")
            worker.stdin.flush()
            check(worker.stdout.readline() == "ok\n", "the other worker added its line")
            after.append(timed(lambda: selectors.view(nb))[0])
            again.append(timed(lambda: selectors.view(nb))[0])
    finally:
        worker.stdin.close()
        worker.wait()
    return after, again


def measure_size(size: int, index: int, reps: int) -> dict[str, Any]:
    got = load(size, index)
    title, rows, nb = got["title"], got["rows"], got["nb"]
    mid = len(rows) // 2
    mid_at = rows[mid - 1]["at"]
    live = data.fold(rows)
    # Every way must read the same notebook: ours, the naive fold, and the peer, now and at mid-log.
    check(lines_of(selectors.view(nb)) == live, "the live view is the fold of the rows")
    check(lines_of(selectors.view(nb, until=mid_at)) == data.fold(rows[:mid]), "the frozen view is the fold")
    check({n: (t, s) for n, t, s, _ in floor_live_table(title)()} == live, "the peer's table holds the live lines")
    check({x.n: (x.text, x.source) for x in peer_as_of(title, mid_at)()} == data.fold(rows[:mid]), "peer as_of")
    check({n: v[:2] for n, v in naive_fold(nb)().items()} == live, "the naive fold")

    per_line = Counter(r["n"] for r in rows)
    busy = max(live, key=lambda n: (per_line[n], -n))  # the live line with the longest history
    say(f"{size:,} rows: reading ({len(live):,} live lines)")
    selectors.view(nb)  # warm the fold
    cases = {
        "floor_live_table": floor_live_table(title),
        "floor_every_row": floor_every_row(nb),
        "warm": lambda: selectors.view(nb),
        "cold": cold_view(nb),
        "frozen_mid": first_frozen(nb, mid_at),
        "frozen_mid_kept": lambda: selectors.view(nb, until=mid_at),
        "peer_as_of_mid": peer_as_of(title, mid_at),
        "peer_as_of_now": peer_as_of(title, rows[-1]["at"]),
        "peer_orm_live": lambda: list(PeerLine.objects.filter(notebook=title).order_by("n")),
        "naive": naive_fold(nb),
        "history": lambda: selectors.history(nb, busy),
        "peer_history": lambda: list(PeerLine.history.filter(notebook=title, n=busy).order_by("history_date")),
        "turn": lambda: selectors.turn(nb),
    }
    slow = {"naive": 3, "peer_as_of_now": 3, "peer_as_of_mid": max(3, reps)} if size >= 100_000 else None
    result = interleaved(cases, reps, slow)

    # The read right after one new row (the add itself not timed), and beside it the same read once more, timed
    # the same way: one call each, so both carry the same timer and cache effects (a batched mean carries neither).
    after, again = [], []
    for i in range(SINGLE_CALLS):
        selectors.view(nb)
        services.add(notebook=title, text=f"one more line {i}", source="seen", by="pippa", why="bench")
        after.append(timed(lambda: selectors.view(nb))[0])
        again.append(timed(lambda: selectors.view(nb))[0])
    result["after_one"] = {"median": statistics.median(after), "runs": after}
    result["warm_again"] = {"median": statistics.median(again), "runs": again}
    # The same, the row added by another process (another worker): this process's kept view has not seen it,
    # and SQLite drops this connection's page cache when another connection commits.
    after, again = after_other_write(nb, title, SINGLE_CALLS)
    result["after_other"] = {"median": statistics.median(after), "runs": after}
    result["other_again"] = {"median": statistics.median(again), "runs": again}

    say(f"{size:,} rows: export and memory")
    out = ROOT / "var" / "bench" / f"export-{connection.vendor}-{size}.jsonl"

    def export() -> None:
        with out.open("w") as f:
            for line in selectors.export(nb):
                f.write(line + "\n")

    result["export"] = {"median": timed(export)[0]}
    out.unlink()
    memory = {"cold_view": peak_memory(cold_view(nb)), "warm_view": peak_memory(lambda: selectors.view(nb))}
    if size >= 100_000 or size == max_size:
        memory["naive"] = peak_memory(naive_fold(nb))
        memory["compact_cold_view"], memory["compact_live"] = compact_memory(nb, size)
    return {
        "rows": len(rows),
        "live": len(live),
        "ops": {
            op: sum(1 for r in rows if (r.get("how") or r["op"]) == op) for op in ("add", "edit", "retired", "merged")
        },
        "import_s": got["import_s"],
        "inserts_s": got["inserts_s"],
        "peer_built": got["peer_how"],
        "history_rows": per_line[busy],
        "times": result,
        "memory": memory,
    }


def compact_memory(nb: Notebook, size: int) -> tuple[int, int]:
    """A notebook holding only the big one's live lines (one add each): the view's memory should match."""
    lines = selectors.view(nb)
    text = [
        json.dumps({"op": "add", "n": i, "text": x.text, "source": x.source, "by": x.by, "at": data.START + i})
        for i, x in enumerate(lines, start=1)
    ]
    compact = imports.import_notebook(title=f"compact-{size}", lines=text, by="bench").notebook
    analyze()
    peak_memory(cold_view(compact))  # the first read warms the database's own caches
    return peak_memory(cold_view(compact)), len(lines)


# ----- writes -----------------------------------------------------------------------------------------------


ROUNDS = 10  # the one writer and the bare commits take turns, so that load from elsewhere falls on both alike


def one_writer(count: int) -> dict[str, Any]:
    services.create_notebook(title="writes-1", by="bench")
    say(f"one writer: {count} adds, each its own transaction, in {ROUNDS} turns with as many bare commits")
    agent = Actor("pippa")  # resolved once, as a request's or a session's actor is
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE bench_commit (id integer PRIMARY KEY, body text)")
    step = max(1, count // ROUNDS)
    numbers: list[int] = []
    adds, commits = [], []

    def write(start: int) -> None:
        for i in range(start, start + step):
            numbers.append(
                services.add(notebook="writes-1", text=f"line {i} roll after the second swing", source="seen",
                             by=agent, why="bench").n
            )  # fmt: skip

    for start in range(0, step * ROUNDS, step):
        adds.append(timed(lambda start=start: write(start))[0])
        commits.append(timed(lambda start=start: bare_commits(start, step))[0])
    check(numbers == list(range(1, step * ROUNDS + 1)), "one writer's numbers")
    rows = step * ROUNDS
    return {
        "rows": rows,
        "seconds": sum(adds),
        "rows_per_s": rows / sum(adds),
        "commits_per_s": rows / sum(commits),
        # Each turn's adds/s over the bare commits/s of the turn right after it: the machine drifts between turns.
        "turns": ROUNDS,
        "paired_ratio": statistics.median(c / a for a, c in zip(adds, commits, strict=True)),
    }


def bare_commits(start: int, count: int) -> None:
    """The floor for writes: durable one-row INSERTs into a scratch table, each its own transaction, same settings."""
    for i in range(start, start + count):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("INSERT INTO bench_commit (id, body) VALUES (%s, %s)", [i, "roll after the second swing"])


def scaling(count: int, rounds: int = 6) -> dict[str, Any]:
    """4 writer processes on 4 notebooks against one writer process, by turns (short ones, in alternating order, so
    that a burst of load from elsewhere falls on both alike): each turn's ratio, then the median."""
    one, four, ratios, spent = [], [], [], {"alone": [], "apart": []}
    for r in range(rounds):
        runs = {}
        for who in ("alone", "apart") if r % 2 == 0 else ("apart", "alone"):
            titles = [f"alone-{r}"] if who == "alone" else [f"apart-{r}-{i}" for i in range(4)]
            runs[who] = four_writers(count, titles=titles)
            check(not runs[who]["lost_or_doubled"], "every number given once")
            check(runs[who]["chain_problems"] == 0, "every chain verifies")
            if runs[who]["server_cpu_per_add"] is not None and runs[who]["machine_busy"] is not None:
                spent[who].append(
                    (runs[who]["cpu_per_add"] + runs[who]["server_cpu_per_add"], runs[who]["machine_busy"])
                )
        one.append(runs["alone"]["rows_per_s"])
        four.append(runs["apart"]["rows_per_s"])
        ratios.append(four[-1] / one[-1])
    # Why the ratio is what it is: an add's CPU (writer and backend) and how busy the cores were, alone and four.
    cpu = {
        who: (statistics.median(c for c, _ in v), statistics.median(b for _, b in v)) for who, v in spent.items() if v
    }
    return {"rows": 4 * count, "one_rows_per_s": one, "four_rows_per_s": four, "ratios": ratios,
            "ratio": statistics.median(ratios), "cpu": cpu}  # fmt: skip


def _cpu_ticks() -> tuple[int, int]:
    """All of the machine's CPU time so far, and the idle part of it (/proc/stat; zeros where there is none)."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except OSError:
        return (0, 0)
    return sum(fields), fields[3] + fields[4]


def four_writers(count: int, titles: list[str] | None = None) -> dict[str, Any]:
    """Writer processes, `count` adds each, one per title (default: 4 on one notebook)."""
    titles = titles or ["writes-4"] * 4
    for title in sorted(set(titles)):
        services.create_notebook(title=title, by="bench")
    say(f"{len(titles)} writer process(es): {count} adds each, on {len(set(titles))} notebook(s)")
    start_at = time.time() + 4.0  # every process is set up before any writes
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "bench.writer", title, str(count), str(start_at), f"w{i}"],
            stdout=subprocess.PIPE,
            cwd=ROOT,
            env=os.environ,
        )
        for i, title in enumerate(titles)
    ]
    time.sleep(max(0.0, start_at - time.time()))
    before = _cpu_ticks()
    reports = [json.loads(p.communicate()[0]) for p in procs]
    after = _cpu_ticks()
    check(all(p.returncode == 0 for p in procs), "every writer exited cleanly")
    lost_or_doubled, chain_problems = False, 0
    for title in sorted(set(titles)):
        mine = [r for r, t in zip(reports, titles, strict=True) if t == title]
        total = count * len(mine)
        numbers = [n for r in mine for n in r["numbers"]]
        nb = Notebook.objects.get(title=title)
        in_log = sorted(Row.objects.filter(notebook=nb, op="add").values_list("n", flat=True))
        lost_or_doubled |= sorted(numbers) != list(range(1, total + 1)) or in_log != list(range(1, total + 1))
        chain_problems += len(verify.verify_chain(nb))
    seconds = max(r["end"] for r in reports) - min(r["start"] for r in reports)
    server = [r["server_cpu"] for r in reports]
    total, idle = after[0] - before[0], after[1] - before[1]
    return {
        "machine_busy": 1 - idle / total if total else None,  # of every core, writers, backends and all else
        # CPU an add costs the writer process and its database backend (None where not read)
        "cpu_per_add": sum(r["cpu"] for r in reports) / (len(titles) * count),
        "server_cpu_per_add": None if None in server else sum(server) / (len(titles) * count),
        "rows": len(titles) * count,
        "seconds": seconds,
        "rows_per_s": len(titles) * count / seconds,
        "retries": sum(r["retries"] for r in reports),
        "lost_or_doubled": lost_or_doubled,
        "chain_problems": chain_problems,
    }


# ----- the card and the API (built by other branches; measured where they exist) ----------------------------


def web_pages(reps: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    api_rows = data.with_live(200, seed=200)
    imports.import_notebook(title="api-200", lines=[json.dumps(r) for r in api_rows], by="bench")
    card_rows = data.with_live(1000, seed=1000)
    imports.import_notebook(title="card-1000", lines=[json.dumps(r) for r in card_rows], by="bench")
    nb200 = Notebook.objects.get(title="api-200")
    selectors.turn(nb200)
    out["turn_200"] = interleaved({"t": lambda: selectors.turn(nb200)}, max(reps, 20))["t"]
    nb1000 = Notebook.objects.get(title="card-1000")
    floor.ANSWER["lines"] = [{"n": n, "text": t, "source": s} for n, (t, s) in sorted(data.fold(card_rows).items())]
    for name, title, fn, floor_name in (("api_turn_200", "api-200", web.api_turn, "bench-floor-json"),
                                        ("card_1000", "card-1000", web.card_page, "bench-floor-page")):  # fmt: skip
        client = Client()
        request = fn(client, title)
        if isinstance(request, str):
            out[name] = {"missing": request}
            continue
        floor.ANSWER["json"] = request().content  # a first request warms the fold and Django's template loader
        floor_request = web.floor(client, floor_name)
        floor_request()
        # Side by side, turn by turn: the ratio is what the target reads, since the machine drifts between runs.
        got = interleaved({"t": request, "floor": floor_request}, max(reps, 20))
        out[name] = {**got["t"], "floor": got["floor"]["median"], "floor_runs": got["floor"]["runs"]}
    check(len(floor.ANSWER["lines"]) == len(selectors.view(nb1000)), "the card's floor lists as many lines")
    return out


def environment() -> dict[str, Any]:
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT sqlite_version()")
            version = f"SQLite {cursor.fetchone()[0]}"
            cursor.execute("PRAGMA synchronous")
            sync = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[cursor.fetchone()[0]]
            cursor.execute("PRAGMA journal_mode")
            durability = f"journal_mode={cursor.fetchone()[0].upper()}, synchronous={sync}"
        else:
            cursor.execute("SHOW server_version")
            version = f"PostgreSQL {cursor.fetchone()[0]}"
            cursor.execute("SHOW synchronous_commit")
            sync = cursor.fetchone()[0]
            cursor.execute("SHOW fsync")
            durability = f"synchronous_commit={sync}, fsync={cursor.fetchone()[0]}"
    return {
        "vendor": connection.vendor,
        "version": version,
        "durability": durability,
        "python": platform.python_version(),
    }


max_size = 0


def main() -> None:
    global max_size
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument("--out", required=True)
    parser.add_argument("--writes-only", action="store_true", help="only the writers and their floor")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    max_size = max(sizes)
    call_command("migrate", verbosity=0)
    result: dict[str, Any] = {"env": environment(), "load_before": os.getloadavg(), "sizes": {}}
    if not args.writes_only:
        for index, size in enumerate(sizes):
            result["sizes"][size] = measure_size(size, index, args.reps)
        result["web"] = web_pages(args.reps)
    result["one_writer"] = one_writer(args.writes)
    result["four_writers"] = four_writers(max(50, args.writes // 4))
    result["scaling"] = scaling(max(100, args.writes // 4))
    result["load_after"] = os.getloadavg()
    Path(args.out).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
