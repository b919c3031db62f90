"""Figures, targets, plot and SERVE.md for `make bench-serve` (bench/serve.py)."""

import argparse
import os
import platform
from datetime import datetime
from pathlib import Path

TARGETS = (
    ("API turn reads/s at 16 readers, 4 agents writing", "turn", "rps", ">=", 1000.0),
    ("API turn p99 (ms)", "turn", "p99", "<=", 50.0),
    ("card of 1,000 lines p99 (ms)", "card", "p99", "<=", 300.0),
    ("errors (every kind)", "*", "errors", "<=", 0),
)
KINDS = ("turn", "lines", "add", "card")
# The servers side by side (--compare): at 16 readers and 4 writers, full reads and conditional ones.
COMPARE_TARGETS = (
    (16, False, "API turn reads/s, full reads", "rps", ">=", 1000.0),
    (16, False, "API turn p99 (ms), full reads", "p99", "<=", 50.0),
    (16, True, "API turn reads/s, conditional reads of an unchanged notebook", "rps", ">=", 3000.0),
)


def percentile(sorted_ms: list[float], q: float) -> float:
    if not sorted_ms:
        return float("nan")
    return sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))]


def summarise(result: dict) -> dict:
    """Each kind's count, requests/s, p50/p95/p99/max and errors; the raw latencies are dropped."""
    kinds = {}
    for name, got in result.pop("kinds").items():
        ms = sorted(got["ms"])
        kinds[name] = {
            "count": len(ms),
            "rps": len(ms) / result["seconds"],
            "p50": percentile(ms, 0.50),
            "p95": percentile(ms, 0.95),
            "p99": percentile(ms, 0.99),
            "max": ms[-1] if ms else float("nan"),
            "errors": len(got["errors"]),
            "error_sample": sorted(set(got["errors"]))[:3],
        }
    result["kinds"] = kinds
    return result


def label(run: dict) -> str:
    server = f"{run['server']}, " if run.get("compare") else ""
    reads = (", conditional" if run.get("conditional") else "") + (", the server's floor" if run.get("floor") else "")
    return (
        f"{server}{run['vendor']}, {run['instances']} instance{'s' if run['instances'] > 1 else ''}, "
        f"{run['readers']} readers{reads}"
    )


def one_line(run: dict) -> str:
    parts = [
        f"{name} {k['rps']:.0f}/s p50 {k['p50']:.1f} p99 {k['p99']:.1f} ms err {k['errors']}"
        for name, k in sorted(run["kinds"].items())
    ]
    server, client = run["server_cpu"] / run["seconds"], run["client_cpu"] / run["seconds"]
    cpu = f"server CPU {server:.2f} cores, load client {client:.2f}, slowest warm-up card {run['first_card']:.2f} s"
    return f"  {label(run)}: " + "; ".join(parts) + f" ({cpu})"


def targets(runs: list[dict]) -> list[dict]:
    out = []

    def verdict(run: dict, text: str, value: float, op: str, bound: float) -> dict:
        ok = value >= bound if op == ">=" else value <= bound  # NaN (nothing measured) fails either way
        return {
            "run": label(run),
            "target": f"{text} {op} {bound:g}",
            "value": value,
            "verdict": "PASS" if ok else "FAIL",
        }

    for run in runs:
        errors = float(sum(k["errors"] for k in run["kinds"].values()))
        if run.get("compare") and run.get("floor"):
            continue  # no target of its own: the app's ratio to it is (floor_ratios)
        if run.get("compare"):
            for readers, conditional, text, figure, op, bound in COMPARE_TARGETS:
                if (run["readers"], run["conditional"]) == (readers, conditional):
                    out.append(verdict(run, text, run["kinds"].get("turn", {}).get(figure, float("nan")), op, bound))
            out.append(verdict(run, "errors (every kind)", errors, "<=", 0))
        elif not run.get("curve"):
            for text, kind, figure, op, bound in TARGETS:
                value = errors if kind == "*" else run["kinds"].get(kind, {}).get(figure, float("nan"))
                out.append(verdict(run, text, value, op, bound))
    return out


def print_targets(verdicts: list[dict]) -> None:
    print("\n== bench-serve targets")
    for v in verdicts:
        print(f"  {v['verdict']:4}  {v['run']}: {v['target']}: {v['value']:.1f}")


