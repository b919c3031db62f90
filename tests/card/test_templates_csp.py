"""Every template obeys a strict CSP (script-src/style-src 'self'): no inline script, style or handler."""

import re
from pathlib import Path

TEMPLATES = sorted((Path(__file__).resolve().parents[2] / "templates").rglob("*.html"))


def test_there_are_templates_to_check():
    assert any(p.name == "sessions.html" for p in TEMPLATES)


def test_no_template_carries_a_style_element_or_attribute():
    for path in TEMPLATES:
        text = path.read_text()
        assert not re.search(r"<style\b", text, re.I), path
        assert not re.search(r"\sstyle=", text, re.I), path


def test_no_template_carries_an_inline_script_or_event_handler():
    for path in TEMPLATES:
        text = path.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text, re.I), path
        assert not re.search(r"\son[a-z]+\s*=", text, re.I), path
        assert "javascript:" not in text.lower(), path
