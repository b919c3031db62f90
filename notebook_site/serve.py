"""`python -m notebook_site.serve` (`make serve`): the web server WEB_SERVER names, and the vault watcher beside it when
NOTEBOOK_VAULT is set. SIGTERM or SIGINT stops both; if either exits, so does the other, with the first one's status
(for a supervisor to restart the pair)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from notebook_site.web_servers import command, server_name

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    server = server_name(os.environ)
    run = [command(os.environ)]
    if os.environ.get("NOTEBOOK_VAULT"):
        interval = os.environ.get("NOTEBOOK_VAULT_INTERVAL", "2")
        run.append([sys.executable, str(ROOT / "manage.py"), "notebook", "vault", "watch", "--interval", interval])
    procs = [subprocess.Popen(cmd, cwd=ROOT) for cmd in run]
    stopping: list[int] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, frame: stopping.append(signum))
    status = 0
    while not stopping:
        ended = [p for p in procs if p.poll() is not None]
        if ended:
            status = ended[0].returncode or 1  # one of the pair gone is a failure, even with status 0
            name = server if ended[0] is procs[0] else "the vault watcher"
            print(f"serve: {name} exited {ended[0].returncode}; stopping the rest", file=sys.stderr)
            break
        time.sleep(0.2)
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)  # the server finishes its requests (10 s); the watcher its sweep
    deadline = time.monotonic() + 30
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return status


if __name__ == "__main__":
    sys.exit(main())
