"""The agent's side: token, token-revoke, tokens, take, checkpoint, land, abandon, sessions, mcp."""

import json
import time
from typing import Any

from django.core.management.base import BaseCommand

from notebooks.agents import tokens
from notebooks.cli import rows, shown
from notebooks.log.identity.roles import Actor, actor_named
from notebooks.log.rules.errors import Forbidden
from notebooks.models import Token
from notebooks.sessions import selectors as session_selectors
from notebooks.sessions import services as sessions


def register(subparsers: Any, command: BaseCommand) -> None:
    def sub(name: str, handler: Any, help: str) -> Any:
        parser = subparsers.add_parser(name, help=help, description=help)
        parser.set_defaults(handler=handler)
        return parser

    p = sub("token", token, "Issue an API token for an actor; the token is printed once, on the last line.")
    p.add_argument("actor")
    p.add_argument("--editor", action="store_true", help="the human editor's role (the actor must hold it)")

    p = sub("token-revoke", token_revoke, "Revoke a token (its secret, hint or id) or every token of an actor.")
    p.add_argument("token", nargs="?")
    p.add_argument("--actor", help="revoke every live token of this actor")
    p.add_argument("--why", default="", help="the reason")

    sub("tokens", tokens_list, "List the tokens (never their secrets).")

    p = sub("take", take, "Take a session: claim a notebook; pending drift is recorded, then base = its head.")
    p.add_argument("title")
    p.add_argument("--plan", required=True)
    p.add_argument("--by", required=True, help="the actor")

    p = sub("checkpoint", checkpoint, "Checkpoint a session: recovery evidence only, it moves no base.")
    p.add_argument("session", type=int)
    p.add_argument("--note", required=True)
    p.add_argument("--by", required=True)

    p = sub("land", land, "Land a session: its rows become one semantic change, others' rows are drift.")
    p.add_argument("session", type=int)
    p.add_argument("--summary", help="what the session changed (required unless it wrote nothing)")
    p.add_argument("--by", required=True)

    p = sub("abandon", abandon, "Abandon a session; its rows stay in the log.")
    p.add_argument("session", type=int)
    p.add_argument("--why", required=True)
    p.add_argument("--by", required=True)

    p = sub("sessions", sessions_list, "List sessions, newest first, with their change and drift counts.")
    p.add_argument("--state", choices=["open", "landed", "no-op", "abandoned", "lapsed"])
    p.add_argument("--json", action="store_true")

    p = sub("mcp", mcp, "Serve the MCP tools on standard input and output for one actor.")
    p.add_argument("--actor", required=True)
    p.add_argument("--editor", action="store_true", help="act as the human editor (the actor must hold the role)")


def token(cmd: BaseCommand, o: dict) -> None:
    issued = tokens.issue(actor=o["actor"], editor=o["editor"])
    t = issued.token
    cmd.stdout.write(f"token #{t.pk} for {t.actor} ({t.role}); it is shown once, keep it secret:")
    cmd.stdout.write(issued.secret)


def token_revoke(cmd: BaseCommand, o: dict) -> None:
    for t in tokens.revoke(token=o["token"], actor=o["actor"], why=o["why"]):
        cmd.stdout.write(f"revoked token #{t.pk} ({t.hint}…) of {t.actor}")


def tokens_list(cmd: BaseCommand, o: dict) -> None:
    for t in Token.objects.order_by("pk"):
        state = f"revoked {t.revoked_at:%Y-%m-%d %H:%M}" if t.revoked_at else "live"
        cmd.stdout.write(f"#{t.pk} {t.hint}… {t.actor} {t.role} created {t.created_at:%Y-%m-%d %H:%M} {state}")


def take(cmd: BaseCommand, o: dict) -> None:
    taken = sessions.take(notebook=o["title"], plan=o["plan"], by=o["by"])
    drift = f"; recorded {rows(taken.drift, 'pending row')} as drift" if taken.drift else ""
    cmd.stdout.write(f"took session #{taken.id} on {taken.notebook!r} at base seq {taken.base}{drift}")


def checkpoint(cmd: BaseCommand, o: dict) -> None:
    done = sessions.checkpoint(session=o["session"], note=o["note"], by=o["by"])
    cmd.stdout.write(f"checkpoint of session #{done.id} at seq {done.head} (base stays {done.base})")


def land(cmd: BaseCommand, o: dict) -> None:
    done = sessions.land(session=o["session"], summary=o["summary"], by=o["by"])
    if done.result == "no-op":
        cmd.stdout.write(f"session #{done.id}: no-op (it wrote nothing); {rows(done.drift)} of drift recorded")
    else:
        cmd.stdout.write(f"landed session #{done.id}: {rows(done.rows)} as one change, {rows(done.drift)} of drift")


def abandon(cmd: BaseCommand, o: dict) -> None:
    done = sessions.abandon(session=o["session"], why=o["why"], by=o["by"])
    cmd.stdout.write(f"abandoned session #{done.id}; its {rows(done.rows)} stay in the log")


def sessions_list(cmd: BaseCommand, o: dict) -> None:
    views = session_selectors.recent(limit=100, state=o["state"])
    if o["json"]:
        cmd.stdout.write(json.dumps([v.as_dict() for v in views], ensure_ascii=False, indent=1))
        return
    for v in views:
        s = v.session
        lapsed = f" (lapsed {_when(v.lapsed_at)})" if v.lapsed_at is not None and v.state == "lapsed" else ""
        cmd.stdout.write(
            f"#{s.pk} {v.state:<9} {s.notebook.title!r} by {s.actor} base {s.base}{lapsed}: "
            f"{rows(v.change_total)} of change, {v.drift_total} of drift; plan: {shown(s.plan)}"
        )


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(at))


def mcp(cmd: BaseCommand, o: dict) -> None:
    from notebooks.agents import mcp_server

    actor = Actor(name=o["actor"], editor=False)
    if o["editor"]:
        if not actor_named(o["actor"]).editor:
            raise Forbidden(f"{o['actor']} does not hold the human editor's role.")
        actor = Actor(name=o["actor"], editor=True)
    mcp_server.serve(actor)
