"""The agent's side: token, token-revoke, tokens, take, checkpoint, land, withdraw, abandon, sessions, mcp."""

import json
import time

from django.core.management.base import BaseCommand

from notebooks.agents import answers, paging, tokens
from notebooks.cli import AFTER, JSON, LIMIT, TITLE, Commands, arg, more_after, rows, shown
from notebooks.log.identity.roles import Actor, actor_named
from notebooks.log.rules.errors import Forbidden
from notebooks.models import Token
from notebooks.sessions import services as sessions
from notebooks.sessions.states import STATES

BY = arg("--by", required=True)
command = Commands()


@command(arg("actor"), arg("--editor", action="store_true", help="the human editor's role (the actor must hold it)"))
def token(cmd: BaseCommand, o: dict) -> None:
    """Issue an API token for an actor; the token is printed once, on the last line."""
    issued = tokens.issue(actor=o["actor"], editor=o["editor"])
    t = issued.token
    cmd.stdout.write(f"token #{t.pk} for {t.actor} ({t.role}); it is shown once, keep it secret:")
    cmd.stdout.write(issued.secret)


@command(
    arg("token", nargs="?"),
    arg("--actor", help="revoke every live token of this actor"),
    arg("--why", default="", help="the reason"),
)
def token_revoke(cmd: BaseCommand, o: dict) -> None:
    """Revoke a token (its secret, hint or id) or every token of an actor."""
    for t in tokens.revoke(token=o["token"], actor=o["actor"], why=o["why"]):
        cmd.stdout.write(f"revoked token #{t.pk} ({t.hint}…) of {t.actor}")


@command()
def tokens_(cmd: BaseCommand, o: dict) -> None:
    """List the tokens (never their secrets)."""
    for t in Token.objects.order_by("pk"):
        state = f"revoked {t.revoked_at:%Y-%m-%d %H:%M}" if t.revoked_at else "live"
        cmd.stdout.write(f"#{t.pk} {t.hint}… {t.actor} {t.role} created {t.created_at:%Y-%m-%d %H:%M} {state}")


@command(TITLE, arg("--plan", required=True), arg("--by", required=True, help="the actor"))
def take(cmd: BaseCommand, o: dict) -> None:
    """Take a session: claim a notebook; pending drift is recorded, then base = its head."""
    taken = sessions.take(notebook=o["title"], plan=o["plan"], by=o["by"])
    drift = f"; recorded {rows(taken.drift, 'pending row')} as drift" if taken.drift else ""
    cmd.stdout.write(f"took session #{taken.id} on {taken.notebook!r} at base seq {taken.base}{drift}")


@command(arg("session", type=int), arg("--note", required=True), BY)
def checkpoint(cmd: BaseCommand, o: dict) -> None:
    """Checkpoint a session: recovery evidence only, it moves no base."""
    done = sessions.checkpoint(session=o["session"], note=o["note"], by=o["by"])
    cmd.stdout.write(f"checkpoint of session #{done.id} at seq {done.head} (base stays {done.base})")


@command(
    arg("session", type=int), arg("--summary", help="what the session changed (required unless it wrote nothing)"), BY
)
def land(cmd: BaseCommand, o: dict) -> None:
    """Land a session: its rows become one semantic change, others' rows are drift."""
    done = sessions.land(session=o["session"], summary=o["summary"], by=o["by"])
    if done.result == "no-op":
        cmd.stdout.write(f"session #{done.id}: no-op (it wrote nothing); {rows(done.drift)} of drift recorded")
    else:
        cmd.stdout.write(f"landed session #{done.id}: {rows(done.rows)} as one change, {rows(done.drift)} of drift")


@command(
    arg("session", type=int), arg("--seq", type=int, required=True, help="the proposal to take back (its row's seq)"),
    arg("--why", required=True), BY,
)  # fmt: skip
def withdraw(cmd: BaseCommand, o: dict) -> None:
    """Withdraw one proposal of an open session; it stays in the log and no longer counts."""
    done = sessions.withdraw(session=o["session"], proposal=o["seq"], why=o["why"], by=o["by"])
    cmd.stdout.write(
        f"withdrew proposal seq {done.proposal} ({done.proposes} of line #{done.n}) from session #{done.id}; "
        f"{rows(done.rows)} still to land"
    )


@command(arg("session", type=int), arg("--why", required=True), BY)
def abandon(cmd: BaseCommand, o: dict) -> None:
    """Abandon a session; its rows stay in the log."""
    done = sessions.abandon(session=o["session"], why=o["why"], by=o["by"])
    cmd.stdout.write(f"abandoned session #{done.id}; its {rows(done.rows)} stay in the log")


@command(arg("--state", choices=STATES), AFTER, LIMIT, JSON)
def sessions_(cmd: BaseCommand, o: dict) -> None:
    """List sessions, newest first, with their change and drift counts, a page of them; --json prints the API's
    answer to GET /api/sessions."""
    after, limit = paging.read("sessions", o["after"], o["limit"], names=("--after", "--limit"))
    answer = answers.session_list(state=o["state"], after=after, limit=limit)
    if o["json"]:
        cmd.stdout.write(json.dumps(answer.model_dump(mode="json"), ensure_ascii=False, indent=1))
        return
    for s in answer.sessions:
        lapsed = f" (lapsed {_when(s.lapsed_at)})" if s.lapsed_at is not None and s.state == "lapsed" else ""
        cmd.stdout.write(
            f"#{s.id} {s.state:<9} {s.notebook!r} by {s.actor} base {s.base}{lapsed}: "
            f"{rows(s.change_rows)} of change, {s.drift_rows} of drift; plan: {shown(s.plan)}"
        )
    more_after(cmd, answer)


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(at))


@command(
    arg("--actor", required=True),
    arg("--editor", action="store_true", help="act as the human editor (the actor must hold the role)"),
)
def mcp(cmd: BaseCommand, o: dict) -> None:
    """Serve the MCP tools on standard input and output for one actor."""
    from notebooks.agents import mcp_server

    if o["editor"] and not actor_named(o["actor"]).editor:
        raise Forbidden(f"{o['actor']} does not hold the human editor's role.")
    mcp_server.serve(Actor(name=o["actor"], editor=o["editor"]))
