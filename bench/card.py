"""`python -m bench.card [TREE ...]`: the card page of a 1,000-line notebook on SQLite, in milliseconds.

Each code tree (this one when none is named; e.g. an exported older commit to compare with) is timed in its own
process on a fresh database holding the same notebook, and the trees take turns, so their figures sit side by
side. "first" is the first request of a process (nothing kept yet); "median" is over the requests after it.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_MS = 150


def measure(runs: int) -> dict[str, float]:
    """Run inside a tree's process: a fresh SQLite database, the bench's card notebook, then the page's times."""
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client, override_settings

    from bench import data, web
    from notebooks.log.files import imports

    # The project's settings as the bench runs them: its own static storage needs collectstatic first.
    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    override_settings(STORAGES=storages, ALLOWED_HOSTS=["testserver"], DEBUG=False).enable()
    call_command("migrate", verbosity=0)
    rows = data.with_live(1000, seed=1000)
    imports.import_notebook(title="card-1000", lines=[json.dumps(r) for r in rows], by="bench")
    request = web.card_page(Client(), "card-1000")
    assert not isinstance(request, str), request
    times = []
    for _ in range(runs + 1):
        started = time.perf_counter()
        request()
        times.append((time.perf_counter() - started) * 1000)
    return {"first": times[0], "median": statistics.median(times[1:])}


def run_tree(tree: Path, runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as work:
        env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{work}/card.sqlite3",
            "DJANGO_SETTINGS_MODULE": "notebook_site.settings",
            "PYTHONPATH": str(tree),
        }
        code = f"import json; from bench.card import measure; print(json.dumps(measure({runs})))"
        done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tree, capture_output=True)
        if done.returncode:
            sys.exit(f"{tree}: the timing process failed:\n{done.stderr.decode()}")
        return json.loads(done.stdout.decode().strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.card", description=__doc__)
    parser.add_argument("trees", nargs="*", type=Path, help="code trees to time (default: this one)")
    parser.add_argument("--runs", type=int, default=15, help="timed requests after the first (default 15)")
    parser.add_argument("--rounds", type=int, default=3, help="processes per tree, taking turns (default 3)")
    args = parser.parse_args()
    trees = [tree.resolve() for tree in args.trees] or [ROOT]
    got: dict[Path, list[dict[str, float]]] = {tree: [] for tree in trees}
    for _ in range(args.rounds):
        for tree in trees:
            got[tree].append(run_tree(tree, args.runs))
    print(f"card page, 1,000 live lines, SQLite (target <= {TARGET_MS} ms)")
    for tree, results in got.items():
        first = statistics.median(r["first"] for r in results)
        median = statistics.median(r["median"] for r in results)
        verdict = "PASS" if median <= TARGET_MS else "FAIL"
        print(f"  {tree}: median {median:7.1f} ms  first {first:7.1f} ms  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
