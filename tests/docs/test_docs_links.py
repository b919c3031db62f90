"""Every relative link in README.md and docs/*.md resolves: the file exists, and a #fragment names a heading of it
(GitHub's slugs) or an id the page declares. Links inside code are not links and are left alone."""

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "CHANGELOG.md"]
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
INDENTED = re.compile(r"(?:^(?: {4}|\t).*\n?)+", re.MULTILINE)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)", re.MULTILINE)
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)
HTML_ID = re.compile(r"""<[^>]+\b(?:id|name)=["']([^"']+)["']""")


def prose(text: str) -> str:
    """The page without its fenced blocks, indented blocks and inline code."""
    text = FENCE.sub("", text)
    return INLINE_CODE.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (not - or _), each space a hyphen."""
    heading = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    heading = re.sub(r"<[^>]+>", "", heading).replace("`", "").lower()
    return re.sub(r"[^\w\- ]", "", heading, flags=re.UNICODE).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    found: set[str] = set(HTML_ID.findall(text))
    seen: dict[str, int] = {}
    for heading in HEADING.findall(text):
        base = slug(heading)
        count = seen.get(base, 0)
        found.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    return found


def links(page: Path) -> list[str]:
    text = INDENTED.sub("", prose(page.read_text(encoding="utf-8")))
    return LINK.findall(text) + REFERENCE.findall(text)


def broken(page: Path) -> list[str]:
    wrong = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):  # http:, https:, mailto: are not ours
            continue
        path, _, fragment = target.partition("#")
        goal = (page.parent / unquote(path)).resolve() if path else page
        if not goal.exists():
            wrong.append(f"{target}: no file {goal.relative_to(ROOT) if goal.is_relative_to(ROOT) else goal}")
        elif fragment and goal.suffix == ".md" and unquote(fragment).lower() not in anchors(goal):
            wrong.append(f"{target}: no heading #{fragment} in {goal.relative_to(ROOT)}")
    return wrong


def test_the_slugs_are_githubs():
    assert slug("Take and land in git") == "take-and-land-in-git"
    assert slug("Sessions: take, checkpoint, land, abandon") == "sessions-take-checkpoint-land-abandon"
    assert slug("`make screenshots` redraws") == "make-screenshots-redraws"
    assert slug("Errors and their codes (401, 409…)") == "errors-and-their-codes-401-409"


def test_the_checker_finds_a_broken_file_and_a_broken_anchor(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## A part\n\n## A part\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#a-part) [ok too](other.md#a-part-1) [self](#here) [gone](missing.md) [bad](other.md#nope)\n"
        "`[code](not-a-link.md)`\n\n```\n[fenced](nor-this.md)\n```\n\n# Here\n",
        encoding="utf-8",
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert broken(page) == ["missing.md: no file missing.md", "other.md#nope: no heading #nope in other.md"]
    finally:
        ROOT = saved


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    assert broken(page) == []


def test_the_front_page_links_to_every_guide():
    found = {target.partition("#")[0] for target in links(ROOT / "README.md")}
    guides = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    assert guides <= found, f"README.md does not link to {sorted(guides - found)}"


CITED = re.compile(r'([\w./-]+\.md),? "([^"]+)"')  # a section named in words: docs/agents.md, "Paging"


def uncited(page: Path) -> list[str]:
    """The sections `page` names in words (`FILE.md, "Heading"`) that its file has no heading for: the heading's
    words, or the part of them before a subtitle (": …", " (…)"), backticks aside."""
    wrong = []
    for name, section in CITED.findall(" ".join(FENCE.sub("", page.read_text(encoding="utf-8")).split())):
        goal = next((p for p in (ROOT / name, page.parent / name) if p.is_file()), None)
        headings = HEADING.findall(FENCE.sub("", goal.read_text(encoding="utf-8"))) if goal else []
        titles = {t.replace("`", "") for h in headings for t in (h, re.split(r": | \(", h)[0])}
        if section.replace("`", "") not in titles:
            wrong.append(f'{name}, "{section}"')
    return wrong


def test_the_section_checker_finds_a_section_no_heading_has(tmp_path):
    (tmp_path / "other.md").write_text("# Other\n\n## Sessions: take and land\n\n## Figures (2026)\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text('See other.md, "Sessions"; other.md, "Figures"; other.md "Retries and\nkeys".\n', encoding="utf-8")
    assert uncited(page) == ['other.md, "Retries and keys"']


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_section_named_in_words_exists(page):
    assert uncited(page) == []
