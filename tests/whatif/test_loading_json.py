"""JSON inventories checked column by column (whatif/inventory_json.py) mean exactly what the
row-by-row loader makes of them: the same frame when every case is good, and otherwise the
row-by-row loader's own messages (the column-wise check steps aside)."""

from __future__ import annotations

import json
import tracemalloc

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import custody_lab.whatif.io as wio
from custody_lab.core.errors import CaseFileError
from custody_lab.core.loading import parse_cases, read_cases
from custody_lab.core.model import FIELD_SPECS, MAX_BYTES
from custody_lab.core.tables import parse_table, read_table
from custody_lab.whatif.inventory_json import json_columns, json_frame
from custody_lab.whatif.io import read_grid_and_policy, to_frame

GOOD = {
    "id": "c0",
    "initiator": "model",
    "operation": "read",
    "shape": "embedded-resource",
    "uri": "kb://x",
    "mime": "text/plain",
    "bytes": 760,
    "current": True,
    "allowed": True,
    "sideEffects": False,
    "provenance": "p@1",
}
#: Values any field may be given: right for some fields, wrong for others, and the look-alikes
#: (1, 1.0 and True are equal in Python; "\ud800" is half a character).
ODD = [None, True, False, 0, 1, 1.0, 10.0, 1.5, -1, MAX_BYTES, MAX_BYTES + 1, "", " ", "x", "é", "\ud800"]
ODD += ["model", "application", "read", "resource-link", [], {}]
FIELD_NAMES = [*FIELD_SPECS, "sideEfects"]  # and a misspelt, unknown key

changes = st.lists(
    st.tuples(st.sampled_from(FIELD_NAMES), st.one_of(st.sampled_from(ODD), st.just("<drop>"))), max_size=3
)


def cases_text(edits: list[list[tuple[str, object]]], layout: str) -> str:
    cases = []
    for i, edit in enumerate(edits):
        case = {**GOOD, "id": f"c{i}"}
        for key, value in edit:
            if value == "<drop>":
                case.pop(key, None)
            else:
                case[key] = value
        cases.append(case)
    doc: object = cases if layout == "list" else {"cases": cases, "policy": {"embedLimitBytes": 2048}}
    return json.dumps(doc)  # ASCII escapes: a lone surrogate stays a "\ud800" escape


@pytest.mark.slow  # a long property run (300 examples)
@settings(max_examples=300, deadline=None)
@given(edits=st.lists(changes, min_size=1, max_size=5), layout=st.sampled_from(["list", "case file"]))
def test_the_column_wise_check_accepts_only_files_the_loader_accepts_whole_and_builds_its_frame(edits, layout):
    text = cases_text(edits, layout)
    columns = json_columns(parse_table(text, fmt="json"))
    slow = parse_cases(text, fmt="json")
    if columns is None:
        return  # the row-by-row loader reads it, messages and all
    assert not slow.problems, f"{edits}: accepted column-wise, but the loader reports {slow.problems}"
    pd.testing.assert_frame_equal(wio._frame(columns), to_frame(slow.cases))


def test_every_single_field_change_is_read_column_wise_only_when_the_loader_accepts_it():
    for key in FIELD_NAMES:
        for value in [*ODD, "<drop>"]:
            text = cases_text([[], [(key, value)]], "list")
            columns = json_columns(parse_table(text, fmt="json"))
            slow = parse_cases(text, fmt="json")
            if columns is None:
                continue
            assert not slow.problems, f"{key}={value!r}: accepted column-wise, but the loader reports {slow.problems}"
            pd.testing.assert_frame_equal(wio._frame(columns), to_frame(slow.cases), obj=f"{key}={value!r}")


