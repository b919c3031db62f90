"""`python -m bench [--quick]`: run the suite on SQLite and PostgreSQL, print the targets, write the results.

A full run writes bench/RESULTS.md and bench/speed.png; --quick (1k and 10k rows, fewer repetitions, about
a minute) writes them under var/bench/ instead, so a quick look never replaces the recorded results.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

from bench import report, scratch
from bench import similar as bench_similar

ROOT = Path(__file__).resolve().parent.parent


def run_vendor(vendor: str, args: argparse.Namespace, work: Path) -> dict | None:
    out = work / f"{vendor}.json"
    out.unlink(missing_ok=True)
    name = "bench" if vendor == "sqlite" else f"bench_run_{os.getpid()}"
    started = time.time()
    with ExitStack() as stack:
        try:
            url = stack.enter_context(scratch.fresh_database(vendor, name, work))
        except Exception as exc:  # noqa: BLE001 - any failure to reach the server is reported, not raised
            print(f"PostgreSQL not reachable at {scratch.PG}: {exc}; skipped", file=sys.stderr)
            return None
        env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "bench.settings", "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "bench.suite", "--sizes", args.sizes, "--reps", str(args.reps),
               "--writes", str(args.writes), "--out", str(out)]  # fmt: skip
        cmd += ["--writes-only"] if args.writes_only else []
        subprocess.run(cmd, env=env, cwd=ROOT, check=True)
    print(f"[{vendor}] done in {time.time() - started:.0f} s", file=sys.stderr)
    return json.loads(out.read_text())


def run_similar(args: argparse.Namespace, work: Path) -> dict | None:
    """The similar-lines engine's quality and speed (bench/similar.py), in its own process on a scratch SQLite."""
    out = work / "similar.json"
    out.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "bench.similar", "--out", str(out)] + (["--quick"] if args.quick else [])
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    subprocess.run(cmd, env={**env, "PYTHONPATH": str(ROOT)}, cwd=ROOT, check=False)
    return json.loads(out.read_text()) if out.exists() else None


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="1k and 10k rows, 3 repetitions, fewer writes")
    parser.add_argument("--sizes", help="comma-separated row counts (default 1000,10000,100000)")
    parser.add_argument("--reps", type=int, help="repetitions per figure (default 7, quick 3)")
    parser.add_argument("--writes", type=int, help="adds by the one writer (default 2000, quick 300)")
    parser.add_argument("--vendors", default="sqlite,postgresql")
    parser.add_argument("--out", help="folder for RESULTS.md and speed.png (default bench/, quick var/bench/)")
    parser.add_argument("--report-only", action="store_true", help="rewrite the report from the last run's JSON")
    parser.add_argument("--writes-only", action="store_true",
                        help="only the writers and their floor; prints their targets and writes no report")  # fmt: skip
    args = parser.parse_args()
    asked = [f"--sizes {args.sizes}"] if args.sizes else []
    asked += [f"--vendors {args.vendors}"] if args.vendors != "sqlite,postgresql" else []
    args.sizes = args.sizes or ("1000,10000" if args.quick else "1000,10000,100000")
    args.reps = args.reps or (3 if args.quick else 7)
    args.writes = args.writes or (300 if args.quick else 2000)
    work = ROOT / "var" / "bench"
    work.mkdir(parents=True, exist_ok=True)
    dest = Path(args.out) if args.out else (work if args.quick else ROOT / "bench")
    dest.mkdir(parents=True, exist_ok=True)

    results: dict[str, dict] = {}
    for vendor in args.vendors.split(","):
        got = json.loads((work / f"{vendor}.json").read_text()) if args.report_only else run_vendor(vendor, args, work)
        if got is not None:
            results[got["env"]["vendor"]] = got
    if not results:
        print("nothing was measured", file=sys.stderr)
        return 2

    if args.writes_only or not all(res["sizes"] for res in results.values()):  # (--report-only of such a run)
        return writes_only(results)
    similar = json.loads((work / "similar.json").read_text()) if args.report_only else run_similar(args, work)
    try:
        verdicts = {vendor: report.targets(vendor, res) for vendor, res in results.items()}
    except KeyError as exc:  # --report-only on figures an older bench wrote
        print(f"the last run's JSON has no figure {exc}: an older bench wrote it; run the bench again", file=sys.stderr)
        return 2
    for vendor, res in results.items():
        print(f"\n== {res['env']['version']} ({res['env']['durability']}): every figure")
        print("\n".join(report.figures_table(res)))
        report.print_targets(res["env"]["version"], verdicts[vendor])
    plot = dest / "speed.png"
    report.plot(results, plot)
    asked = (["--quick"] if args.quick else []) + asked
    args_line = "make bench" + (f' ARGS="{" ".join(asked)}"' if asked else "")
    similar_rows = bench_similar.targets(similar) if similar else []
    if similar_rows:
        report.print_targets("similar lines (SQLite)", similar_rows)
    text = report.results_md(results, verdicts, args_line, plot.name)
    (dest / "RESULTS.md").write_text(text + bench_similar.results_md(similar, similar_rows))
    print(f"\nwrote {dest / 'RESULTS.md'} and {plot}")
    failed = [t for rows in [*verdicts.values(), similar_rows] for t in rows if t[4] == "FAIL"]
    print(f"{len(failed)} target(s) FAIL" if failed else "every target checked PASSES")
    return 1 if failed else 0


def writes_only(results: dict[str, dict]) -> int:
    failed = 0
    for vendor, res in results.items():
        rows = report.writer_targets(vendor, res)
        load = ", ".join(f"{x:.1f}" for x in res["load_before"])
        report.print_targets(f"{res['env']['version']} ({res['env']['durability']}; load before {load})", rows)
        failed += sum(t[4] == "FAIL" for t in rows)
    print(f"{failed} target(s) FAIL" if failed else "every target checked PASSES")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
