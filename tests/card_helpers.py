"""Small helpers shared by the card's view tests, and the messy zelda of the Similar view's tests."""

from django.db import connection

from notebooks.log import services

HX = {"HTTP_HX_REQUEST": "true"}
SHIELD = "Buy the Deku Shield in Kokiri Forest before entering the Deku Tree."
SHIELD_TOO = "get a deku shield from the kokiri shop first, the Deku Tree needs it"
LEFT = "In the Lost Woods, take the left path at the first fork to reach the meadow."
RIGHT = "Lost Woods: the right path at the first fork leads to the meadow."
ZORA = "The Zora Tunic lets Link breathe underwater."


def rows() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM notebooks_row")
        return cursor.fetchone()[0]


def url(n: int | None = None, action: str = "", title: str = "zelda") -> str:
    base = f"/notebooks/{title}/"
    if n is None:
        return base + (f"{action}/" if action else "")
    return base + f"lines/{n}/" + (f"{action}/" if action else "")


def add_messy() -> None:
    """zelda: #1 and #3 say one thing (hers: seen, guessed), #2 stands alone, #4 and #5 contradict (seen, dad)."""
    for text, source, by in (
        (SHIELD, "seen", "pippa"),
        (ZORA, "seen", "pippa"),
        (SHIELD_TOO, "guessed", "pippa"),
        (LEFT, "seen", "pippa"),
        (RIGHT, "dad", "dad"),
    ):
        services.add(notebook="zelda", text=text, source=source, by=by, why="seen")