def test_a_good_json_inventory_is_read_column_wise_with_its_policy(tmp_path, monkeypatch):
    path = tmp_path / "inv.json"
    path.write_text(cases_text([[], [("bytes", 10.0)], [("sideEffects", None), ("uri", "<drop>")]], "case file"))
    want = to_frame(parse_cases(path.read_text(), fmt="json").cases)
    monkeypatch.setattr(wio, "read_cases", lambda *a, **k: pytest.fail("the row-by-row loader was used"))
    seen = []
    frame, policy = read_grid_and_policy(path, progress=lambda done, total: seen.append((done, total)))
    pd.testing.assert_frame_equal(frame, want)
    assert policy is not None and policy.embed_limit_bytes == 2048, policy
    assert seen and seen[-1][0] == seen[-1][1], f"expected a final progress report, got {seen}"


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        ([("bytes", True)], "bytes"),
        ([("current", 1)], "current"),
        ([("initiator", "robot")], "initiator"),
        ([("uri", "\ud800")], "uri"),
        ([("id", " ")], "id"),
        ([("sideEfects", True)], "sideEfects"),
        ([("shape", "<drop>")], "shape"),
    ],
)
def test_a_bad_json_inventory_gets_the_row_by_row_loaders_messages(tmp_path, edit, field):
    path = tmp_path / "inv.json"
    path.write_text(cases_text([[], edit], "list"))
    with pytest.raises(CaseFileError) as e:
        read_grid_and_policy(path)
    slow = read_cases(path)
    assert [(p.location, p.field, p.message) for p in e.value.problems] == [
        (p.location, p.field, p.message) for p in slow.problems
    ], f"{edit}: expected the loader's problems {slow.problems}, got {e.value.problems}"
    assert field in [p.field for p in e.value.problems], f"{edit}: expected field {field!r} named, got {e.value}"


def test_a_repeated_id_is_left_to_the_row_by_row_loader():
    text = cases_text([[], [("id", "c0")]], "list")
    assert json_columns(parse_table(text, fmt="json")) is None, "expected the repeated id to need the loader"


# --- read a slice at a time (inventory_json.json_frame over core/json_table.list_slices) ---------

#: Titles that hold the list's own syntax, escapes and multi-byte characters: a slice may end in any.
TITLES = ["a ], b", 'say "]," here', "back\\slash\\", "日本 🙂 é", "{[", 'end "\\"]']


def inventory(n: int, edit=None) -> list[dict]:
    cases = [{**GOOD, "id": f"c{k}", "title": TITLES[k % len(TITLES)], "bytes": k} for k in range(n)]
    if edit:
        edit(cases)
    return cases


def whole_frame(path) -> pd.DataFrame:
    columns = json_columns(read_table(path))
    assert columns is not None, f"{path.name}: expected the whole-file reader to read it column-wise"
    return wio._frame(columns)


@pytest.mark.parametrize("slice_bytes", [1, 7, 100, 333, 4096, 1 << 23])
def test_a_list_read_a_slice_at_a_time_is_the_frame_of_the_whole_file(tmp_path, slice_bytes):
    path = tmp_path / "inv.json"
    path.write_text(json.dumps(inventory(40), ensure_ascii=False, indent=2), encoding="utf-8")
    frame = json_frame(path, wio._frame, slice_bytes=slice_bytes)
    assert frame is not None, f"slice_bytes={slice_bytes}: expected a frame, got None"
    pd.testing.assert_frame_equal(frame, whole_frame(path), check_exact=True)
    chunks = {name: frame[name].array.__arrow_array__().num_chunks for name in ("id", "title", "uri")}
    assert set(chunks.values()) == {1}, f"slice_bytes={slice_bytes}: expected text columns in one piece, got {chunks}"


