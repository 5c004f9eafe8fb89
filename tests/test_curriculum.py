"""Around the lessons: every notebook links the glossary, every link in a lesson leads somewhere real.

The glossary gives each term an anchor (``<a id="…"></a>``, kept by GitHub and by JupyterLab's
sanitizer), so a notebook can link a term where it first appears; these tests make sure such a link
names a term that exists and that no relative link in a notebook, the README or the docs is broken.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
GLOSSARY = ROOT / "docs" / "glossary.md"
CHEATSHEET = ROOT / "docs" / "cheatsheet.md"
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
TERM_LINE = re.compile(r'^- <a id="(?P<anchor>[a-z0-9-]+)"></a>\*\*(?P<term>[^*]+)\*\*: ')


def slug(term: str) -> str:
    """The anchor of a glossary term, as GitHub makes one from a heading: lower case, punctuation
    other than hyphens dropped, spaces made hyphens.

    Example:
        >>> slug("MCP Inspector"), slug("-32002"), slug("outputSchema"), slug("JSON-RPC")
        ('mcp-inspector', '-32002', 'outputschema', 'json-rpc')
    """
    return re.sub(r"[^a-z0-9 -]", "", term.lower()).replace(" ", "-")


def glossary_anchors() -> dict[str, str]:
    anchors = {}
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if line.startswith("- "):
            found = TERM_LINE.match(line)
            assert found, f"glossary line without its anchor: {line[:80]!r}"
            assert found["anchor"] == slug(found["term"]), (found["term"], found["anchor"], slug(found["term"]))
            anchors[found["anchor"]] = found["term"]
    return anchors


def markdown_of(path: Path) -> str:
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return path.read_text(encoding="utf-8")


def relative_links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", markdown_of(path), flags=re.S)  # links inside code blocks are code
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t) and not t.startswith("#")]


def test_every_glossary_term_has_its_anchor_and_no_two_share_one():
    anchors = glossary_anchors()
    terms = [ln for ln in GLOSSARY.read_text(encoding="utf-8").splitlines() if ln.startswith("- ")]
    assert len(anchors) == len(terms) >= 40, f"{len(terms)} terms, {len(anchors)} distinct anchors"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_links_the_glossary(path):
    targets = [t.split("#")[0] for t in relative_links(path)]
    assert "../docs/glossary.md" in targets, f"{path.name} never links ../docs/glossary.md"


def test_the_start_notebook_and_the_readme_link_the_cheat_sheet():
    assert "../docs/cheatsheet.md" in [t.split("#")[0] for t in relative_links(NOTEBOOKS[0])]
    assert "docs/cheatsheet.md" in [t.split("#")[0] for t in relative_links(ROOT / "README.md")]


DOCUMENTS = [*NOTEBOOKS, ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_every_relative_link_leads_to_a_file_and_every_glossary_fragment_to_a_term(path):
    anchors = glossary_anchors()
    broken = []
    for target in relative_links(path):
        file, _, fragment = unquote(target).partition("#")
        resolved = (path.parent / file).resolve()
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif resolved == GLOSSARY.resolve() and fragment and fragment not in anchors:
            broken.append(f"{target}: the glossary has no term with anchor {fragment!r}")
    assert not broken, f"{path.name}: " + "; ".join(broken)


def test_the_link_checker_finds_a_broken_link_and_a_missing_term(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("[a](missing.md) [b](https://example.org) [c](#top)\n```\n[d](also-missing.md)\n```\n")
    assert relative_links(page) == ["missing.md"]
    assert slug("Resource link") == "resource-link" and "no-such-term" not in glossary_anchors()
