"""A session's proposal taken back by its holder: which one may be, and the refusal when it may not."""

from collections.abc import Mapping, Sequence
from typing import Any

from notebooks.log.rules.errors import Conflict, NotFound


def withdrawal(
    proposals: Sequence[Mapping[str, Any]], seq: int, *, session: int, withdrawn: Mapping[int, str]
) -> Mapping[str, Any]:
    """The proposal a withdraw takes back from `session`'s `proposals` (log order; `withdrawn`: seq -> by whom), or
    the refusal: a later proposal still counting that builds on its line must be withdrawn first."""
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
    n = found["n"]
    later = next(
        (p for p in proposals if p["seq"] > seq and p["seq"] not in withdrawn and n in (p["n"], p.get("into"))), None
    )
    if later is not None:
        raise Conflict(
            f"Proposal seq {later['seq']} of session #{session} ({later['proposes']} of line #{later['n']}) builds on "
            f"line #{n} as seq {seq} leaves it: withdraw seq {later['seq']} first.",
            session=session,
            proposal=seq,
        )
    return found