@pytest.mark.parametrize(
    ("name", "text_of"),
    [
        ("a key written twice in the last slice", lambda cases: json.dumps(cases)[:-2] + ', "bytes": 3}]'),
        ("an id repeated across slices", lambda cases: json.dumps([*cases, {**cases[0], "title": "x"}])),
        ("a bad value in the last slice", lambda cases: json.dumps([*cases, {**GOOD, "id": "z", "bytes": True}])),
        ("a case file object", lambda cases: json.dumps({"cases": cases, "adversarial": []})),
    ],
)
def test_what_one_slice_cannot_decide_goes_to_the_whole_file_reader_and_its_messages(
    tmp_path, monkeypatch, name, text_of
):
    path = tmp_path / "inv.json"
    path.write_text(text_of(inventory(60)), encoding="utf-8")
    assert json_frame(path, wio._frame, slice_bytes=256) is None, f"{name}: expected the slices to step aside"
    monkeypatch.setattr(wio, "json_frame", lambda p, build, **kw: json_frame(p, build, slice_bytes=256, **kw))
    slow = read_cases(path)
    if not slow.problems:  # the case file object: read whole, its frame the loader's
        pd.testing.assert_frame_equal(read_grid_and_policy(path)[0], to_frame(slow.cases))
        return
    with pytest.raises(CaseFileError) as e:
        read_grid_and_policy(path)
    assert [(p.location, p.field, p.message) for p in e.value.problems] == [
        (p.location, p.field, p.message) for p in slow.problems
    ], f"{name}: expected the loader's problems {slow.problems}, got {e.value.problems}"


def test_a_list_read_in_slices_shows_its_progress_as_each_slice_is_read(tmp_path, monkeypatch):
    path = tmp_path / "inv.json"
    path.write_text(json.dumps(inventory(300)), encoding="utf-8")
    size = path.stat().st_size
    monkeypatch.setattr(wio, "json_frame", lambda p, build, **kw: json_frame(p, build, slice_bytes=4096, **kw))
    seen: list[tuple[int, int]] = []
    frame, _ = read_grid_and_policy(path, progress=lambda done, total: seen.append((done, total)))
    assert len(frame) == 300, f"expected 300 rows, got {len(frame)}"
    done = [d for d, _ in seen]
    assert {t for _, t in seen} == {size} and done == sorted(done) and done[-1] == size, seen
    assert len(set(done)) >= size // 4096, f"expected a step for each 4,096-byte slice of {size:,} bytes, got {seen}"


def test_reading_in_slices_keeps_the_peak_below_the_file_size(tmp_path):
    """tracemalloc counts Python's and numpy's allocations (the parsed objects, the lists), not
    Arrow's strings: read whole, the objects alone are about 4.6 times the file; a slice at a time,
    about a third of it."""
    path = tmp_path / "inv.json"
    path.write_text(json.dumps(inventory(4000), indent=2), encoding="utf-8")
    size = path.stat().st_size
    tracemalloc.start()
    try:
        frame = json_frame(path, wio._frame, slice_bytes=1 << 16)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert frame is not None and len(frame) == 4000, f"expected 4,000 rows, got {frame}"
    assert peak < size, f"expected a peak below the file's {size:,} bytes, got {peak:,} ({peak / size:.2f} ×)"


@settings(max_examples=60, deadline=None)
@given(
    edits=st.lists(changes, min_size=1, max_size=5),
    layout=st.sampled_from(["list", "case file"]),
    slice_bytes=st.integers(1, 400),
)
def test_slices_decide_every_file_as_the_whole_file_check_does(tmp_path_factory, edits, layout, slice_bytes):
    path = tmp_path_factory.mktemp("inv") / "inv.json"
    path.write_text(cases_text(edits, layout), encoding="utf-8")
    whole = json_columns(read_table(path))
    frame = json_frame(path, wio._frame, slice_bytes=slice_bytes)
    if whole is None or layout == "case file":
        assert frame is None, (
            f"{edits} ({layout}): read in slices, but the whole-file check refuses it or it has a policy"
        )
        return
    assert frame is not None, f"{edits}: the whole-file check reads it column-wise, the slices gave up"
    pd.testing.assert_frame_equal(frame, wio._frame(whole), check_exact=True)
