"""Nothing a learner needs is truncated (issue 37 §4): the cells that show an exercise's input or
the rule table show every field and every sentence in full.

Each cell is run on its own here (its last expression displayed as a notebook would), which is
quick; ``tests/test_notebooks.py`` runs the whole notebooks.
"""

from __future__ import annotations

import ast
import contextlib
import html
import io
import re
from pathlib import Path

import nbformat
import pandas as pd

import custody_lab as cl
from custody_lab.exercises import input_for

ROOT = Path(__file__).resolve().parent.parent


def _cell(notebook: str, needle: str) -> str:
    """The source of the one code cell of ``notebook`` that contains ``needle``."""
    nb = nbformat.read(ROOT / "notebooks" / notebook, as_version=4)
    found = [c.source for c in nb.cells if c.cell_type == "code" and needle in c.source]
    assert len(found) == 1, f"{notebook}: {len(found)} code cells contain {needle!r}"
    return found[0]


def shown(source: str, namespace: dict[str, object]) -> str:
    """What a cell shows in a fresh kernel: its printed text and its last expression's HTML (or
    repr), tags removed."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    out = io.StringIO()
    # a fresh kernel's pandas default (another test may have run a notebook cell that changed it)
    with contextlib.redirect_stdout(out), pd.option_context("display.max_colwidth", 50):
        exec(compile(tree, "<cell>", "exec"), namespace)
        value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace) if last else None
        page = ""
        if value is not None:
            to_html = getattr(value, "_repr_html_", None) or getattr(value, "to_html", None)
            page = to_html() if to_html else repr(value)
    return out.getvalue() + " " + html.unescape(re.sub(r"<[^>]+>", " ", page or ""))


def _words(text: str) -> str:
    return " ".join(text.split())


def test_notebook_09_shows_every_field_of_the_capstone_04_input_in_full():
    text = _words(
        shown(
            _cell("11-design-your-servers-custody.ipynb", 'input_for("capstone-04")'),
            {
                "input_for": input_for,
                "visible": cl.visible,
            },
        )
    )
    given = input_for("capstone-04")
    assert "This host is the support desk's assistant." in text, text
    for field, value in given.items():
        assert field in text and _words(str(value)) in text, (field, value, text)


def test_notebook_00_shows_every_rule_of_the_table_in_full():
    text = _words(shown(_cell("00-start-here.ipynb", "cl.RULES"), {"cl": cl}))
    for rule in cl.RULES:
        for part in (rule.code, rule.test, rule.source):
            assert _words(part) in text, (rule.code, part)
    assert "…" not in text.replace("refuses a case when…", ""), "a text is cut with an ellipsis"


OLD_RULE_TABLE = """import pandas as pd

pd.DataFrame(
    [{"code": r.code, "refuses a case when…": r.test, "source": r.source} for r in cl.RULES]
)"""


def test_the_checks_find_what_the_old_cells_cut():
    """The tests above fail on the old cells: pandas cuts each text at 50 characters."""
    old_input = _words(shown("import pandas as pd\npd.Series(input_for('capstone-04'))", {"input_for": input_for}))
    assert "This host is the support desk's assistant." not in old_input, old_input
    old_rules = _words(shown(OLD_RULE_TABLE, {"cl": cl}))
    cut = [r.code for r in cl.RULES if _words(r.test) not in old_rules]
    assert cut, "the old rule table showed every rule in full: the test above proves nothing"
