"""Sign-in attempts from a process of its own (tests/card/test_signin_throttle.py), through Django's whole request path.

Run as `python -m tests.signin_attempts PASSWORD [--threads N] [--times K] [--together] …` with DATABASE_URL naming
a migrated database: N threads each post K attempts, all starting together (with --together, once Django is set up
it prints "ready" to stderr and starts at the epoch seconds read from stdin, so that processes overlap); prints the
status codes as one JSON list, then the failures counted for the username+address and for the address.
"""

import argparse
import json
import os
import sys
import threading
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("password")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--times", type=int, default=1)
    parser.add_argument("--together", action="store_true", help="start at the epoch seconds read from stdin")
    parser.add_argument("--username", default="dad")
    parser.add_argument("--address", default="10.0.0.1")
    parser.add_argument("--set-password", help="give the user this password first")
    args = parser.parse_args()

    # The suite's settings (a fast hasher, static files without a manifest) and the test client's host name.
    os.environ.update(DJANGO_SETTINGS_MODULE="notebook_site.settings_test", ALLOWED_HOSTS="testserver")
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client

    from notebooks.card import throttle

    if args.set_password:
        user = User.objects.get(username=args.username)
        user.set_password(args.set_password)
        user.save()
    codes: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(args.threads)
    at = 0.0
    if args.together:
        print("ready", file=sys.stderr, flush=True)
        at = float(sys.stdin.readline())

    def attempts() -> None:
        client = Client()
        start.wait()
        time.sleep(max(0.0, at - time.time()))
        for _ in range(args.times):
            form = {"username": args.username, "password": args.password}
            code = client.post("/accounts/login/", form, REMOTE_ADDR=args.address).status_code
            with lock:
                codes.append(code)
        connection.close()

    threads = [threading.Thread(target=attempts) for _ in range(args.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    pair = throttle.failures(throttle.key("pair", args.username.casefold(), args.address))
    print(
        json.dumps(
            {"codes": sorted(codes), "pair": pair, "address": throttle.failures(throttle.key("addr", args.address))}
        )
    )


if __name__ == "__main__":
    main()
