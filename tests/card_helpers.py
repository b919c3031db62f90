"""Small helpers shared by the card's view tests."""

from django.db import connection

HX = {"HTTP_HX_REQUEST": "true"}


def rows() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM notebooks_row")
        return cursor.fetchone()[0]


def url(n: int | None = None, action: str = "", title: str = "zelda") -> str:
    base = f"/notebooks/{title}/"
    if n is None:
        return base + (f"{action}/" if action else "")
    return base + f"lines/{n}/" + (f"{action}/" if action else "")
