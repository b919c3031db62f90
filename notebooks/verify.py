"""Checks that a notebook's log is what its writers wrote: contiguous seqs, an unbroken hash chain,
words that match their digests, times that never go backwards."""

from django.db import connection

from . import log
from .models import Notebook


def verify_chain(notebook: Notebook) -> list[str]:
    problems: list[str] = []
    prev, expected_seq, last_at = log.GENESIS, 1, 0.0
    with connection.cursor() as cursor:
        cursor.execute(
            'SELECT r.seq, r.op, r.n, r.digest, r.source, r."by", r.why, r.how, r."into", r.at, r.was_at, r.was_by, '
            "r.prev_hash, r.hash, w.body FROM notebooks_row r LEFT JOIN notebooks_words w "
            "ON w.notebook_id = r.notebook_id AND w.digest = r.digest AND r.digest <> '' "
            "WHERE r.notebook_id = %s ORDER BY r.seq",
            [notebook.pk],
        )
        names = [c[0] for c in cursor.description]
        while batch := cursor.fetchmany(5000):
            for values in batch:
                row = dict(zip(names, values, strict=True))
                seq = row["seq"]
                where = f"{notebook.title}: seq {seq}"
                if seq != expected_seq:
                    problems.append(f"{where}: expected seq {expected_seq} (a row is missing or inserted)")
                if row["prev_hash"] != prev:
                    problems.append(f"{where}: does not follow the row before it (chain broken)")
                if log.row_hash(row["prev_hash"], row) != row["hash"]:
                    problems.append(f"{where}: content does not match its hash (row changed)")
                if row["digest"] and row["body"] is not None and log.digest_of(row["body"]) != row["digest"]:
                    problems.append(f"{where}: words do not match their digest (words changed)")
                if row["at"] < last_at:
                    problems.append(f"{where}: recorded before the row ahead of it (time went backwards)")
                prev, expected_seq, last_at = row["hash"], seq + 1, row["at"]
    return problems
