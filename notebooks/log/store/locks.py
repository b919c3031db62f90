"""One lock per notebook, held until the transaction ends: every writer of a notebook's log takes it first. On
PostgreSQL an advisory lock (FOR UPDATE needs UPDATE privilege, which the app's role lacks on the log:
docs/POSTGRES.md); SQLite's IMMEDIATE transactions already serialise writers.
"""

from django.db import connection

from notebooks.models import Notebook

# The two-key form keeps these apart from single-key advisory locks (e.g. sessions' global lock).
NOTEBOOK_LOCK_CLASS = 0x6E62  # "nb"
LOCK_KEY_MASK = 0x7FFFFFFF  # a notebook's id as the lock's second key (an integer)


# PostgreSQL: the notebook's id, found by title and locked in one statement (a round trip less for an add).
LOCK_BY_TITLE = (
    f"SELECT nb.id, pg_advisory_xact_lock({NOTEBOOK_LOCK_CLASS}, (nb.id & {LOCK_KEY_MASK})::integer) "
    "FROM notebooks_notebook nb WHERE nb.title = %s"
)


def lock_notebook(notebook: Notebook) -> Notebook:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [NOTEBOOK_LOCK_CLASS, notebook.pk & LOCK_KEY_MASK])
    return notebook
