"""Similar lines: `similar` lists the groups of live lines that probably say one thing or contradict each other;
`not-alike` records Dad's word that a group's lines are not alike (its own append-only table, never the log), and
`undo-not-alike` takes it back."""

import json

from django.core.management.base import BaseCommand

from notebooks.cli import TITLE, Commands, arg
from notebooks.log.views import selectors
from notebooks.similar import selectors as similar
from notebooks.similar import services

EXITS = "Exit status: 0 done, 2 bad input, 3 not the editor, 4 no such notebook, line or mark, 5 already undone."
BY = arg("--by", required=True, help="the editor")
WHY = arg("--why", default="", help="the reason (optional)")
command = Commands(exits=EXITS)


@command(
    TITLE,
    arg("--json", action="store_true", help='print {"groups": [{"lines", "kind", "score"}, ...]}'),
    arg(
        "--all",
        action="store_true",
        help="compare every live line, past NOTEBOOK_SIMILAR_LINES and NOTEBOOK_SIMILAR_CHARACTERS (the card's budget)",
    ),
    description="List groups of live lines that probably repeat or contradict each other, best first (a read: it "
    "writes nothing). Exit status: 0 done (no groups too), 2 bad input, 4 no such notebook.",
)
def similar_(cmd: BaseCommand, o: dict) -> None:
    """List groups of live lines that probably repeat or contradict each other, best first."""
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


@command(TITLE, arg("numbers", type=int, nargs="+", metavar="N"), BY, WHY)
def not_alike(cmd: BaseCommand, o: dict) -> None:
    """Record that these lines are not alike: a group of only them is not offered again."""
    mark = services.mark_not_alike(notebook=o["title"], numbers=o["numbers"], by=o["by"], why=o["why"])
    shown = services.listed(mark.lines)
    cmd.stdout.write(f"marked {shown} not alike (mark {mark.pk}; undo with: notebook undo-not-alike TITLE {mark.pk})")


@command(TITLE, arg("mark", type=int, help="the mark's number, as not-alike printed it"), BY, WHY)
def undo_not_alike(cmd: BaseCommand, o: dict) -> None:
    """Take back a not-alike mark (a new row): its group is offered again."""
    row = services.undo_not_alike(notebook=o["title"], mark_id=o["mark"], by=o["by"], why=o["why"])
    shown = services.listed(row.lines)
    cmd.stdout.write(f"undid mark {o['mark']}: {shown} may be offered as alike again (row {row.pk})")
