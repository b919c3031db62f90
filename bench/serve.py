"""`make bench-serve`: the app under load through the web server `make serve` runs, on PostgreSQL and SQLite, one
instance and two.

For each database: a fresh one is migrated and seeded (bench/serve_seed.py), the server is started as `make serve`
starts it (notebook_site/web_servers.py), and the load (bench/serve_load.py, locust) runs for --seconds: 16 agents
reading their notebooks' turn (and every fifth request the lines), 4 agents adding lines, Dad loading a 1,000-line card.
Then the same with the workers split over two instances, and with 1, 4, 16 and 64 readers for the curve. Prints every
target with PASS or FAIL; writes SERVE.md and serve-latency.png (bench/ by default, var/bench/ with --quick).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

from bench import scratch, serve_floor, serve_report
from tests.web_instances import Instance, collectstatic, start_instance

ROOT = Path(__file__).resolve().parent.parent
READERS, WRITERS, AGENT_LINES, CARD_LINES = 16, 4, 200, 1000
# The servers `--compare` puts side by side, each with about the same concurrency for 2 cores; the first is the one
# `make serve` runs, chosen by that comparison (SERVE.md).
SERVERS = ("granian", "gunicorn-gthread", "gunicorn-sync")
KINDS = (*SERVERS, "granian-4x4")  # granian-4x4: gthread's processes and threads, to compare the shapes
# --compare's points: readers, then c for conditional reads and f for the server's floor.
POINTS = "4,16,64,16c,16f,16cf"


APP, FLOOR = "notebook_site.wsgi:application", "bench.serve_floor:application"


def start_server(kind: str, env: dict[str, str], log: Path, *, workers: int, threads: int, app: str = APP) -> Instance:
    """One instance of `app` through `kind`: gunicorn with gunicorn.conf.py (gthread, or sync with one process per
    request: 2 x cores + 1, gunicorn's own advice), or granian's WSGI interface (a process per core, as many threads
    in all), each as `make serve` starts it (notebook_site/web_servers.py)."""
    cores = os.cpu_count() or 1
    if kind == "gunicorn-gthread":
        return start_instance(env, log, workers=workers, threads=threads, app=app, WEB_SERVER="gunicorn")
    if kind == "gunicorn-sync":
        sync = {"WEB_SERVER": "gunicorn", "WEB_WORKER_CLASS": "sync"}
        return start_instance(env, log, workers=2 * cores + 1, threads=1, app=app, **sync)
    if kind == "granian-4x4":
        return start_instance(env, log, workers=workers, threads=threads, app=app, WEB_SERVER="granian")
    if kind != "granian":
        raise SystemExit(f"unknown server {kind!r}: one of {', '.join(KINDS)}")
    # make serve's shape (web_servers.py): a process a core, as many threads in all as the others have
    return start_instance(env, log, workers=cores, threads=workers * threads // cores, app=app, WEB_SERVER="granian")


def cpu_seconds(pid: int) -> float:
    """CPU time of a process and its children (the server's main process and workers), from /proc."""
    import psutil

    try:
        procs = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
        return sum(p.cpu_times().user + p.cpu_times().system for p in procs)
    except psutil.Error:
        return 0.0


class Run:
    def __init__(self, vendor: str, args: argparse.Namespace, work: Path) -> None:
        self.vendor, self.args, self.work = vendor, args, work
        self.database = ExitStack()
        name = "serve" if vendor == "sqlite" else f"bench_serve_{os.getpid()}"
        url = self.database.enter_context(scratch.fresh_database(vendor, name, work))
        self.env = {
            **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "PYTEST_ADDOPTS")},
            "DATABASE_URL": url,
            "DJANGO_SETTINGS_MODULE": "notebook_site.settings",
            "SECRET_KEY": "bench-serve-key-for-a-scratch-database-only-0123456789abcdefghij",
            "DEBUG": "0",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "STATIC_ROOT": str(work / "serve-static"),
            "PYTHONPATH": str(ROOT),
        }

    def manage(self, *args: str) -> str:
        done = subprocess.run([sys.executable, *args], cwd=ROOT, env=self.env, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"{args} exited {done.returncode}: {done.stderr[-2000:]}")
        return done.stdout

    def setup(self) -> None:
        self.manage("manage.py", "migrate", "--no-input", "-v", "0")
        collectstatic(self.env)
        seeded = self.manage(
            "-m", "bench.serve_seed", str(READERS * 4), str(WRITERS), str(AGENT_LINES), str(CARD_LINES)
        )
        self.seed = json.loads(seeded.strip().splitlines()[-1])

    def drop(self) -> None:
        self.database.close()

    def instances(self, count: int, server: str, floor: bool = False) -> list[Instance]:
        workers = self.args.workers // count
        log = self.work / f"serve-{server}{'-floor' if floor else ''}"
        env, app = ({**self.env, "BARE_DIR": str(self.work / "bare")}, FLOOR) if floor else (self.env, APP)
        return [
            start_server(server, env, Path(f"{log}{k}.log"), workers=workers, threads=self.args.threads, app=app)
            for k in range(count)
        ]

    def load(self, hosts: list[str], readers: int, seconds: float, conditional: bool = False) -> dict:
        spec = {
            "hosts": hosts,
            "readers": readers,
            "writers": WRITERS,
            "write_rate": self.args.write_rate,
            "readers_tokens": self.seed["readers"][:readers],
            "writers_tokens": self.seed["writers"],
            "dad_session": self.seed["dad_session"],
            "seconds": seconds,
            "warmup": self.args.warmup,
            "conditional": conditional,
        }
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "spec.json").write_text(json.dumps(spec))
            before = os.times()
            subprocess.run(
                [sys.executable, "-m", "bench.serve_load", f"{tmp}/spec.json", f"{tmp}/out.json"],
                cwd=ROOT,
                env=self.env,
                check=True,
                timeout=seconds + self.args.warmup + 120,
            )
            after = os.times()
            out = json.loads((Path(tmp) / "out.json").read_text())
        out["client_cpu"] = after.children_user + after.children_system - before.children_user - before.children_system
        return out

    def warm_cards(self, servers: list[Instance]) -> None:
        """Until every worker of every instance has drawn the card once: 8 at a time, in rounds (at least 3)."""
        from concurrent.futures import ThreadPoolExecutor

        def get(base: str) -> float:
            request = urllib.request.Request(f"{base}/notebooks/card/")
            request.add_header("Cookie", f"sessionid={self.seed['dad_session']}")
            started = time.perf_counter()
            with urllib.request.urlopen(request, timeout=120) as response:
                response.read()
            return time.perf_counter() - started

        self.first_card = 0.0
        with ThreadPoolExecutor(8) as pool:
            for round_ in range(8):
                took = sorted(pool.map(get, [s.base for s in servers for _ in range(self.args.workers * 2)]))
                self.first_card = max([*took, self.first_card])
                # Which worker answers is the kernel's choice: go on until no request of a round drew a first card.
                if round_ >= 2 and took[-1] < 2 * took[len(took) // 2]:
                    break

    def scenario(
        self,
        count: int,
        readers: int,
        seconds: float,
        server: str = SERVERS[0],
        conditional: bool = False,
        floor: bool = False,
    ) -> dict:
        servers = self.instances(count, server, floor)
        try:
            # A first read of every notebook folds it, and a worker's first card of 1,000 lines renders every line
            # (about 1.5 s): the load measures the app warm, as it runs for days (the first card is timed apart).
            self.warm_cards(servers)
            if not floor and not (self.work / "bare").exists():
                seed = self.seed
                serve_floor.capture(servers[0].base, seed["readers"][0], seed["writers"][0], seed["dad_session"],
                                    self.work / "bare")  # fmt: skip
            self.load([s.base for s in servers], readers, 1.0)
            cpu0 = sum(cpu_seconds(s.proc.pid) for s in servers)
            load0 = os.getloadavg()
            result = self.load([s.base for s in servers], readers, seconds, conditional)
            result["server_cpu"] = sum(cpu_seconds(s.proc.pid) for s in servers) - cpu0
            result["loadavg"] = [load0, os.getloadavg()]
        finally:
            for s in servers:
                s.stop()
        result.update(instances=count, readers=readers, vendor=self.vendor, first_card=self.first_card, server=server)
        result.update(conditional=conditional, floor=floor)
        return serve_report.summarise(result)


def compare(run: Run, args: argparse.Namespace) -> list[dict]:
    """Every server of --servers at 4, 16 and 64 readers (full reads), and at 16 with conditional reads; then the
    same server's floor (bench/serve_floor.py: the app's answers from a bare app) at 16 readers, full and
    conditional, so the app reads as a ratio to what the server alone costs."""
    points = []
    shape = [(int(p.rstrip("cf")), "c" in p, "f" in p) for p in args.points.split(",")]  # checked in main
    for _ in range(args.rounds):
        for server in args.servers.split(","):
            for readers, conditional, floor in shape:
                how = ("conditional" if conditional else "full") + (", the floor" if floor else "")
                print(f"[{run.vendor}] {server}: {readers} readers, {how}, {args.curve_seconds:.0f} s", file=sys.stderr)
                point = run.scenario(1, readers, args.curve_seconds, server, conditional, floor)
                point["compare"] = True
                points.append(point)
                print(serve_report.one_line(points[-1]), file=sys.stderr)
    return points


def measure(args: argparse.Namespace, work: Path) -> list[dict]:
    runs: list[dict] = []
    for vendor in args.vendors.split(","):
        run = Run(vendor, args, work)
        try:
            run.setup()
            if args.compare and vendor == "postgresql":
                runs += compare(run, args)
            if args.compare_only:
                continue
            for count in (1, 2):
                print(f"[{vendor}] {count} instance(s), {READERS} readers, {args.seconds:.0f} s", file=sys.stderr)
                runs.append(run.scenario(count, READERS, args.seconds))
                print(serve_report.one_line(runs[-1]), file=sys.stderr)
            if not args.no_curve:
                for readers in (1, 4, 16, 64):
                    print(f"[{vendor}] curve: {readers} readers, {args.curve_seconds:.0f} s", file=sys.stderr)
                    point = run.scenario(1, readers, args.curve_seconds)
                    point["curve"] = True
                    runs.append(point)
                    print(serve_report.one_line(runs[-1]), file=sys.stderr)
        finally:
            run.drop()
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.serve", description=__doc__)
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("SERVE_SECONDS", "60")))
    parser.add_argument("--curve-seconds", type=float, help="per point of the curve (default a quarter of --seconds)")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--vendors", default="postgresql,sqlite")
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", "4")))
    parser.add_argument("--threads", type=int, default=int(os.environ.get("WEB_THREADS", "4")))
    parser.add_argument("--write-rate", type=float, default=5.0, help="adds per second by each writing agent")
    parser.add_argument("--no-curve", action="store_true")
    parser.add_argument("--servers", default=",".join(SERVERS), help="the servers --compare puts side by side")
    parser.add_argument("--compare", action="store_true", help="on PostgreSQL, first every server side by side")
    parser.add_argument("--compare-only", action="store_true", help="only the servers side by side")
    parser.add_argument("--points", default=POINTS, help="--compare's points: readers, c conditional, f the floor")
    parser.add_argument("--rounds", type=int, default=1, help="--compare's servers in turn, this many times")
    parser.add_argument("--quick", action="store_true", help="10 s a run; writes under var/bench/")
    parser.add_argument("--out", help="folder for SERVE.md and serve-latency.png (default bench/, quick var/bench/)")
    parser.add_argument("--report-only", action="store_true", help="rewrite the report from var/bench/serve.json")
    args = parser.parse_args()
    args.compare = args.compare or args.compare_only
    if not re.fullmatch(r"\d+c?f?(,\d+c?f?)*", args.points):
        parser.error(f"--points {args.points!r}: readers, each with c (conditional) or f (the floor), e.g. {POINTS}")
    if args.quick:
        args.seconds = min(args.seconds, 10.0)
    args.curve_seconds = args.curve_seconds or max(5.0, args.seconds / 4)
    work = ROOT / "var" / "bench"
    work.mkdir(parents=True, exist_ok=True)
    dest = Path(args.out) if args.out else (work if args.quick else ROOT / "bench")
    if args.report_only:
        saved = json.loads((work / "serve.json").read_text())
        if isinstance(saved, list):  # written before the run's times were saved with it
            saved = {"runs": saved, "started": os.path.getmtime(work / "serve.json"), "ended": None}
        runs, started, ended = saved["runs"], datetime.fromtimestamp(saved["started"], UTC), saved["ended"]
    else:
        started = datetime.now(UTC)
        runs = measure(args, work)
        ended = time.time()
    verdicts = serve_report.targets(runs)
    serve_report.print_targets(verdicts)
    dest.mkdir(parents=True, exist_ok=True)
    if not args.report_only:
        (work / "serve.json").write_text(json.dumps({"runs": runs, "started": started.timestamp(), "ended": ended}))
    if any(r.get("curve") for r in runs):
        serve_report.plot(runs, dest / "serve-latency.png")
    (dest / "SERVE.md").write_text(serve_report.markdown(runs, verdicts, args, started, ended))
    print(f"wrote {dest / 'SERVE.md'}")
    failed = [v for v in verdicts if v["verdict"] == "FAIL"]
    print(f"{len(failed)} target(s) FAIL" if failed else "every target PASSES")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
