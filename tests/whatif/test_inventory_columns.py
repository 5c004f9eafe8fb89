"""The column-wise inventory reader (whatif/inventory_csv.py) and the Arrow text reduction
(whatif/arrow_text.py) decide exactly as the row-by-row reader and the object-column path."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import custody_lab as cl
from custody_lab.core.blank import is_blank
from custody_lab.core.loading import LoadResult, read_cases
from custody_lab.core.model import INITIATORS
from custody_lab.core.paths import data_path
from custody_lab.sweep import load_inventory, sweep
from custody_lab.whatif.arrow_text import arrow_chunks, arrow_codes, arrow_text_masks
from custody_lab.whatif.inventory_csv import read_csv_frame
from custody_lab.whatif.io import to_frame

HEADER = "id,title,initiator,operation,shape,uri,mime,bytes,current,allowed,sideEffects,provenance,requiresCurrent"
GOOD = "{id},Title,model,read,embedded-resource,u://{id},text/plain,{size},true,true,false,p@1,false"

#: Cells a column may hold: good ones, and each kind of mistake or oddity the row-by-row reader
#: decides (a blank, "null", whitespace of every sort, signs, separators, other scripts' digits).
TRICKY_TEXT = [
    "u://x",
    "",
    " ",
    "null",
    " NULL ",
    "nUlL\t",
    "\u3000null\u3000",
    "nullx",
    "kb://null",
    "n ull",
    "\u3000",
    "\x85",
    "\x1f",
    "\x01a",
    "a b",
    "é",
    '"q, uoted"',
    '"a""b"',
]
CELLS = {
    "id": ["a", "b", "c", "d", " ", "", "é", '"x,y"', '"x\ny"'],
    "title": ["", " ", "t", "null", '"with, comma"', '"two\nlines"', '"crlf\r\nin it"', '"\n\n"'],
    "initiator": ["model", "application", " model", "robot", ""],
    "operation": ["read", "mutate", "READ", ""],
    "shape": ["embedded-resource", "resource-link", "listed-resource", " embedded-resource", "blob"],
    "uri": TRICKY_TEXT,
    "mime": TRICKY_TEXT,
    "provenance": TRICKY_TEXT,
    "bytes": ["0", "4096", "4097", "+5", " 12 ", "-1", "1_000", "1e3", "١٢", "", "1073741824", "1073741825", "00012"],
    "current": ["true", "false", "TRUE", " False ", "yes", "1", "", "null"],
    "allowed": ["true", "false", "True"],
    "sideEffects": ["true", "false", "", "null", "NULL", " nUll ", "maybe"],
    "requiresCurrent": ["true", "false", "", "null"],
}
REQUIRED = ["id", "initiator", "operation", "shape", "bytes", "current", "allowed"]


@st.composite
def csv_files(draw: st.DrawFn) -> bytes:
    optional = [c for c in CELLS if c not in REQUIRED]
    columns = REQUIRED + draw(st.lists(st.sampled_from(optional), unique=True))
    if draw(st.booleans()):
        columns = draw(st.permutations(columns))
    rows = draw(st.lists(st.tuples(*(st.sampled_from(CELLS[c]) for c in columns)), min_size=1, max_size=6))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    lines = [",".join(columns)] + [",".join(r) for r in rows]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(1, len(lines))), "")  # a blank line: skipped by both readers
    bom = b"\xef\xbb\xbf" if draw(st.booleans()) else b""
    return bom + (end.join(lines) + end).encode()


def _same_reading(path) -> bool:
    """Assert the column-wise reader agrees with the row-by-row one; True when it read the file
    (a frame, or the same problems and good cases found from its own parse)."""
    fast = read_csv_frame(path)
    slow = read_cases(path)
    if fast is None:
        return False
    if isinstance(fast, LoadResult):
        assert fast.problems == slow.problems, f"{path.read_bytes()!r}: expected {slow.problems}, got {fast.problems}"
        assert fast.cases == slow.cases, f"{path.read_bytes()!r}: the good cases differ"
        return True
    assert not slow.problems, f"{path.read_bytes()!r}: read column-wise, but the row-by-row reader says {slow.problems}"
    pd.testing.assert_frame_equal(fast, to_frame(slow.cases))
    return True


@pytest.mark.slow  # a long property run (300 examples)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(csv_files())
def test_a_file_read_column_by_column_is_the_frame_the_row_by_row_reader_builds(tmp_path, data):
    path = tmp_path / "inventory.csv"
    path.write_bytes(data)
    _same_reading(path)
    # load_inventory refuses what read_cases refuses, with the same problems.
    slow = read_cases(path)
    if slow.problems:
        with pytest.raises(cl.CaseFileError) as info:
            load_inventory(path)
        assert info.value.problems == slow.problems, f"{data!r}: expected {slow.problems}, got {info.value.problems}"


def test_an_ordinary_inventory_takes_the_column_wise_path_with_quotes_crlf_bom_and_blanks(tmp_path):
    rows = [HEADER + ",description"]
    rows += [GOOD.format(id=f"r{i}", size=4090 + i) + ',"A description, with a comma"' for i in range(20)]
    rows.append("x,,application,read,listed-resource,  ,NULL,10,TRUE, False ,null,\u3000,,")
    path = tmp_path / "inv.csv"
    path.write_bytes(b"\xef\xbb\xbf" + ("\r\n".join(rows) + "\r\n").encode())
    assert _same_reading(path), "expected the column-wise reader to read this file, it fell back"
    frame = read_csv_frame(path)
    assert frame is not None and pd.isna(frame["uri"].iloc[-1]) and pd.isna(frame["mime"].iloc[-1])
    assert frame["uri"].dtype.storage == "pyarrow" and isinstance(frame["shape"].dtype, pd.CategoricalDtype)


def test_quoted_line_breaks_in_free_text_are_read_column_by_column_with_each_rows_first_line(tmp_path):
    rows = [HEADER + ",description"]
    rows += [GOOD.format(id=f"r{i}", size=i) + ',"first line\nsecond, line\r\n\nlast ""quoted"""' for i in range(3)]
    path = tmp_path / "inv.csv"
    path.write_bytes(("\r\n".join(rows) + "\r\n").encode())
    assert _same_reading(path), "expected the column-wise reader to read quoted line breaks, it fell back"
    assert read_csv_frame(path)["description"].iloc[0] == 'first line\nsecond, line\r\n\nlast "quoted"'
    # A bad row after them is named by the line it starts on (each good row spans 4 lines).
    path.write_bytes(("\r\n".join([*rows, GOOD.format(id="bad", size="1e3") + ",d"]) + "\r\n").encode())
    got = read_csv_frame(path)
    assert isinstance(got, LoadResult) and got.problems == read_cases(path).problems
    assert [p.location for p in got.problems] == ["inv.csv line 14"], got.problems


