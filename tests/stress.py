"""Processes that hammer a notebook database, and the checks that follow them (tests/reliability/test_reliability_*.py).

Run as `python -m tests.stress work|check|setup …` with DATABASE_URL naming a database migrated beforehand;
the tests start these in subprocesses against a temporary SQLite file or a PostgreSQL database of their own.
"""

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ALLOWED_REFUSALS = {"conflict", "forbidden", "not_found"}  # a clear error, nothing written


def _django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notebook_site.settings")
    import django

    django.setup()


def setup(args: argparse.Namespace) -> None:
    _django()
    from notebooks.log import services

    for title in args.notebooks.split(","):
        services.create_notebook(title=title, by="stress")


def work(args: argparse.Namespace) -> None:
    """Random adds, edits, retirements and merges; one JSON line per attempt, written as soon as it returns."""
    _django()
    from notebooks.log import services
    from notebooks.log.rules.errors import NotebookError
    from notebooks.log.views import selectors

    rng = random.Random(args.seed)
    titles = args.notebooks.split(",")
    out = Path(args.log).open("a", buffering=1, encoding="utf-8")
    deadline = time.monotonic() + args.seconds if args.seconds else None
    for i in range(args.ops):
        if deadline and time.monotonic() > deadline:
            break
        title = rng.choice(titles)
        action = rng.choices(["add", "edit", "retire", "merge"], weights=[50, 25, 15, 10])[0]
        by = "dad" if rng.random() < 0.25 else args.name
        words = f"{args.name} #{i} {rng.random():.12f}"
        rec: dict[str, Any] = {"w": args.name, "i": i, "nb": title, "op": action, "by": by}
        try:
            if action == "add":
                source = "dad" if by == "dad" else rng.choice(["seen", "guessed"])
                w = services.add(notebook=title, text=words, source=source, by=by, why="stress")
            else:
                live = selectors.view(selectors.get_notebook(title))
                if len(live) < 2:
                    rec.update(ok=None)
                    out.write(json.dumps(rec) + "\n")
                    continue
                line = rng.choice(live)
                expected = line.seq if rng.random() < 0.5 else None
                if action == "edit":
                    w = services.edit(notebook=title, n=line.n, to=words, by=by, why="stress", expected=expected)
                elif action == "retire":
                    w = services.retire(notebook=title, n=line.n, by=by, why="stress", expected=expected)
                else:
                    pair = [x.n for x in rng.sample(live, 2)]
                    w = services.merge(notebook=title, numbers=pair, text=words, by=by, why="stress")
            rec.update(ok=True, n=w.n, seqs=list(w.seqs))
        except NotebookError as exc:
            rec.update(ok=False, code=exc.code, message=exc.message)
        except Exception as exc:  # noqa: BLE001 - anything else is a failure the checker reports
            rec.update(ok=False, code="crash", type=type(exc).__name__, message=str(exc)[:500])
        out.write(json.dumps(rec) + "\n")
    out.close()


ROW_OPS = {"add": ["add"], "edit": ["edit"], "retire": ["strike"]}


def check(args: argparse.Namespace) -> None:
    """Print a JSON summary: every chain, every number, every logged write found in the database."""
    _django()
    from django.db import connection

    from notebooks.log.files.verify import verify_chain
    from notebooks.log.store import triggers
    from notebooks.models import Notebook

    attempts = []
    for path in args.logs:
        p = Path(path)
        if p.exists():
            for raw in p.read_text(encoding="utf-8").splitlines():
                if raw.strip():
                    attempts.append(json.loads(raw))
    summary: dict[str, Any] = {"notebooks": {}, "attempts": len(attempts), "problems": []}
    summary["problems"] += [f"trigger missing: {name}" for name in triggers.missing()]
    stored: dict[tuple[str, int], tuple[str, int, str]] = {}
    with connection.cursor() as cursor:
        for nb in Notebook.objects.all():
            cursor.execute('SELECT seq, op, n, "by" FROM notebooks_row WHERE notebook_id = %s', [nb.pk])
            rows = cursor.fetchall()
            for seq, op, n, by in rows:
                stored[(nb.title, seq)] = (op, n, by)
            added = sorted(n for _seq, op, n, _by in rows if op == "add")
            problems = verify_chain(nb)
            if added != list(range(1, len(added) + 1)):
                problems.append(f"{nb.title}: line numbers are not unique and gapless: {added[:20]}…")
            summary["notebooks"][nb.title] = {"rows": len(rows), "lines": len(added)}
            summary["problems"] += problems
    landed, refused, crashes, claimed = 0, {}, [], set()
    for a in attempts:
        if a["ok"] is True:
            landed += 1
            for k, seq in enumerate(a["seqs"]):
                key = (a["nb"], seq)
                if key in claimed:
                    summary["problems"].append(f"two writes claim {key}")
                claimed.add(key)
                found = stored.get(key)
                want = (ROW_OPS.get(a["op"]) or ["add"] + ["strike"] * (len(a["seqs"]) - 1))[k]
                if found is None:
                    summary["problems"].append(f"LOST: {a['w']} #{a['i']} was told seq {seq} in {a['nb']} landed")
                elif found[0] != want or found[2] != a["by"]:
                    summary["problems"].append(f"{a['w']} #{a['i']}: seq {seq} in {a['nb']} is {found}, not {want}")
        elif a["ok"] is False:
            refused[a["code"]] = refused.get(a["code"], 0) + 1
            if a["code"] not in ALLOWED_REFUSALS:
                crashes.append(a)
    summary.update(landed=landed, refused=refused, unclaimed=len(set(stored) - claimed))
    summary["problems"] += [f"unclear error: {c['w']} #{c['i']}: {c.get('type')}: {c['message']}" for c in crashes]
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA integrity_check")
            result = [r[0] for r in cursor.fetchall()]
        if result != ["ok"]:
            summary["problems"].append(f"sqlite integrity_check: {result[:5]}")
    json.dump(summary, sys.stdout)


def generate(args: argparse.Namespace) -> None:
    """A large valid JSONL file: adds, edits and retirements, without seq or hash."""
    rng = random.Random(args.seed)
    live: list[int] = []
    top, at = 0, 1_700_000_000.0
    with Path(args.out).open("w", encoding="utf-8") as f:
        for i in range(args.rows):
            at += 1
            roll = rng.random()
            if roll < 0.6 or len(live) < 3:
                top += 1
                live.append(top)
                row = {"op": "add", "n": top, "text": f"line {top}: {rng.random():.9f}", "source": "seen", "at": at}
            elif roll < 0.85:
                n = rng.choice(live)
                row = {"op": "edit", "n": n, "to": f"edit {i}: {rng.random():.9f}", "by": "pippa", "why": "x", "at": at}
            else:
                n = live.pop(rng.randrange(len(live)))
                row = {"op": "strike", "n": n, "how": "retired", "by": "dad", "why": "gone", "at": at}
            f.write(json.dumps(row) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.stress")
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("setup")
    p.add_argument("--notebooks", required=True)
    p.set_defaults(fn=setup)
    p = sub.add_parser("work")
    p.add_argument("--name", required=True)
    p.add_argument("--notebooks", required=True)
    p.add_argument("--ops", type=int, default=50)
    p.add_argument("--seconds", type=float, default=0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--log", required=True)
    p.set_defaults(fn=work)
    p = sub.add_parser("check")
    p.add_argument("logs", nargs="*")
    p.set_defaults(fn=check)
    p = sub.add_parser("generate")
    p.add_argument("--rows", type=int, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True)
    p.set_defaults(fn=generate)
    args = parser.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
