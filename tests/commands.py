"""Management commands against one database, run one after another in one long-lived process.

Tests that run many `manage.py` commands against a scratch database (the browser tests' seeds, a restore's checks)
send them here: each process start loads Django and the app, seconds apiece on a busy machine. Each request is
one JSON list of arguments on stdin, each answer one JSON object on stdout. Before each command the process
forgets what it remembers of earlier ones, as a fresh `manage.py` would.
"""

import contextlib
import io
import json
import os
import sys
import traceback


def _forget() -> None:
    from notebooks.log.store import fast_add
    from notebooks.log.views import turn_reads
    from notebooks.sessions import leases
    from notebooks.similar import selectors as similar_selectors

    fast_add.forget()
    turn_reads.forget()
    similar_selectors.forget()
    leases.forget()


def main() -> None:
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # anything else written to stdout goes to stderr, never into an answer
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    answers.write(json.dumps({"ready": True}) + "\n")
    answers.flush()
    for request in sys.stdin:
        args = json.loads(request)
        out, err = io.StringIO(), io.StringIO()
        ok = True
        _forget()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                call_command(*args, stdout=out, stderr=err)
        except SystemExit as exc:
            ok = exc.code in (0, None)
        except Exception:  # noqa: BLE001 — the test that sent the command reads the traceback
            ok = False
            err.write(traceback.format_exc())
        finally:
            connections.close_all()
        answers.write(json.dumps({"ok": ok, "out": out.getvalue(), "err": err.getvalue()}) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
