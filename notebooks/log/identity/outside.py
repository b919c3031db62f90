"""Whom an outside row is by: proven by a writer key (writer_keys.py), never read from the row; an unproven row is
the outside agent's, or refused, as NOTEBOOK_VAULT_UNPROVEN says (docs/vault.md, "Outside writers")."""

from typing import Any

from notebooks.log.identity import signing, writer_keys
from notebooks.log.rules.checks import bounded
from notebooks.log.rules.errors import Conflict, Forbidden
from notebooks.models import Notebook, RowProof


class Authors:
    """One append's rows' authors: the proofs they carry, checked against the keys, and the macs they used."""

    def __init__(self, *, notebook: str) -> None:
        self.notebook = notebook
        self.policy, self.agent = writer_keys.unproven_policy()
        self._prove = writer_keys.prover(notebook=notebook)
        self._proofs: dict[int, tuple[str, str]] = {}  # file line -> (key id, mac)
        self._macs: dict[str, int] = {}  # mac -> the file line that used it in this batch

    def attribute(self, obj: dict[str, Any], claimed: str, line_no: int) -> tuple[str, bool]:
        """(whom the row is by, as the editor or not) for checked_rows: its key's actor, or the outside agent."""
        writer, why = self._prove(obj)
        if writer is None:
            if self.policy == "refuse":
                raise Forbidden(
                    bounded(
                        f"line {line_no}: the row proves no writer ({why}), and this vault refuses unproven rows "
                        "(NOTEBOOK_VAULT_UNPROVEN=refuse): sign it with a writer key (notebook key sign)"
                    )
                )
            return self.agent, False
        name = writer.actor.name
        if claimed and claimed != name:
            raise Forbidden(
                bounded(f"line {line_no}: the row says it is by {claimed}, but key {writer.key_id} is {name}'s")
            )
        mac = obj[signing.MAC]
        if mac in self._macs:
            raise Conflict(f"line {line_no}: the same signed row as line {self._macs[mac]} (a mac proves one row)")
        if RowProof.objects.filter(mac=mac).exists():
            raise Conflict(f"line {line_no}: this signed row is in the log already; a mac proves one row, once")
        self._macs[mac] = line_no
        self._proofs[line_no] = (writer.key_id, mac)
        return name, writer.actor.editor

    def record(self, notebook: Notebook, written: list[tuple[int, int]]) -> None:
        """Keep each proven row's key and mac beside the row (file line, seq) it became: a unique mac stops a replay."""
        proofs = [
            RowProof(notebook=notebook, seq=seq, key_id=self._proofs[line][0], mac=self._proofs[line][1])
            for line, seq in written
            if line in self._proofs
        ]
        if proofs:
            RowProof.objects.bulk_create(proofs)
