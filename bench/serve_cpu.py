"""CPU a warm API read costs, in one process, without gunicorn or a load client: what `make bench-serve` is bound by.

A scratch database is migrated and seeded as bench/serve.py does (bench/serve_seed.py), then N warm requests go
through the WSGI handler gunicorn calls (notebook_site.wsgi.application, an environ like gunicorn's): the readers'
mix of `make bench-serve` (16 agents, each reading its notebook's turn, every fifth request its lines). Prints the
process CPU a request (time.process_time), the PostgreSQL backend's CPU a request (/proc/<pid>/stat), the queries a
request, and with --profile the top of a cProfile.

    python -m bench.serve_cpu [--vendor postgresql|sqlite] [-n 1600] [--profile] [--conditional]
"""

import argparse
import cProfile
import io
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import scratch

ROOT = Path(__file__).resolve().parent.parent
READERS, WRITERS, AGENT_LINES, CARD_LINES = 16, 4, 200, 1000
ROUNDS = 9


def backend_cpu(pid: int) -> float:
    """User + system CPU seconds of a PostgreSQL backend process (Linux)."""
    return scratch.process_cpu(pid) or 0.0


def environ(path: str, token: str) -> dict:
    """A GET as gunicorn's gthread worker hands it to the app."""
    return {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "RAW_URI": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "REMOTE_PORT": "40000",
        "HTTP_HOST": "127.0.0.1:8000",
        "HTTP_USER_AGENT": "python/gevent-http-client-miniclient",
        "HTTP_ACCEPT_ENCODING": "gzip, deflate",
        "HTTP_AUTHORIZATION": f"Bearer {token}",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr,
        "wsgi.url_scheme": "http",
        "wsgi.version": (1, 0),
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


def measure(seed: dict, n: int, profile: bool, variants_file: str | None, conditional: bool = False) -> None:
    import django

    django.setup()
    from django.db import connection

    from notebook_site.wsgi import application

    statuses: list[str] = []
    # Variants compared round by round (A, B, A, B...), so the shared machine's slow spells fall on each alike: a
    # file defining VARIANTS = {name: callable(application) -> application}; "as is" is always measured.
    variants: dict = {"as is": lambda app: app}
    if variants_file:
        scope: dict = {}
        exec(compile(Path(variants_file).read_text(), variants_file, "exec"), scope)  # noqa: S102 - the caller's own
        variants.update(scope["VARIANTS"])
    handlers = {name: make(application) for name, make in variants.items()}
    current = [application]

    tags: dict[str, str] = {}  # with --conditional: the ETag each path last answered, sent back as If-None-Match

    def request(k: int) -> None:
        reader = k % READERS
        path = f"/api/notebooks/agent-{reader}/{'lines' if (k // READERS) % 5 == 4 and not conditional else 'turn'}"
        env = environ(path, seed["readers"][reader])
        if conditional and path in tags:
            env["HTTP_IF_NONE_MATCH"] = tags[path]

        def start_response(status: str, headers: list, exc_info: object = None) -> None:
            statuses.append("200 (304)" if status.startswith("304") else status)
            tags.update((path, v) for h, v in headers if h == "ETag")

        result = current[0](env, start_response)
        try:
            b"".join(result)
        finally:
            if hasattr(result, "close"):  # a WSGI answer need not have one
                result.close()  # request_finished: Django's end-of-request connection handling, as in a server

    def backend_pid() -> int | None:
        if connection.vendor != "postgresql":
            return None
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            return cursor.fetchone()[0]

    queries = [0]

    def count(execute, sql, params, many, context):  # noqa: ANN001, ANN202
        queries[0] += 1
        return execute(sql, params, many, context)

    for name, handler in handlers.items():
        current[0] = handler
        for k in range(READERS * 5 * 3):  # warm: every notebook folded, every path taken
            request(k)
        queries[0] = 0
        with connection.execute_wrapper(count):
            for k in range(READERS * 5):
                request(k)
        print(f"{name}: {queries[0] / (READERS * 5):.2f} queries a request (mix, health check not counted)")
    assert all(s.startswith("200") for s in statuses), set(statuses)

    for label, only in (("mix (4 turn : 1 lines)", None), ("turn only", "turn"), ("lines only", "lines")):
        ks = [k for k in range(n) if only is None or (("lines" if (k // READERS) % 5 == 4 else "turn") == only)]
        if not ks:  # -n below 5 x 16: no lines read of its own
            continue
        app: dict = {name: [] for name in handlers}
        db: dict = {name: [] for name in handlers}
        for _ in range(ROUNDS):  # the least of several rounds: the machine is shared, and noise only adds
            for name, handler in handlers.items():
                current[0] = handler
                request(0)  # a variant may open its own connection on its first request
                pid = backend_pid()
                db0 = backend_cpu(pid) if pid else 0.0
                cpu0 = time.process_time()
                for k in ks:
                    request(k)
                app[name].append((time.process_time() - cpu0) / len(ks) * 1e3)
                db[name].append(((backend_cpu(pid) - db0) if pid else 0.0) / len(ks) * 1e3)
        for name in handlers:
            a, d = sorted(app[name]), sorted(db[name])
            print(
                f"{label:22} {name:12} {len(ks):4} x {ROUNDS}: app CPU {a[0]:.3f} ms (median {a[ROUNDS // 2]:.3f}), "
                f"database CPU {d[0]:.3f} ms (median {d[ROUNDS // 2]:.3f}) a request"
            )
    assert all(s.startswith("200") for s in statuses), set(statuses)
    if profile:
        current[0] = application
        profiler = cProfile.Profile(time.process_time)  # CPU, not the wait for the database
        profiler.enable()
        for k in range(n):
            request(k)
        profiler.disable()
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out).strip_dirs()
        stats.sort_stats("tottime").print_stats(35)
        stats.sort_stats("cumulative").print_stats(60)
        print(out.getvalue())
        stats.dump_stats("/tmp/serve-cpu.prof")


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.serve_cpu", description=__doc__)
    parser.add_argument("--vendor", default="postgresql", choices=["postgresql", "sqlite"])
    parser.add_argument("-n", type=int, default=1600, help="requests a round")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--variants", help="a Python file defining VARIANTS, compared round by round with the app as is"
    )
    parser.add_argument("--conditional", action="store_true", help="the turn only, each sent with its last ETag")
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        seed = json.loads(Path(args.inner).read_text())
        measure(seed, args.n, args.profile, args.variants, args.conditional)
        return 0
    name = "serve_cpu" if args.vendor == "sqlite" else f"serve_cpu_{os.getpid()}"
    with tempfile.TemporaryDirectory() as tmp, scratch.fresh_database(args.vendor, name, Path(tmp)) as url:
        env = {
            **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "PYTEST_ADDOPTS")},
            "DATABASE_URL": url,
            "DJANGO_SETTINGS_MODULE": "notebook_site.settings",
            "SECRET_KEY": "bench-serve-key-for-a-scratch-database-only-0123456789abcdefghij",
            "DEBUG": "0",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "STATIC_ROOT": f"{tmp}/static",
            "PYTHONPATH": str(ROOT),
        }
        if args.vendor == "postgresql":
            env["CONN_MAX_AGE"] = "3600"  # one backend for the whole run, its CPU read from /proc
        run = {"cwd": ROOT, "env": env, "check": True}
        subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"], **run)
        seeded = subprocess.run(
            [sys.executable, "-m", "bench.serve_seed", str(READERS), str(WRITERS), str(AGENT_LINES), "10"],
            capture_output=True,
            text=True,
            **run,
        )
        (Path(tmp) / "seed.json").write_text(seeded.stdout.strip().splitlines()[-1])
        inner = [sys.executable, "-m", "bench.serve_cpu", "-n", str(args.n), "--inner", f"{tmp}/seed.json"]
        options = [
            *(["--profile"] if args.profile else []),
            *(["--conditional"] if args.conditional else []),
            *(["--variants", args.variants] if args.variants else []),
        ]
        subprocess.run([*inner, *options], **run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
