"""Seeds a database for `make bench-serve` (run with DJANGO_SETTINGS_MODULE set): the agents' notebooks, Dad's
1,000-line card, a token per agent and a signed-in session for Dad. Prints what the load needs as JSON."""

import json
import random
import sys
import time

import django

django.setup()

from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY  # noqa: E402
from django.contrib.auth.models import Group, User  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402

from bench.data import WORDS  # noqa: E402
from notebooks.agents import tokens  # noqa: E402
from notebooks.log.files.imports import import_notebook  # noqa: E402
from notebooks.log.identity.roles import EDITOR_GROUP  # noqa: E402


def rows(lines: int, rng: random.Random, start: float) -> list[str]:
    """`lines` adds by the agents and Dad, then an edit of every fifth line: a notebook with some history."""
    out, at = [], start
    for n in range(1, lines + 1):
        source = rng.choices(["seen", "guessed", "dad"], [6, 3, 1])[0]
        by = "dad" if source == "dad" else rng.choice(["pippa", "reflector"])
        text = " ".join(rng.choices(WORDS, k=rng.randint(6, 16)))
        at += 1
        out.append(json.dumps({"op": "add", "n": n, "text": text, "source": source, "by": by, "why": "seen", "at": at}))
    for n in range(5, lines + 1, 5):
        at += 1
        to = " ".join(rng.choices(WORDS, k=rng.randint(6, 16)))
        out.append(json.dumps({"op": "edit", "n": n, "to": to, "by": "dad", "why": "clearer words", "at": at}))
    return out


def main() -> None:
    agents, writers, agent_lines, card_lines = (int(x) for x in sys.argv[1:5])
    rng = random.Random(16)
    dad, _ = User.objects.get_or_create(username="dad")
    dad.groups.add(Group.objects.get_or_create(name=EDITOR_GROUP)[0])
    start = time.time() - 86_400
    for k in range(agents):
        import_notebook(title=f"agent-{k}", lines=rows(agent_lines, rng, start), by="dad")
    import_notebook(title="card", lines=rows(card_lines, rng, start), by="dad")
    session = SessionStore()
    session.update(
        {
            SESSION_KEY: str(dad.pk),
            BACKEND_SESSION_KEY: "django.contrib.auth.backends.ModelBackend",
            HASH_SESSION_KEY: dad.get_session_auth_hash(),
        }
    )
    session.create()
    print(
        json.dumps(
            {
                "readers": [tokens.issue(actor=f"reader-{k}", by="bench").secret for k in range(agents)],
                "writers": [tokens.issue(actor=f"writer-{k}", by="bench").secret for k in range(writers)],
                "dad_session": session.session_key,
            }
        )
    )


if __name__ == "__main__":
    main()