def test_a_file_of_well_formed_quotes_is_not_declined_and_a_stray_quote_anywhere_is(tmp_path):
    good = [GOOD.format(id=f"r{i}", size=i).replace(",Title,", ',"Ti""tle, x",') for i in range(200)]
    path = tmp_path / "inv.csv"
    path.write_bytes(("\n".join([HEADER, *good]) + "\n").encode())
    assert read_csv_frame(path) is not None
    for stray in ('Ti"tle', '"Title" ', ' "Title"', '"Ti"tle"'):
        bad = good[:150] + [good[150].replace('"Ti""tle, x"', stray)] + good[151:]
        path.write_bytes(("\n".join([HEADER, *bad]) + "\n").encode())
        assert read_csv_frame(path) is None, f"{stray!r}: a quote the strict csv reader reads otherwise was accepted"


@pytest.mark.parametrize(
    ("why", "row"),
    [
        ("a quote inside a cell", GOOD.format(id='a"b', size=1)),
        ("a cell after its closing quote", GOOD.format(id='"a"b', size=1)),
        ("a quoted line break", GOOD.format(id='"a\nb"', size=1)),
        ("a NUL byte", GOOD.format(id="a\x00", size=1)),
        ("a bare carriage return", GOOD.format(id="a", size=1) + "\rb"),
        ("a short row", "a,b"),
        ("not UTF-8", GOOD.format(id="a\udcff", size=1)),
    ],
)
def test_a_file_whose_syntax_only_the_line_reader_reads_exactly_is_left_to_it(tmp_path, why, row):
    path = tmp_path / "inv.csv"
    path.write_bytes(f"{HEADER}\n{GOOD.format(id='r1', size=5)}\n{row}\n".encode("utf-8", "surrogateescape"))
    assert read_csv_frame(path) is None, f"{why}: expected the column-wise reader to decline, it read the file"
    slow = read_cases(path)
    try:
        got = load_inventory(path)
    except cl.CaseFileError as e:
        assert e.problems == slow.problems, f"{why}: expected {slow.problems}, got {e.problems}"
    else:
        assert not slow.problems, f"{why}: load_inventory accepted a file route refuses"
        pd.testing.assert_frame_equal(got, to_frame(slow.cases))


