"""The card writes a plain line in Python (notebook_card.line_item) for speed: the same markup as its partial."""

import re

import pytest
from django.template import Context
from django.template.loader import get_template

from notebooks.log import selectors
from notebooks.templatetags.notebook_card import line_item


def squeeze(html: str) -> str:
    return re.sub(r">\s+<", "><", re.sub(r"\s+", " ", html)).strip()


@pytest.mark.parametrize(("can_edit", "frozen"), [(True, False), (False, False), (True, True)])
def test_the_fast_line_is_the_partials_markup(lines, can_edit, frozen):
    line = selectors.live_line(lines, 2)
    values = {"n": 2, "line": line, "notebook": lines, "can_edit": can_edit, "frozen": frozen, "selected": ("2",)}
    # A line note sends the partial down its template markup; drop the note to compare the rest.
    by_template = get_template("notebooks/card.html#line").render({**values, "line_note": "x"})
    by_template = by_template.replace('<p class="line-note" role="status">x</p>', "")
    assert squeeze(line_item(Context(values))) == squeeze(by_template)
