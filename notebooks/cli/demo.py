"""A small demo notebook (JSON Lines) spread over the last days, so a fresh card has something to show."""

import json
import time

DAY = 86400.0

# (days ago, op, fields): her seen lines grow day by day; Dad adds rules and corrects one line.
SCRIPT = [
    (9, "add", {"text": "The bridge guard swings twice; roll after the second swing.", "source": "seen"}),
    (9, "add", {"text": "Always attack first.", "source": "guessed"}),
    (9, "add", {"text": "Write only what the game taught you here.", "source": "dad", "by": "dad"}),
    (8, "add", {"text": "Torches burn out after a minute; light the next one in time.", "source": "seen"}),
    (7, "add", {"text": "The shop keeper sells arrows cheaper after the second dungeon.", "source": "guessed"}),
    (7, "add", {"text": "Bombs open the cracked walls on the third floor.", "source": "seen"}),
    (6, "edit", {"n": 2, "to": "Block first, then attack after his swing.", "why": "attacking first got her killed"}),
    (6, "add", {"text": "The look command was refused twice today.", "source": "seen"}),
    (5, "add", {"text": "Keese fly in a figure eight; wait at the crossing point.", "source": "seen"}),
    (5, "add", {"text": "Rupees under bushes respawn when you leave the screen.", "source": "seen"}),
    (4, "add", {"text": "Save before the boss door; the boss room locks behind you.", "source": "dad", "by": "dad"}),
    (3, "add", {"text": "The boss is weak to arrows while his shield is raised.", "source": "seen"}),
    (3, "add", {"text": "Lava tiles hurt even at the edge.", "source": "seen"}),
    (2, "add", {"text": "Potions heal more when used at low health.", "source": "guessed"}),
    (2, "add", {"text": "Hidden rooms sound hollow when struck with the sword.", "source": "seen"}),
    (1, "add", {"text": "The river raft only runs east.", "source": "seen"}),
    (1, "add", {"text": "Stalfos reassemble unless you bomb the bones.", "source": "seen"}),
    (0, "add", {"text": "Ice floors: tap the direction, do not hold it.", "source": "seen"}),
]


def rows() -> list[str]:
    now = time.time()
    out, n = [], 0
    for i, (ago, op, fields) in enumerate(SCRIPT):
        at = now - ago * DAY - 3600 + i  # an hour back, in order
        row = {"op": op, "at": at, **fields}
        if op == "add":
            n += 1
            row.setdefault("n", n)
            row.setdefault("by", "pippa")
            row.setdefault("why", "seen in play" if fields["source"] == "seen" else "a hint")
        else:
            row.setdefault("by", "dad")
        out.append(json.dumps(row))
    return out