@pytest.mark.parametrize(
    ("why", "row", "header"),
    [
        ("a bad size", GOOD.format(id="a", size="1e3"), HEADER),
        ("a size of thirty digits", GOOD.format(id="a", size="9" * 30), HEADER),
        ("a duplicate id", GOOD.format(id="r1", size=1), HEADER),
        ("a blank id", GOOD.format(id=" ", size=1), HEADER),
        ("a row of blank cells", ",,,,,,,,,,,,", HEADER),
        (
            "a bad flag and a bad shape",
            GOOD.format(id="b", size=1).replace("true", "yes").replace("embedded-", "x"),
            HEADER,
        ),
        (
            "no operation column",
            "z,Title,model,embedded-resource,u://z,text/plain,1,true,true,false,p@1,false",
            HEADER.replace(",operation", ""),
        ),
        ("an unknown column", GOOD.format(id="u", size=1) + ",x", HEADER + ",kind"),
    ],
)
def test_a_bad_row_is_found_from_the_column_wise_parse_with_the_line_readers_messages(tmp_path, why, row, header):
    path = tmp_path / "inv.csv"
    good = GOOD.format(id="r1", size=5)
    if header != HEADER:
        good = row.replace("z,", "r1,", 1) if "operation" not in header else good + ",y"
    path.write_bytes(f"{header}\n{good}\n\n{row}\n".encode())
    got = read_csv_frame(path)
    slow = read_cases(path)
    assert isinstance(got, LoadResult), f"{why}: expected the problems from the column-wise parse, got {type(got)}"
    assert got.problems == slow.problems, f"{why}: expected {slow.problems}, got {got.problems}"
    assert got.cases == slow.cases, f"{why}: expected the good cases {slow.cases}, got {got.cases}"
    assert slow.problems or why == "a row of blank cells", f"{why}: the line-by-line reader found no problem"
    lines = {p.location.split(" line ")[-1] for p in got.problems}
    assert lines <= {"1", "2", "4"}, f"{why}: the row after the empty line is line 4; got {got.problems}"


def test_a_bad_row_is_not_read_again_by_the_line_by_line_reader(tmp_path, monkeypatch):
    from custody_lab.core import tables

    path = tmp_path / "inv.csv"
    path.write_bytes(f"{HEADER}\n{GOOD.format(id='r1', size=5)}\n{GOOD.format(id='r2', size='1e3')}\n".encode())
    monkeypatch.setattr(tables, "parse_csv", lambda *a, **k: pytest.fail("the file was parsed a second time"))
    with pytest.raises(cl.CaseFileError) as info:
        load_inventory(path)
    assert [(p.location, p.field) for p in info.value.problems] == [("inv.csv line 3", "bytes")], info.value.problems


