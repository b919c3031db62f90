"""The notebooks page: every notebook with its live lines counted by source and the time of its last change."""

import re

from notebooks.log import services


def test_it_lists_every_notebook_with_live_counts_by_source(editor_client, lines):
    services.create_notebook(title="tetris", by="test")
    services.retire(notebook="zelda", n=2, by="dad", why="gone")
    html = editor_client.get("/").content.decode()
    assert 'href="/notebooks/zelda/"' in html and 'href="/notebooks/tetris/"' in html
    zelda = html[html.index("/notebooks/zelda/") :]
    assert "2 live lines" in zelda
    assert re.search(r"Dad</span> 1</span>.*seen</span> 1</span>", zelda)
    assert "guessed</span>" not in zelda.split("</li>")[0]
    assert "Last change" in zelda and "4 changes" in zelda
    assert "No changes yet" in html[html.index("/notebooks/tetris/") :]
