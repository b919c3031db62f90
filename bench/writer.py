"""One of the concurrent writers (run by bench/suite.py): adds lines to one notebook, each add its own
transaction, and prints the numbers it was given as JSON. With --one-at-a-time TITLE, another worker: one add
for each line read from stdin, answered "ok" once committed."""

import json
import os
import sys
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
django.setup()

from bench import scratch  # noqa: E402
from notebooks.log import services  # noqa: E402
from notebooks.log.identity.roles import Actor  # noqa: E402
from notebooks.log.rules.errors import Conflict  # noqa: E402


def one_at_a_time(title: str) -> None:
    for i, _ in enumerate(sys.stdin):
        services.add(notebook=title, text=f"another worker's line {i}", source="seen", by="pippa", why="bench")
        print("ok", flush=True)


def server_cpu() -> float | None:
    """CPU seconds of this connection's PostgreSQL backend, from /proc (the bench's server is on this machine)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    return scratch.process_cpu(pid)


def main() -> None:
    if sys.argv[1] == "--one-at-a-time":
        return one_at_a_time(sys.argv[2])
    title, count, start_at, name = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    agent = Actor(name)
    numbers: list[int] = []
    retries = 0
    server_before = server_cpu()
    time.sleep(max(0.0, start_at - time.time()))
    start, cpu = time.time(), time.process_time()
    for i in range(count):
        while True:
            try:
                written = services.add(notebook=title, text=f"{name} line {i}", source="seen", by=agent, why="bench")
                break
            except Conflict:
                retries += 1
        numbers.append(written.n)
    end, cpu = time.time(), time.process_time() - cpu
    server = server_cpu()
    server = server - server_before if server is not None and server_before is not None else None
    report = {"numbers": numbers, "start": start, "end": end, "retries": retries, "cpu": cpu, "server_cpu": server}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