def test_every_data_inventory_is_read_column_by_column_and_identically():
    paths = sorted(data_path("inventories").glob("*.csv"))
    assert paths, "no inventories under data/inventories"
    for path in paths:
        assert _same_reading(path), f"{path.name}: expected the column-wise reader to read it"


@pytest.mark.slow  # a long property run (300 examples)
@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(max_size=4), st.sampled_from(["", " ", "\x85", "\u2028", "\x1c"]))))
def test_arrow_buffers_say_missing_and_blank_exactly_as_python_strings_do(values):
    s = pd.Series(values, dtype="str")
    na, blank = arrow_text_masks(arrow_chunks(s))
    want_na = [v is None for v in values]
    want_blank = [v is not None and is_blank(v) for v in values]
    assert na.tolist() == want_na, f"{values!r}: expected missing {want_na}, got {na.tolist()}"
    assert blank.tolist() == want_blank, f"{values!r}: expected blank {want_blank}, got {blank.tolist()}"


def test_a_sliced_many_chunk_arrow_column_is_read_at_its_own_offsets():
    chunked = pa.chunked_array([pa.array(["x", " ", None, "y"]).slice(1), pa.array(["", "z"])])
    s = pd.Series(pd.arrays.ArrowExtensionArray(chunked))
    na, blank = arrow_text_masks(arrow_chunks(s))
    assert (na.tolist(), blank.tolist()) == ([False, True, False, False, False], [True, False, False, True, False])


def test_repeated_blank_candidates_are_each_decided_as_their_own_string():
    """Values whose first byte could start whitespace are decided once per distinct string, and
    each row gets its own string's verdict (several chunks, one sliced, with missing values)."""
    odd = ["  ", "\u3000", "\u3000x", "\x1c", "\x1cz", "\t\n", "é", "ü ", "", "x", None, "\u2028", "\u2029a"]
    rows = [odd[(7 * i) % len(odd)] for i in range(400)]
    chunked = pa.chunked_array([pa.array(["pad"] + rows[:150]).slice(1), pa.array(rows[150:])])
    na, blank = arrow_text_masks(arrow_chunks(pd.Series(pd.arrays.ArrowExtensionArray(chunked))))
    assert na.tolist() == [v is None for v in rows]
    want = [v is not None and is_blank(v) for v in rows]
    assert blank.tolist() == want, [(i, rows[i]) for i, (a, b) in enumerate(zip(blank, want)) if a != b][:5]


def test_arrow_codes_take_only_a_value_equal_to_a_set_member():
    """A prefix, an extension, another case, an accent or a missing value is no member, in any
    chunk, sliced or not, with or without missing values."""
    near = ["model", "mode", "models", "Model", "modèl", "application", "applicatio", "application ", "", None]
    values = [near[(3 * i) % len(near)] for i in range(300)]
    chunked = pa.chunked_array(
        [
            pa.array(["x"] + values[:100], type=pa.large_string()).slice(1),
            pa.array(values[100:], type=pa.large_string()),
            pa.array([v for v in values if v is not None][:50], type=pa.large_string()),
        ]
    )
    flat = values + [v for v in values if v is not None][:50]
    got = arrow_codes(arrow_chunks(pd.Series(pd.arrays.ArrowExtensionArray(chunked))), INITIATORS)
    want = [INITIATORS.index(v) if v in INITIATORS else -1 for v in flat]
    assert got.tolist() == want, [(i, flat[i], int(got[i])) for i in range(len(flat)) if got[i] != want[i]][:5]


