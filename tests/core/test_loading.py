"""Case files: JSON and CSV, every bad row reported with its line and field, no good row lost."""

from __future__ import annotations

import json
import re

import pytest

import custody_lab as cl

MIXED_JSON = """[
  {"id": "good-1", "initiator": "application", "operation": "read", "shape": "listed-resource",
   "uri": "kb://a", "mime": "text/plain", "bytes": 10, "current": true, "allowed": true,
   "sideEffects": false, "provenance": "p@1"},
  {"id": "bad-bytes", "initiator": "application", "operation": "read", "shape": "listed-resource",
   "uri": "kb://b", "mime": "text/plain", "bytes": "1800", "current": true, "allowed": true,
   "sideEffects": false, "provenance": "p@1"},
  {"id": "good-2", "initiator": "model", "operation": "calculate", "shape": "structured-tool-result",
   "uri": "urn:x", "mime": "application/json", "bytes": 5, "current": true, "allowed": true,
   "sideEffects": false, "provenance": "p@2"},
  {"id": "typo", "initiator": "model", "operation": "calculate", "shape": "structured-tool-result",
   "uri": "urn:y", "mime": "application/json", "bytes": 5, "current": true, "allowed": true,
   "sideEfects": false, "provenance": "p@2"},
  {"id": "good-3", "initiator": "model", "operation": "generate", "shape": "resource-link",
   "uri": "report://r", "mime": "text/html", "bytes": 18000, "current": true, "allowed": true,
   "sideEffects": false, "provenance": "p@3"}
]
"""