def plot(runs: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (lat, thr) = plt.subplots(1, 2, figsize=(11, 4.2))
    colors = {"postgresql": "tab:blue", "sqlite": "tab:green"}
    for vendor in ("postgresql", "sqlite"):
        points = sorted(
            (r for r in runs if r.get("curve") and r["vendor"] == vendor and not r.get("compare")),
            key=lambda r: r["readers"],
        )
        if not points:
            continue
        xs = [r["readers"] for r in points]
        for figure, style in (("p50", ":"), ("p95", "--"), ("p99", "-")):
            ys = [r["kinds"]["turn"][figure] for r in points]
            lat.plot(xs, ys, style, marker="o", ms=3, color=colors[vendor], label=f"{vendor} turn {figure}")
        thr.plot(xs, [r["kinds"]["turn"]["rps"] for r in points], marker="o", color=colors[vendor], label=vendor)
    lat.axhline(50, color="0.5", lw=0.8)
    lat.set_xscale("log", base=2)
    lat.set_yscale("log")
    lat.set_xticks([1, 4, 16, 64], ["1", "4", "16", "64"])
    lat.set_xlabel("concurrent readers (plus 4 agents writing, Dad's card)")
    lat.set_ylabel("API turn latency (ms)")
    lat.legend(fontsize=7)
    lat.grid(True, which="both", alpha=0.25)
    thr.set_xscale("log", base=2)
    thr.set_xticks([1, 4, 16, 64], ["1", "4", "16", "64"])
    thr.set_xlabel("concurrent readers")
    thr.set_ylabel("API turn reads/s")
    thr.axhline(400, color="0.5", lw=0.8)
    thr.legend(fontsize=7)
    thr.grid(True, alpha=0.25)
    fig.suptitle("Through the server `make serve` runs, one instance: latency and throughput against concurrency")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _table(runs: list[dict]) -> list[str]:
    rows = ["| run | kind | requests/s | p50 ms | p95 ms | p99 ms | max ms | errors | server CPU | CPU a request "
            "| load client CPU |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for run in runs:
        for name in KINDS:
            k = run["kinds"].get(name)
            if not k:
                continue
            first = name == next(n for n in KINDS if n in run["kinds"])
            cpu = ("", "", "")
            if first:
                total = sum(x["count"] for x in run["kinds"].values()) or 1
                cpu = (
                    f"{run['server_cpu'] / run['seconds']:.2f} cores",
                    f"{run['server_cpu'] / total * 1000:.1f} ms",
                    f"{run['client_cpu'] / run['seconds']:.2f} cores",
                )
            rows.append(
                f"| {label(run) if first else ''} | {name} | {k['rps']:.1f} | {k['p50']:.1f} | {k['p95']:.1f} | "
                f"{k['p99']:.1f} | {k['max']:.0f} | {k['errors']} | {cpu[0]} | {cpu[1]} | {cpu[2]} |"
            )
    return rows


def markdown(
    runs: list[dict], verdicts: list[dict], args: argparse.Namespace, started: datetime, ended: float | None
) -> str:
    loads = [r["loadavg"] for r in runs]
    lines = [
        "# Serving under load (`make bench-serve`)",
        "",
        f"Made by `make bench-serve` (bench/serve.py) on {started:%Y-%m-%d} from {started:%H:%M} UTC"
        + (f", {(ended - started.timestamp()) / 60:.0f} minutes" if ended else "")
        + f"; {args.seconds:.0f} s a run, "
        f"{args.curve_seconds:.0f} s a point of the curve, after {args.warmup:.0f} s of warm-up each.",
        "",
        "## Machine",
        "",
        f"- {os.cpu_count()} cores, {platform.platform()}, Python {platform.python_version()}; the load generator "
        "runs on the same cores as the web server and the database (its CPU is in the table).",
        f"- Load average (1 min) at the start of each run: {', '.join(f'{a[0][0]:.1f}' for a in loads)}; the "
        "first is the machine before the bench, each later one carries the run before it (the server's threads, "
        "the load client and the database count as load), so only a first figure above 2 says other work ran.",
        f"- The server `make serve` runs (granian's WSGI interface, notebook_site/web_servers.py): one process a "
        f"core, {args.workers * args.threads} threads in all (two instances: half each), access log off; "
        "connections kept (`CONN_MAX_AGE` 60), PostgreSQL's statements prepared.",
        "",
        "Reading these figures: the targets are for this machine otherwise idle. When the load average is far above "
        "its 2 cores, the server gets a fraction of a core (the server CPU column) and every request waits for it; the "
        "CPU a request (the server's CPU over every request served) is the figure that least depends on that wait.",
        "",
        "## What runs",
        "",
        "- **turn** and **lines**: 16 agents, each with its own token and its own notebook of 200 lines (240 rows), "
        "reading back to back (no think time): the turn (`GET /api/notebooks/T/turn`), and every fifth request the "
        "lines as JSON (`GET /api/notebooks/T/lines`).",
        f"- **add**: 4 agents adding lines (`POST /api/notebooks/T/lines`) at {args.write_rate:g} lines/s each, to "
        "four of the notebooks being read (so those readers fold new rows in all the time).",
        "- **card**: Dad, signed in, loading the card of a notebook with 1,000 live lines every 1-2 s. Measured warm: "
        "before each run every worker draws the card once (a worker's first card renders every line; the slowest "
        f"of those first cards took {max(r['first_card'] for r in runs):.1f} s here; later ones reuse the rendered "
        "lines, card/fragments.py).",
        "- Two instances: the same load, each client given one of two servers on separate ports, on one database.",
        "- The load: locust 2.47 in library mode (FastHttpUser), one process; every request's latency recorded, "
        "percentiles from all of them.",
        "",
        "## Targets",
        "",
        "| run | target | figure | |",
        "|---|---|---:|---|",
        *[f"| {v['run']} | {v['target']} | {v['value']:.1f} | {v['verdict']} |" for v in verdicts],
        "",
        "## Every figure",
        "",
        *_table([r for r in runs if not r.get("compare")]),
        "",
    ]
    compared = [r for r in runs if r.get("compare")]
    if compared:
        lines += [
            "## Servers side by side (PostgreSQL, one instance, 4 agents writing, Dad's card)",
            "",
            f"granian (WSGI): one process a core, {args.workers * args.threads} threads in all; gunicorn gthread: "
            f"{args.workers} workers x {args.threads} threads; gunicorn sync: 2 x cores + 1 processes of one request "
            "each. Conditional: every reader "
            "sends back its last turn's ETag, so an unchanged notebook answers 304.",
            "",
            *_table(compared),
            "",
        ]
    if any(r.get("curve") for r in runs):
        lines += ["![API turn latency and throughput against concurrency](serve-latency.png)", ""]
    return "\n".join(lines)
