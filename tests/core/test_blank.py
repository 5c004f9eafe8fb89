"""What counts as blank is one definition (custody_lab/core/blank.py), and every path meets it.

One table of cases, with the answer written out by hand, that every path must meet: the scalar
router, the sweep on each column layout (pyarrow strings, an Arrow dtype, Python strings, objects
with few and with many distinct values, categoricals), and load_inventory / read_cases on a CSV
and a JSON file. A second test compares every path with the core definition itself on every
whitespace character and its neighbours, so a change to the definition is followed everywhere.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import custody_lab as cl
from custody_lab.core.blank import ASCII_SPACE_MAX, WHITESPACE, WIDE_SPACE_MIN, is_blank, strip_blank
from custody_lab.core.rules import ScalarOps
from custody_lab.sweep import load_inventory, sweep, to_frame

#: (text, blank?) written out by hand: the lab's definition, independent of the package.
CASES: list[tuple[str, bool]] = [
    ("", True),
    (" ", True),
    ("\t", True),
    ("\xa0", True),  # NO-BREAK SPACE
    ("\u3000", True),  # IDEOGRAPHIC SPACE
    ("\u2028", True),  # LINE SEPARATOR
    ("\x1c", True),  # FILE SEPARATOR: str.isspace counts it
    (" \t\u3000\x85", True),
    ("\u200b", False),  # ZERO WIDTH SPACE is not whitespace
    (" a", False),
    ("a ", False),
    ("kb://x", False),
]
GOOD = {
    "id": "good",
    "initiator": "model",
    "operation": "generate",
    "shape": "resource-link",
    "uri": "report://r",
    "mime": "text/html",
    "bytes": 10,
    "current": True,
    "allowed": True,
    "sideEffects": False,
    "provenance": "p@1",
}
#: One case per value of the table, the value as its URI; "kb://x" etc. are accepted.
RECORDS = [{**GOOD, "id": f"c{i}", "uri": value} for i, (value, _) in enumerate(CASES)]
#: Many distinct URIs, so a column of objects is decided value by value, not once per object.
FILLER = [{**GOOD, "id": f"f{i}", "uri": f"u://{i}"} for i in range(5000)]


def outcome(blank: bool) -> str:
    return "custody-incomplete" if blank else "resource-link"


def expected() -> list[str]:
    return [outcome(blank) for _, blank in CASES]


def as_layout(frame: pd.DataFrame, layout: str) -> pd.DataFrame:
    dtype = {
        "pyarrow-str": "str",
        "arrow-dtype": pd.ArrowDtype(pa.large_string()),
        "arrow-string-view": pd.ArrowDtype(pa.string_view()),
        "python-str": "string[python]",
        "object": object,
        "category": "category",
    }[layout]
    return frame.astype({"uri": dtype})


def wrong_rows(got: list[str], want: list[str]) -> list[tuple[str, str, str]]:
    return [(repr(CASES[i][0]), w, g) for i, (g, w) in enumerate(zip(got, want)) if g != w]


@pytest.mark.parametrize(("text", "blank"), CASES, ids=[repr(t) for t, _ in CASES])
def test_the_core_definition_and_the_scalar_router_meet_the_table(text, blank):
    assert is_blank(text) is blank, f"is_blank({text!r}): expected {blank}"
    assert ScalarOps().blank(text) is blank, f"ScalarOps.blank({text!r}): expected {blank}"
    got = cl.route({**GOOD, "uri": text}).outcome
    assert got == outcome(blank), f"route with uri={text!r}: expected {outcome(blank)}, got {got}"


@pytest.mark.parametrize("many", [False, True], ids=["few-values", "many-values"])
@pytest.mark.parametrize(
    "layout", ["pyarrow-str", "arrow-dtype", "arrow-string-view", "python-str", "object", "category"]
)
def test_the_sweep_meets_the_table_on_every_column_layout(layout, many):
    frame = as_layout(to_frame(RECORDS + (FILLER if many else [])), layout)
    got = sweep(frame)["outcome"].astype(str).tolist()[: len(CASES)]
    assert got == expected(), f"{layout}: (text, expected, got) {wrong_rows(got, expected())}"


def test_load_inventory_and_read_cases_meet_the_table_on_a_csv_file(tmp_path):
    header = list(GOOD)
    lines = [",".join(header)] + [
        ",".join(str(r[k]).lower() if k in ("current", "allowed", "sideEffects") else str(r[k]) for k in header)
        for r in RECORDS
    ]
    path = tmp_path / "blank.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    column_wise = sweep(load_inventory(path))["outcome"].astype(str).tolist()
    row_by_row = [cl.route(c).outcome for c in cl.load_cases(path)]
    assert column_wise == expected(), f"load_inventory: {wrong_rows(column_wise, expected())}"
    assert row_by_row == expected(), f"load_cases + route: {wrong_rows(row_by_row, expected())}"


def test_load_inventory_and_read_cases_meet_the_table_on_a_json_file(tmp_path):
    path = tmp_path / "blank.json"
    path.write_text(json.dumps(RECORDS), encoding="utf-8")
    column_wise = sweep(load_inventory(path))["outcome"].astype(str).tolist()
    row_by_row = [cl.route(c).outcome for c in cl.load_cases(path)]
    assert column_wise == expected(), f"load_inventory: {wrong_rows(column_wise, expected())}"
    assert row_by_row == expected(), f"load_cases + route: {wrong_rows(row_by_row, expected())}"


def test_a_csv_cell_of_only_whitespace_is_absent_and_flags_and_sizes_are_read_inside_whitespace(tmp_path):
    # The cell rule strips exactly the definition's whitespace: "\u3000TRUE\xa0" is a flag, a
    # zero-width space around a size keeps it from being a number.
    from custody_lab.core.csv_table import csv_cell

    assert csv_cell("current", "\u3000TRUE\xa0") is True
    assert csv_cell("uri", "\u2028") is None and csv_cell("uri", " a") == " a"
    with pytest.raises(cl.CaseError):
        csv_cell("bytes", "\u200b12")


def test_every_path_follows_the_core_definition_on_every_whitespace_character_and_its_neighbours(tmp_path):
    # Not the table: the definition itself, read by every path, so that an edit of WHITESPACE is
    # followed everywhere (the table above is what the lab wants today).
    near = {chr(c) for ch in WHITESPACE for c in (ord(ch) - 1, ord(ch) + 1)}
    python = {chr(c) for c in range(0x110000) if chr(c).isspace()}
    singles = sorted(set(WHITESPACE) | near | python | {"\u200b", "\x00", "!", "é"})
    values = ["", *singles, *(c * 2 for c in singles), *(" " + c for c in singles), *(c + "a" for c in singles)]
    assert all(c <= ASCII_SPACE_MAX or c >= WIDE_SPACE_MIN for c in WHITESPACE)
    want = [outcome(is_blank(v)) for v in values]
    records = [{**GOOD, "id": f"v{i}", "uri": v} for i, v in enumerate(values)]
    frame = to_frame(records)
    for layout in ("pyarrow-str", "arrow-dtype", "python-str", "object", "category"):
        got = sweep(as_layout(frame, layout))["outcome"].astype(str).tolist()
        bad = [(values[i], w, g) for i, (g, w) in enumerate(zip(got, want)) if g != w]
        assert not bad, f"{layout}: (text, expected, got) {bad[:5]}"
    routed = [cl.route(r).outcome for r in records]
    assert routed == want, "route differs from is_blank"
    # CSV: a cell is read as the core strips it (no quoting needed: no value holds a comma, quote
    # or line feed; a carriage return is written only in JSON)
    csv_values = [v for v in values if not set(v) & {",", '"', "\n", "\r", "\x00"}]
    header = list(GOOD)
    rows = [",".join(header)]
    for i, v in enumerate(csv_values):
        cells = {**GOOD, "id": f"v{i}", "uri": v, "current": "true", "allowed": "true", "sideEffects": "false"}
        rows.append(",".join(str(cells[k]) for k in header))
    path = tmp_path / "near.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    want_csv = [outcome(not strip_blank(v) or is_blank(v)) for v in csv_values]
    for name, got in (
        ("load_inventory", sweep(load_inventory(path))["outcome"].astype(str).tolist()),
        ("load_cases", [cl.route(c).outcome for c in cl.load_cases(path)]),
    ):
        bad = [(csv_values[i], w, g) for i, (g, w) in enumerate(zip(got, want_csv)) if g != w]
        assert not bad, f"{name}: (text, expected, got) {bad[:5]}"
    assert np.array_equal(
        sweep(load_inventory(path))["outcome"].astype(str).to_numpy(),
        np.array([cl.route(c).outcome for c in cl.load_cases(path)]),
    )
