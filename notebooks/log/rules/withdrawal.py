"""A session's proposal taken back by its holder: which one may be, and the refusal when it may not."""

from collections.abc import Mapping, Sequence
from typing import Any

from notebooks.log.rules.decision import MERGED
from notebooks.log.rules.errors import Conflict, NotFound


def withdrawal(
    proposals: Sequence[Mapping[str, Any]], seq: int, *, session: int, withdrawn: Mapping[int, str]
) -> list[Mapping[str, Any]]:
    """The proposals a withdraw of `seq` takes back from `session`'s `proposals` (log order; `withdrawn`: seq -> by
    whom), the one named first, or the refusal. A merge is taken back whole, by its merged line's add; a later
    proposal still counting that builds on a line as they leave it must be withdrawn first."""
    found = next((p for p in proposals if p["seq"] == seq), None)
    if found is None:
        raise NotFound(
            f"Seq {seq} is no proposal of session #{session}; its proposals are the rows of its change "
            f"(GET /api/sessions/{session}).",
            session=session,
            proposal=seq,
        )
    if seq in withdrawn:
        raise Conflict(
            f"Proposal seq {seq} of session #{session} was already withdrawn by {withdrawn[seq]}; it no longer "
            "counts and nothing was changed.",
            session=session,
            proposal=seq,
        )
    counting = [p for p in proposals if p["seq"] not in withdrawn]
    if _merged(found):
        add = next((p for p in counting if p["proposes"] == "add" and p["n"] == found["into"]), None)
        if add is not None:
            raise Conflict(
                f"Proposal seq {seq} of session #{session} is one part of the merge into line #{found['into']}: a "
                f"merge is taken back whole. Withdraw seq {add['seq']}, the merged line's add, to take back all of it.",
                session=session,
                proposal=seq,
            )
    parts = [found]
    if found["proposes"] == "add":
        parts += [p for p in counting if p["seq"] > seq and _merged(p) and p["into"] == found["n"]]
    taken = {p["seq"] for p in parts}
    for part in parts:
        n = part["n"]
        later = next(
            (p for p in counting if p["seq"] > part["seq"] and p["seq"] not in taken and n in (p["n"], p.get("into"))),
            None,
        )
        if later is not None:
            raise Conflict(
                f"Proposal seq {later['seq']} of session #{session} ({later['proposes']} of line #{later['n']}) "
                f"builds on line #{n} as seq {part['seq']} leaves it: withdraw seq {later['seq']} first.",
                session=session,
                proposal=seq,
            )
    return parts


def _merged(proposal: Mapping[str, Any]) -> bool:
    return proposal["proposes"] == "strike" and proposal.get("how") == MERGED