MIXED_CSV = """id,initiator,operation,shape,uri,mime,bytes,current,allowed,sideEffects,provenance,requiresCurrent
good-1,application,read,listed-resource,kb://a,text/plain,10,true,true,false,p@1,
bad-initiator,user,read,listed-resource,kb://b,text/plain,10,true,true,false,p@1,
good-2,model,mutate,embedded-resource,draft://9,application/json,760,TRUE,true,true,p@3,false
bad-bool,model,mutate,embedded-resource,draft://9,application/json,760,yes,true,true,p@3,
"gap, quoted",model,mutate,embedded-resource,,application/json,760,true,true,,p@3,
bad-bytes,model,mutate,embedded-resource,draft://9,application/json,18k,true,true,true,p@3,
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_data_file_holds_six_seed_cases_and_four_variants():
    from custody_lab.core.paths import data_path

    cases = cl.load_cases(data_path("cases.json"))
    assert len(cases) == 10
    fixture = cl.load_fixture()
    assert len(fixture.cases) == 6 and len(fixture.adversarial) == 4


def test_a_json_file_with_bad_rows_reports_every_one_and_keeps_the_good_ones(tmp_path):
    path = write(tmp_path, "mixed.json", MIXED_JSON)
    with pytest.raises(cl.CaseFileError) as info:
        cl.load_cases(path)
    err = info.value
    assert [c.id for c in err.cases] == ["good-1", "good-2", "good-3"]
    assert [(p.location, p.field) for p in err.problems] == [
        ("mixed.json line 5 (cases[1])", "bytes"),
        ("mixed.json line 11 (cases[3])", "sideEfects"),
    ]
    assert "did you mean 'sideEffects'" in str(err)
    assert "2 problem(s); 3 good row(s) kept" in str(err)


def test_a_csv_file_with_bad_rows_reports_every_one_with_its_line(tmp_path):
    path = write(tmp_path, "mixed.csv", MIXED_CSV)
    result = cl.read_cases(path)
    assert [c.id for c in result.cases] == ["good-1", "good-2", "gap, quoted"]
    assert [(p.location, p.field) for p in result.problems] == [
        ("mixed.csv line 3", "initiator"),
        ("mixed.csv line 5", "current"),
        ("mixed.csv line 7", "bytes"),
    ]
    gap = result.cases[2]
    assert gap.uri is None and gap.side_effects is None
    assert cl.route(gap).rejection == "custody-incomplete"
    assert result.cases[1].requires_current is False and result.cases[1].current is True


def test_a_csv_row_with_the_wrong_number_of_cells_is_reported(tmp_path):
    path = write(tmp_path, "short.csv", "id,initiator\nx,model,extra\n")
    result = cl.read_cases(path)
    assert result.cases == [] and "header names 2 columns" in result.problems[0].message


def test_duplicate_ids_are_reported_not_silently_merged(tmp_path):
    one = json.loads(MIXED_JSON)[0]
    path = write(tmp_path, "dup.json", json.dumps([one, one]))
    result = cl.read_cases(path)
    assert len(result.cases) == 1
    assert result.problems[0].field == "id" and "duplicate id 'good-1'" in result.problems[0].message


def test_invalid_json_names_the_line_and_column(tmp_path):
    path = write(tmp_path, "broken.json", '[\n  {"id": "x",}\n]')
    result = cl.read_cases(path)
    assert result.problems[0].location == "broken.json line 2 column 14"


def test_an_unknown_file_type_is_refused(tmp_path):
    path = write(tmp_path, "cases.txt", "")
    with pytest.raises(cl.CaseFileError, match="expected a .json or .csv file"):
        cl.load_cases(path)


def test_a_variant_from_an_unknown_case_is_reported(tmp_path):
    doc = {
        "cases": [json.loads(MIXED_JSON)[0]],
        "adversarial": [
            {"id": "v1", "from": "good-1", "change": {"allowed": False}, "expect": "permission-denied"},
            {"id": "v2", "from": "nope", "change": {"allowed": False}},
            {"id": "v3", "from": "good-1", "change": {"bytes": -1}},
        ],
    }
    path = write(tmp_path, "variants.json", json.dumps(doc, indent=1))
    result = cl.read_cases(path)
    assert [c.id for c in result.cases] == ["good-1", "v1"]
    assert [p.field for p in result.problems] == ["from", "bytes"]
    assert cl.route(result.cases[1]).rejection == result.expected["v1"]


def test_an_empty_csv_is_a_problem_not_an_empty_success(tmp_path):
    result = cl.read_cases(write(tmp_path, "empty.csv", ""))
    assert result.problems and result.cases == []


HEADER = "id,initiator,operation,shape,uri,mime,bytes,current,allowed,sideEffects,provenance"
ROW = "r,model,generate,resource-link,r://1,text/html,{bytes},true,true,false,p"


def test_a_csv_or_json_file_with_a_byte_order_mark_reads_like_one_without(tmp_path):
    text = HEADER + "\n" + ROW.format(bytes=10) + "\n"
    plain = cl.read_cases(write(tmp_path, "plain.csv", text))
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    with_bom = cl.read_cases(bom)
    assert with_bom.problems == [] and with_bom.cases == plain.cases, with_bom.problems
    doc = tmp_path / "bom.json"
    doc.write_bytes(b"\xef\xbb\xbf" + json.dumps([plain.cases[0].to_dict()]).encode())
    assert cl.load_cases(doc) == plain.cases


def test_an_unknown_csv_column_refuses_the_whole_file_naming_it_and_a_close_name(tmp_path):
    text = HEADER.replace("sideEffects", "sideEfects") + ",owner\n" + ROW.format(bytes=10) + ",me\n"
    result = cl.read_cases(write(tmp_path, "typo.csv", text))
    assert result.cases == []
    assert [(p.location, p.field) for p in result.problems] == [
        ("typo.csv line 1", "sideEfects"),
        ("typo.csv line 1", "owner"),
    ]
    assert "did you mean 'sideEffects'?" in result.problems[0].message
    assert "initiator, operation, shape" in result.problems[1].message
    assert all("unknown columns are refused, not ignored" in p.message for p in result.problems), result.problems


@pytest.mark.parametrize(
    ("column", "suggested"),
    [("notes", None), ("owner", None), ("url", None), ("byts", "bytes"), ("Side_Effects", "sideEffects")],
)
def test_an_unknown_column_is_offered_only_a_close_field_name(tmp_path, column, suggested):
    text = HEADER + f",{column}\n" + ROW.format(bytes=10) + ",x\n"
    message = cl.read_cases(write(tmp_path, "extra.csv", text)).problems[0].message
    hint = re.search(r"did you mean '(\w+)'\?", message)
    assert (hint and hint.group(1)) == (suggested or None), f"{column!r}: expected {suggested!r}, got {message!r}"


@pytest.mark.parametrize(
    ("cell", "hint"),
    [
        ("1_000", "without '_' separators"),
        ("١٢٣", "digits 0-9 only"),
        ("１２", "digits 0-9 only"),
        ("1e3", "digits 0-9 only"),
        ("12.0", "digits 0-9 only"),
        ("18k", "got '18k'"),
        ("5 KB", "(a number of bytes, no units: 1 KB is written 1000 or 1024"),
        ("2.5MB", "(a number of bytes, no units"),
        ("1800 bytes", "(a number of bytes, no units"),
    ],
)
def test_a_size_that_is_not_plain_ascii_digits_is_refused_naming_the_line_and_the_field(tmp_path, cell, hint):
    text = HEADER + "\n" + ROW.format(bytes=10) + "\n" + ROW.format(bytes=cell).replace("r,", "s,", 1) + "\n"
    result = cl.read_cases(write(tmp_path, "sizes.csv", text))
    assert [c.id for c in result.cases] == ["r"], f"{cell!r}: {result.cases}"
    assert [(p.location, p.field) for p in result.problems] == [("sizes.csv line 3", "bytes")], result.problems
    assert hint in result.problems[0].message, result.problems[0].message


@pytest.mark.parametrize(("cell", "size"), [("1800", 1800), (" 42 ", 42), ("+7", 7), ("0", 0)])
def test_a_size_in_plain_ascii_digits_is_read_as_a_number(tmp_path, cell, size):
    result = cl.read_cases(write(tmp_path, "ok.csv", HEADER + "\n" + ROW.format(bytes=cell) + "\n"))
    assert [c.bytes for c in result.cases] == [size], f"{cell!r}: {result.problems}"


def test_parse_cases_with_an_unknown_format_raises_a_case_file_error():
    with pytest.raises(cl.CaseFileError, match="unknown case file format 'yaml'") as info:
        cl.parse_cases("a: 1", fmt="yaml")
    assert isinstance(info.value, ValueError) and info.value.problems[0].location == "<text>"


def test_an_unknown_fixture_case_id_is_a_lab_error_and_a_key_error_listing_the_ids():
    from custody_lab.core.errors import UnknownCaseError

    with pytest.raises(UnknownCaseError) as info:
        cl.load_fixture().case("nope")
    err = info.value
    assert isinstance(err, KeyError) and isinstance(err, cl.CustodyLabError)
    assert str(err).startswith("no fixture case 'nope'; the cases are: handbook, ") and err.case_id == "nope"