@pytest.mark.parametrize("storage", ["pyarrow-str", "arrow-dtype", "python", "object"])
def test_the_sweep_decides_arrow_python_and_object_text_columns_alike(storage):
    frame = load_inventory(data_path("inventories", "synthetic-200.csv"))
    frame.loc[frame.index[:3], "uri"] = [" ", "\u3000", None]
    want = sweep(frame.astype({"uri": object, "mime": object, "provenance": object}))["outcome"].tolist()
    convert = {
        "pyarrow-str": "str",
        "arrow-dtype": pd.ArrowDtype(pa.large_string()),
        "python": "string[python]",
        "object": object,
    }[storage]
    got = sweep(frame.astype({"uri": convert, "mime": convert, "provenance": convert}))["outcome"].tolist()
    assert got == want, f"{storage}: expected {want[:5]}…, got {got[:5]}…"
    assert want[:3] == ["custody-incomplete"] * 3, want[:3]


def test_to_frame_holds_every_field_of_every_case_as_case_get_reads_it():
    cases = [
        c.with_changes(title=f"t{i}", requiresCurrent=i % 2 == 0)
        for i, c in enumerate(cl.load_cases(data_path("cases.json")))
    ]
    frame = to_frame(cases)
    for name in frame.columns:
        want = [c.get(name) for c in cases]
        got = [None if pd.isna(v) else v for v in frame[name].astype(object)]
        assert got == want, f"column {name!r}: expected {want}, got {got}"


def test_load_inventory_marks_its_text_columns_blank_free_and_the_sweep_agrees_with_a_full_check(tmp_path):
    from custody_lab.whatif.arrow_text import known_masks

    rows = [HEADER] + [GOOD.format(id=f"r{i}", size=4090 + i) for i in range(12)]
    rows.append("x,,application,read,listed-resource,  ,NULL,10,TRUE, False ,null,\u3000,")
    path = tmp_path / "inv.csv"
    path.write_text("\n".join(rows) + "\n")
    frame = load_inventory(path)
    assert all(known_masks(frame[c]) is not None for c in ("uri", "mime", "provenance")), "not marked"
    unmarked = frame.assign(**{c: pd.Series(list(frame[c]), dtype="str") for c in ("uri", "mime", "provenance")})
    assert known_masks(unmarked["uri"]) is None
    assert sweep(frame)["outcome"].tolist() == sweep(unmarked)["outcome"].tolist()
    assert sweep(frame)["outcome"].iloc[-1] == "custody-incomplete"


@pytest.mark.parametrize("blank", ["", " ", "\u3000", "\t"])
def test_a_blank_written_into_a_loaded_column_is_seen_the_mark_does_not_survive_a_change(tmp_path, blank):
    from custody_lab.whatif.arrow_text import known_masks

    path = tmp_path / "inv.csv"
    path.write_text("\n".join([HEADER] + [GOOD.format(id=f"r{i}", size=10) for i in range(3)]) + "\n")
    frame = load_inventory(path)
    assert sweep(frame)["outcome"].tolist() == ["embedded-resource"] * 3
    copied = frame.copy()
    copied.loc[1, "uri"] = blank
    assert known_masks(copied["uri"]) is None and known_masks(frame["uri"]) is not None
    assert sweep(copied)["outcome"].tolist() == ["embedded-resource", "custody-incomplete", "embedded-resource"]
    assert sweep(frame.iloc[1:])["outcome"].tolist() == ["embedded-resource"] * 2  # a slice: checked in full


def test_a_file_parsed_in_pieces_is_cut_between_records_never_inside_a_quoted_line_break(tmp_path):
    rows = [HEADER + ",description"]
    rows += [GOOD.format(id=f"r{i}", size=i) + (',"a\nb"' if i % 2 else ",c") for i in range(300)]
    path = tmp_path / "inv.csv"
    path.write_bytes(("\n".join(rows) + "\n").encode())
    done: list[int] = []
    got = read_csv_frame(path, progress=lambda at, total: done.append(at))  # progress: ten pieces
    assert isinstance(got, pd.DataFrame), f"expected the file read column-wise in pieces, got {type(got)}"
    assert len(done) >= 10, f"expected progress at each of ten pieces, got {done}"
    pd.testing.assert_frame_equal(got, to_frame(read_cases(path).cases))
