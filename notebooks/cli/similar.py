"""Similar lines: `similar` lists the groups of live lines that probably say one thing or contradict each other;
`not-alike` records Dad's word that a group's lines are not alike (its own append-only table, never the log), and
`undo-not-alike` takes it back."""

import json
from typing import Any

from django.core.management.base import BaseCommand

from notebooks.log.views import selectors
from notebooks.similar import selectors as similar
from notebooks.similar import services

EXITS = "Exit status: 0 done, 2 bad input, 3 not the editor, 4 no such notebook, line or mark, 5 already undone."


def register(subparsers: Any, command: BaseCommand) -> None:
    def sub(name: str, handler: Any, help: str) -> Any:
        parser = subparsers.add_parser(name, help=help, description=f"{help} {EXITS}")
        parser.set_defaults(handler=handler)
        return parser

    p = sub("similar", similar_, "List groups of live lines that probably repeat or contradict each other, best first.")
    p.add_argument("title")
    p.add_argument("--json", action="store_true", help='print {"groups": [{"lines", "kind", "score"}, ...]}')
    p.add_argument(
        "--all",
        action="store_true",
        help="compare every live line, past NOTEBOOK_SIMILAR_LINES and NOTEBOOK_SIMILAR_CHARACTERS (the card's budget)",
    )

    p = sub("not-alike", not_alike, "Record that these lines are not alike: a group of only them is not offered again.")
    p.add_argument("title")
    p.add_argument("numbers", type=int, nargs="+", metavar="N")
    p.add_argument("--by", required=True, help="the editor")
    p.add_argument("--why", default="", help="the reason (optional)")

    p = sub("undo-not-alike", undo_not_alike, "Take back a not-alike mark (a new row): its group is offered again.")
    p.add_argument("title")
    p.add_argument("mark", type=int, help="the mark's number, as not-alike printed it")
    p.add_argument("--by", required=True, help="the editor")
    p.add_argument("--why", default="", help="the reason (optional)")


def similar_(cmd: BaseCommand, o: dict) -> None:
    nb = selectors.get_notebook(o["title"])
    limit = similar.UNBOUNDED if o["all"] else similar.budget()
    found = similar.groups_for(nb, limit)
    compared = similar.compared_for(nb, limit)
    if compared.cut:
        cmd.stderr.write(f"{compared.said} (--all compares every line.)")
    if o["json"]:
        answer: dict = {"groups": [g.as_dict() for g in found]}
        if compared.cut:  # how many of the lines the groups were made from
            answer.update(compared=compared.lines, of=compared.of)
        cmd.stdout.write(json.dumps(answer))
        return
    if not found:
        cmd.stderr.write("(no similar lines)")
        return
    lines = {line.n: line for line in selectors.view(nb)}
    for i, group in enumerate(found, start=1):
        if i > 1:
            cmd.stdout.write("")
        cmd.stdout.write(f"{i}. {group.kind}, score {group.score:.2f}, {len(group.lines)} lines")
        for n in group.lines:
            line = lines[n]
            cmd.stdout.write(f"   #{n} [{line.source}] {line.text}")


def not_alike(cmd: BaseCommand, o: dict) -> None:
    mark = services.mark_not_alike(notebook=o["title"], numbers=o["numbers"], by=o["by"], why=o["why"])
    shown = ", ".join(f"#{n}" for n in mark.lines)
    cmd.stdout.write(f"marked {shown} not alike (mark {mark.pk}; undo with: notebook undo-not-alike TITLE {mark.pk})")


def undo_not_alike(cmd: BaseCommand, o: dict) -> None:
    row = services.undo_not_alike(notebook=o["title"], mark_id=o["mark"], by=o["by"], why=o["why"])
    shown = ", ".join(f"#{n}" for n in row.lines)
    cmd.stdout.write(f"undid mark {o['mark']}: {shown} may be offered as alike again (row {row.pk})")
