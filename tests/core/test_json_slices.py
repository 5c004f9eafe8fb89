"""A JSON list read a slice at a time (core/json_table.list_slices) gives exactly the elements the
whole-file reader gives, wherever a slice ends, and gives up (``None``) on anything that reader
would report a problem for."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custody_lab.core.json_table import list_slices, parse_json

#: Strings that hold what a naive scanner would take for the list's own syntax, escapes and
#: characters of two to four UTF-8 bytes (a slice can end inside any of them).
TRICKY = ["],", '"]', "\\", '\\",', "{[", "é", "日本", "🙂", "\n", ",\\n]", ""]


def _elements(path, slice_bytes):
    got = []
    for values in list_slices(path, slice_bytes):
        assert values is not None, f"slice_bytes={slice_bytes}: gave up on a good list"
        assert values, f"slice_bytes={slice_bytes}: an empty slice was yielded"
        got += values
    return got


def test_every_slice_boundary_gives_the_elements_json_reads(tmp_path):
    doc = [
        {"id": f"c{k}", "title": t, "bytes": 10**k, "n": -1.5e3, "ok": k % 2 == 0, "x": None}
        for k, t in enumerate(TRICKY)
    ]
    doc += [12345, "],", [1, [2, "]"]], True]
    path = tmp_path / "l.json"
    raw = ("\ufeff" + json.dumps(doc, ensure_ascii=False, indent=1)).encode("utf-8")
    path.write_bytes(raw)
    for slice_bytes in range(1, len(raw) + 2):
        got = _elements(path, slice_bytes)
        assert got == doc, f"slice_bytes={slice_bytes}: expected {doc}, got {got}"


@settings(max_examples=100, deadline=None)
@given(
    doc=st.lists(
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
            max_leaves=6,
        ),
        max_size=6,
    ),
    slice_bytes=st.integers(1, 40),
    indent=st.sampled_from([None, 0, 2]),
)
def test_any_list_read_in_slices_is_the_list(tmp_path_factory, doc, slice_bytes, indent):
    path = tmp_path_factory.mktemp("s") / "l.json"
    path.write_text(json.dumps(doc, indent=indent, ensure_ascii=False), encoding="utf-8")
    slices = list(list_slices(path, slice_bytes))
    if not doc:  # an empty list: the caller reads it whole (the loader says it holds no rows)
        assert slices == [None], f"expected [None] for an empty list, got {slices}"
        return
    got = [v for values in slices for v in values]  # a None here fails the comprehension
    assert got == doc, f"slice_bytes={slice_bytes}: expected {doc!r}, got {got!r}"


@pytest.mark.parametrize(
    "text",
    [
        '[{"a": 1}, {"a": 2, "a": 3}]',  # a key written twice, in the last element
        '[{"a": 1}, {"a": NaN}]',
        '[{"a": 1}, {"a": 1},]',
        '[{"a": 1} {"a": 2}]',
        '[{"a": 1}, {"a": 2}] []',
        '[{"a": 1}, {"a": 2}',
        '[1], {"a": 1}, 2]',  # a list closed early: what follows is not the same list's
        '[{"a": 1}, {"a": "2}]',
        '{"cases": [{"a": 1}]}',
        '"[1, 2]"',
        "",
        "[" * 5000 + "]" * 5000,
        '[{"a": 1}, ' + "[" * 5000 + "]" * 5000 + "]",
    ],
)
def test_anything_the_whole_file_reader_reports_or_reads_otherwise_is_given_up(tmp_path, text):
    path = tmp_path / "l.json"
    path.write_text(text, encoding="utf-8")
    table = parse_json(text, "l.json", len(text))
    entries = list(table.entries)
    plain = text.lstrip().startswith("[") and not table.problems and not any(e.problems for e in entries)
    assert not plain, f"{text[:40]!r}: the whole-file reader finds no problem (the test's own mistake)"
    for slice_bytes in (1, 3, 7, 64, 1 << 20):
        slices = list(list_slices(path, slice_bytes))
        assert slices and slices[-1] is None, (
            f"{text[:40]!r}, slice_bytes={slice_bytes}: expected None last, got {slices}"
        )


def test_bytes_that_are_not_utf8_are_given_up(tmp_path):
    path = tmp_path / "l.json"
    path.write_bytes(b'[{"a": "ok"}, {"a": "\xff"}]')
    assert list(list_slices(path, 4))[-1] is None
    assert list(list_slices(tmp_path / "missing.json")) == [None]
