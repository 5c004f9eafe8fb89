"""The lessons' small tables: shown whole and escaped as HTML, made visible as text, pivoted in order."""

from __future__ import annotations

import pytest

import custody_lab as cl
from custody_lab.views.html import ViewError
from custody_lab.views.table import Table

HOSTILE = "<img src=x onerror=alert(1)>"
LONG = "a rule's whole sentence, " * 8


def test_a_table_shows_every_cell_escaped_and_whole_and_a_missing_cell_empty():
    page = Table([{"id": HOSTILE, "test": LONG}, {"id": "b"}])._repr_html_()
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page, page
    assert LONG.strip() in page.replace("&#x27;", "'"), "a long text was cut"
    assert page.count("<tr>") == 3 and "<td></td>" in page, page
    assert page.startswith('<div class="custody-scroll"'), page[:60]


def test_columns_follow_the_rows_first_naming_unless_given():
    rows = [{"b": 1}, {"a": 2, "b": 3}]
    assert Table(rows).columns == ("b", "a")
    given = Table(rows, ["a"])
    assert given.columns == ("a",) and "<td>1</td>" not in given.to_html(), given.to_html()
    assert given["a"] == [None, 2], given["a"]
    with pytest.raises(KeyError, match="no column 'c'; the columns are \\['a'\\]"):
        given["c"]  # noqa: B018


def test_the_text_form_aligns_columns_and_makes_hidden_characters_visible():
    text = Table([{"id": "evil\u202egnp.exe", "n": 1}, {"id": "x", "n": None}]).text()
    assert "\u202e" not in text and "\\u202e" in text, text
    lines = text.splitlines()
    assert lines == ["id                 n", "evil\\u202egnp.exe  1", "x"], lines


def test_pivot_keeps_first_seen_order_and_names_a_repeated_pair():
    rows = [
        {"case": "handbook", "shape": "listed-resource", "removed": gap, "outcome": f"out-{gap}"}
        for gap in ("provenance", "uri", "mime")
    ] + [{"case": "draft", "shape": "tool-call", "removed": "uri", "outcome": "ok"}]
    pivoted = Table(rows).pivot(index=["case", "shape"], columns="removed", values="outcome")
    assert pivoted.columns == ("case", "shape", "provenance", "uri", "mime"), pivoted.columns
    assert pivoted.rows == (
        {
            "case": "handbook",
            "shape": "listed-resource",
            "provenance": "out-provenance",
            "uri": "out-uri",
            "mime": "out-mime",
        },
        {"case": "draft", "shape": "tool-call", "uri": "ok"},
    ), pivoted.rows
    with pytest.raises(ViewError, match="row 4 repeats \\{'case': 'draft'\\} with removed='uri'"):
        Table([*rows, {"case": "draft", "removed": "uri", "outcome": "again"}]).pivot("case", "removed", "outcome")
    with pytest.raises(ViewError, match="no column 'gap'"):
        Table(rows).pivot("case", "gap", "outcome")


def test_the_public_table_is_the_views_table_and_shows_the_rule_table_in_full():
    assert cl.Table is Table
    page = cl.Table({"code": r.code, "test": r.test} for r in cl.RULES).to_html()
    for r in cl.RULES:
        assert f"<td>{r.code}</td>" in page, r.code
    empty = cl.Table([])
    assert len(empty) == 0 and empty.columns == () and empty.text() == "", empty.text()
