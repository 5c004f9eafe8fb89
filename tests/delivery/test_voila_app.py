"""The presentation's own Voila app: the lab's docs rendered for ``/docs/<name>.md``, and the class
built only in the Voila process (issue 27 §2). The browser test (tests/test_browser_present.py)
follows the links of a presented page and reloads it; these check every link of every notebook."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from custody_lab.delivery import voila_app
from custody_lab.delivery.voila_app import docs_page, slug

ROOT = Path(__file__).resolve().parents[2]
#: A notebook's link to a doc page: ``../docs/glossary.md#actor``.
DOC_LINK = re.compile(r"\.\./docs/([a-z0-9-]+)\.md(?:#([^)\s\"']+))?")


def doc_links() -> list[tuple[str, str, str]]:
    """(notebook, page, anchor) of every doc link in a notebook's Markdown."""
    found = []
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        found += [(path.name, page, anchor) for page, anchor in DOC_LINK.findall(text)]
    return found


def test_every_doc_link_of_every_notebook_reaches_a_rendered_page_with_its_anchor():
    links = doc_links()
    assert len(links) > 50 and {page for _, page, _ in links} >= {"glossary", "cheatsheet"}, links[:5]
    pages = {page: docs_page(page) for _, page, _ in links}
    missing = [(nb, page) for nb, page, _ in links if pages[page] is None]
    assert not missing, f"links to pages that are not served: {missing[:5]}"
    unanchored = [
        (nb, f"{page}.md#{anchor}") for nb, page, anchor in links if anchor and f'id="{anchor}"' not in pages[page]
    ]
    assert not unanchored, f"links whose anchor is on no element of the rendered page: {unanchored[:5]}"


def test_a_rendered_page_keeps_the_glossary_anchors_gives_headings_ids_and_fetches_nothing():
    glossary, cheatsheet = docs_page("glossary"), docs_page("cheatsheet", "dark")
    assert glossary is not None and cheatsheet is not None
    assert '<a id="custody-receipt"></a>' in glossary and "<strong>custody receipt</strong>" in glossary
    assert '<h2 id="context-that-flows-back-mcp-2026-07-28">' in cheatsheet, re.findall(r"<h2[^>]*>", cheatsheet)
    assert "<table>" in cheatsheet, "the cheat sheet's tables are not rendered as tables"
    assert "#111111" in cheatsheet and "#111111" not in glossary, "the dark theme does not reach the page"
    for page in (glossary, cheatsheet):
        assert not re.search(r"(src|href)=\"(https?:)?//", page.split("<body>")[0]), "the page head fetches a host"
        assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")


@pytest.mark.parametrize("name", ["../README", "docs/glossary", "Glossary", "", "glossary.md", "no-such-page"])
def test_only_a_plain_name_of_an_existing_doc_is_served(name):
    assert docs_page(name) is None, f"{name!r} was served"


def test_a_name_outside_the_docs_folder_is_refused_even_when_the_file_exists(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "secret.md").write_text("# secret\n")
    (tmp_path / "docs" / "page.md").write_text("# A page\n\ntext\n")
    assert docs_page("page", folder=tmp_path / "docs") is not None
    assert docs_page("../secret", folder=tmp_path / "docs") is None


@pytest.mark.parametrize(
    "heading, anchor",
    [
        ("The rule order", "the-rule-order"),
        ("<code>embedded-resource</code>", "embedded-resource"),
        ("Error codes per protocol revision", "error-codes-per-protocol-revision"),
        ("Context that flows back (MCP 2026-07-28)", "context-that-flows-back-mcp-2026-07-28"),
    ],
)
def test_heading_anchors_are_spelled_as_the_notebooks_link_them(heading, anchor):
    assert slug(heading) == anchor


def test_importing_the_module_imports_no_jupyter_package():
    code = "import sys, custody_lab.delivery.voila_app; print(sorted(m for m in ('voila', 'jupyter_server', 'mistune') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", f"expected no Jupyter package imported, got {out.stdout!r} {out.stderr!r}"


def test_the_app_voila_is_given_is_voilas_own_with_the_labs_routes():
    from voila.app import Voila

    cls = voila_app._build()
    assert issubclass(cls, Voila) and cls is voila_app._build(), cls
