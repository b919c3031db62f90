"""Sign-in throttling counts every attempt, however parallel, in every worker process: the count lives in the
database they share, and an attempt is counted before its password is checked (notebooks/card/throttle.py).
Each attempt here goes through Django's whole request path in processes of their own, on the suite's database."""

import json
import subprocess
import time

from django.db import connection

from notebooks.card import throttle
from tests.databases import Scratch, act_as_app_role


def attempts(db: Scratch, *args: str, **env: str) -> dict:
    return json.loads(db.run("-m", "tests.signin_attempts", *args, env=db.env(**env)).stdout)


def overlapping(db: Scratch, processes: int, *args: str, **env: str) -> list[dict]:
    """The same attempts from several processes at once, starting together once each has Django set up."""
    command = ("-m", "tests.signin_attempts", *args, "--together")
    running = [db.start(*command, env=db.env(**env), stdin=subprocess.PIPE) for _ in range(processes)]
    for proc in running:
        said = [proc.stderr.readline()]
        while said[-1] not in ("ready\n", ""):  # a warning may come first; "" is the end of its stderr
            said.append(proc.stderr.readline())
        if said[-1] == "":
            for other in running:
                other.kill()
            raise AssertionError(f"an attempts process ended before it was ready:\n{''.join(said)}")
    at = f"{time.time() + 0.3}\n"  # every process is waiting: a moment to read this
    for proc in running:
        proc.stdin.write(at)
        proc.stdin.flush()
    outs = []
    for proc in running:
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        outs.append(json.loads(out))
    return outs


def test_parallel_wrong_passwords_from_two_processes_are_each_counted(scratch_db):
    db = scratch_db()
    high = {"SIGNIN_MAX_FAILURES": "100", "SIGNIN_MAX_FAILURES_PER_ADDRESS": "100"}
    outs = overlapping(db, 2, "wrong", "--threads", "6", **high)
    assert [out["codes"] for out in outs] == [[200] * 6, [200] * 6]
    after = attempts(db, "wrong", **high)
    assert (after["pair"], after["address"]) == (13, 13)


def test_parallel_guesses_beyond_the_limit_are_refused_before_their_password_is_checked(scratch_db):
    db = scratch_db()
    outs = overlapping(db, 2, "wrong", "--threads", "8")
    codes = sorted(code for out in outs for code in out["codes"])
    assert codes == [200] * 5 + [429] * 11  # SIGNIN_MAX_FAILURES is 5: only five passwords were checked
    assert attempts(db, "wrong")["codes"] == [429]


def test_failures_counted_in_one_process_block_the_right_password_in_another(scratch_db):
    db = scratch_db()
    first = attempts(db, "wrong", "--times", "5", "--set-password", "a-long-test-password")
    assert first["codes"] == [200] * 5
    assert attempts(db, "a-long-test-password")["codes"] == [429]
    assert attempts(db, "a-long-test-password", "--address", "10.0.0.2")["codes"] == [302]


def test_a_success_takes_its_own_attempt_back_from_the_address_count(scratch_db):
    db = scratch_db()
    done = attempts(db, "a-long-test-password", "--times", "3", "--set-password", "a-long-test-password")
    assert (done["codes"], done["pair"], done["address"]) == ([302] * 3, 0, 0)


def test_the_app_role_may_count_sign_in_failures(dad):
    pair, addr = throttle.key("pair", "dad", "10.0.0.1"), throttle.key("addr", "10.0.0.1")
    if connection.vendor == "postgresql":
        # The table is not the log's: least privilege gives the app role what counting needs (docs/POSTGRES.md).
        act_as_app_role("throttle_app")
    first = throttle.begin([(pair, 2), (addr, 50)])
    assert throttle.begin([(pair, 2), (addr, 50)]).wait is None
    assert throttle.begin([(pair, 2), (addr, 50)]).wait > 0
    assert (throttle.failures(pair), throttle.failures(addr)) == (2, 2)
    throttle.succeeded(first, clears=pair)
    assert (throttle.failures(pair), throttle.failures(addr)) == (0, 1)


def test_a_key_is_a_digest_that_any_username_fits():
    assert len(throttle.key("pair", "nul\x00" * 100 + "\udcff", "10.0.0.1")) == 64
    assert throttle.key("pair", "a", "b,c") != throttle.key("pair", "a,b", "c")
