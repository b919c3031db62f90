"""The load of `make bench-serve`, run in a process of its own (locust patches the standard library with gevent):
`python -m bench.serve_load SPEC.json OUT.json`. Every request's latency is recorded exactly (locust's own table
rounds), from the moment the warm-up ends.

Who: `readers` agents, each reading its own notebook back to back (the turn, and every fifth request its lines as
JSON), `writers` agents adding lines to the first notebooks at `write_rate` lines/s each, and Dad loading the
1,000-line card every 1-2 s. With two hosts, each user is given one of them in turn.
"""

from gevent import monkey

monkey.patch_all()

import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from itertools import count  # noqa: E402

import gevent  # noqa: E402
from locust import FastHttpUser, between, constant, constant_throughput, events, task  # noqa: E402
from locust.env import Environment  # noqa: E402


def user_classes(spec: dict) -> list[type]:
    hosts, numbers = spec["hosts"], count()
    readers, writers = spec["readers_tokens"], spec["writers_tokens"]

    class Reader(FastHttpUser):
        wait_time = constant(0)
        abstract = True

        def on_start(self) -> None:
            k = next(numbers)
            self.headers = {"Authorization": f"Bearer {readers[k % len(readers)]}"}
            self.path = f"/api/notebooks/agent-{k % len(readers)}"
            self.i = 0
            self.etag = ""

        @task
        def read(self) -> None:
            self.i += 1
            if spec.get("conditional"):  # a harness that sends back the ETag of its last turn (304 when unchanged)
                headers = {**self.headers, "If-None-Match": self.etag} if self.etag else self.headers
                with self.client.get(f"{self.path}/turn", headers=headers, name="turn", catch_response=True) as got:
                    if got.status_code in (200, 304):
                        self.etag = got.headers.get("ETag", self.etag)
                        got.success()
                    else:
                        got.failure(f"status {got.status_code}")
            elif self.i % 5 == 0:
                self.client.get(f"{self.path}/lines", headers=self.headers, name="lines")
            else:
                self.client.get(f"{self.path}/turn", headers=self.headers, name="turn")

    class Writer(FastHttpUser):
        wait_time = constant_throughput(spec["write_rate"])
        abstract = True

        def on_start(self) -> None:
            k = next(writer_numbers)
            self.headers = {"Authorization": f"Bearer {writers[k]}"}
            self.path = f"/api/notebooks/agent-{k % len(readers)}/lines"
            self.i = 0

        @task
        def add(self) -> None:
            self.i += 1
            body = {"text": f"bench line {self.i} of writer {self.headers['Authorization'][-6:]}", "source": "seen"}
            self.client.post(self.path, json={**body, "why": "bench"}, headers=self.headers, name="add")

    class Dad(FastHttpUser):
        wait_time = between(1, 2)
        abstract = True

        @task
        def card(self) -> None:
            self.client.get("/notebooks/card/", headers={"Cookie": f"sessionid={spec['dad_session']}"}, name="card")

    writer_numbers = count()
    made = []
    for role, base, total in (
        (Reader, "Reader", spec["readers"]),
        (Writer, "Writer", spec["writers"]),
        (Dad, "Dad", 1),
    ):
        for h, host in enumerate(hosts):
            share = total // len(hosts) + (1 if h < total % len(hosts) else 0)
            if role is Dad and h > 0:
                share = 0  # one Dad, on the first host
            if share:
                made.append(type(f"{base}{h}", (role,), {"host": host, "fixed_count": share, "abstract": False}))
    return made


def main() -> None:
    spec = json.loads(open(sys.argv[1]).read())
    latencies: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, list[str]] = defaultdict(list)
    state = {"measuring": False}

    @events.request.add_listener
    def on_request(request_type, name, response_time, response_length, exception, **kwargs):  # noqa: ANN001, ANN202
        if not state["measuring"]:
            return
        if exception is not None:
            errors[name].append(str(exception)[:200])
        else:
            latencies[name].append(response_time)

    classes = user_classes(spec)
    env = Environment(user_classes=classes, events=events)
    runner = env.create_local_runner()
    users = sum(c.fixed_count for c in classes)
    runner.start(users, spawn_rate=1000)
    gevent.sleep(spec["warmup"])
    state["measuring"], started = True, time.monotonic()
    gevent.sleep(spec["seconds"])
    state["measuring"] = False
    elapsed = time.monotonic() - started
    runner.quit()
    out = {
        "seconds": elapsed,
        "users": users,
        "kinds": {
            name: {"ms": latencies.get(name, []), "errors": errors.get(name, [])}
            for name in sorted(set(latencies) | set(errors))
        },
    }
    with open(sys.argv[2], "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
