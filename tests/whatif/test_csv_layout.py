"""whatif/csv_layout.py numbers a CSV's records and judges its quotes exactly as Python's strict csv
reader reads the same text (the row-by-row reader's own parser)."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custody_lab.whatif.csv_layout import CsvLayout

CELL = st.text(alphabet='ab,"\n é', max_size=6)


def first_lines(text: str) -> list[int]:
    """Each non-empty record's first line after the header, as the strict csv reader reads it."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    out, end = [], 0
    for record in reader:
        start, end = end + 1, reader.line_num
        if record and start > 1:  # the header is line 1; an empty line reads as []
            out.append(start)
    return out


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(CELL, min_size=1, max_size=4), min_size=1, max_size=8),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
def test_records_written_by_the_csv_module_are_well_formed_and_numbered_by_their_first_line(rows, end, blank):
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator=end)
    writer.writerow(["h"])
    for row in rows:
        writer.writerow(row)
        if blank:
            buffer.write(end)  # an empty line between records: skipped by both readers
    text = buffer.getvalue()
    layout = CsvLayout(text.encode(), 0)
    assert layout.well_formed, f"{text!r}: written by the csv module, judged not well formed"
    assert layout.rows.tolist() == first_lines(text), f"{text!r}: records numbered otherwise than csv reads them"
    assert layout.quoted_breaks == any("\n" in cell for row in rows for cell in row)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='a,"\n', max_size=16))
def test_text_judged_well_formed_is_read_by_the_strict_csv_reader_into_as_many_records(body):
    text = "h\n" + body
    layout = CsvLayout(text.encode(), 0)
    if not layout.well_formed:
        return
    records = list(csv.reader(io.StringIO(text, newline=""), strict=True))  # raises on a stray quote
    assert len(layout) == sum(1 for r in records[1:] if r), f"{text!r}: {layout.rows.tolist()} vs {records}"


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ('a,b"c\n', "a quote inside an unquoted cell (csv keeps it as a character; pyarrow may not)"),
        ('a, "b"\n', "a space before the opening quote (csv keeps the quotes as characters)"),
        ('a,"b"c\n', "a cell that goes on after its closing quote (the strict reader refuses it)"),
        ('a,"b\n', "a quoted cell never closed (the strict reader refuses it)"),
    ],
)
def test_a_quote_where_rfc_4180_puts_none_is_not_well_formed(body, why):
    text = "h\n" + body
    assert not CsvLayout(text.encode(), 0).well_formed, why
    try:
        cells = list(csv.reader(io.StringIO(text, newline=""), strict=True))[1]
    except csv.Error:
        return
    assert any('"' in c for c in cells), f"{why}: the csv reader read {cells}"
