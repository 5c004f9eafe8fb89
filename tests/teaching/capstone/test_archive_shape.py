"""A malformed or tampered archive gets a clear message naming the line and field, never a traceback."""

from __future__ import annotations

import copy
import json
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from custody_lab.core.receipts import digest
from custody_lab.teaching.capstone import GIVEN_INVENTORY, archive_shape, write_archive
from custody_lab.teaching.capstone.archive_shape import FIELD_TYPES, MAX_ARCHIVE_LINES, parse_archive, shape_problems
from custody_lab.teaching.capstone.rubric import RUBRIC_STEPS, check_archive, check_lines

from .archives import CASES, failures, good_lines, good_report, line_of

#: Values of every JSON type, to put where another type belongs.
WRONG = (None, True, 7, 2.5, "text", [], {}, [1, "a"], {"kind": "x"})


def _rubric(lines):
    return check_lines(lines, inventory=CASES, audit=good_report())


def test_the_good_archive_is_readable():
    assert shape_problems(good_lines()) == []


@pytest.mark.parametrize("n", range(16))
def test_any_field_of_any_line_set_to_any_type_gets_a_message_never_a_traceback(n):
    base = good_lines()
    assert len(base) == 16, len(base)
    for field in [k for k in base[n] if k != "kind"]:
        for value in WRONG:
            lines = copy.deepcopy(base)
            lines[n][field] = value
            rubric = _rubric(lines)  # must not raise
            allowed = FIELD_TYPES[base[n]["kind"]].get(field, ())
            wrong_type = not any(
                (t is None and value is None)
                or (t is not None and isinstance(value, t) and not (t is int and isinstance(value, bool)))
                for t in allowed
            )
            if wrong_type:
                problems = rubric.step("readable").problems
                assert any(f"line {n + 1}" in p and repr(field) in p for p in problems), (
                    f"line {n + 1} field {field!r} = {value!r}: expected a readable problem naming both; got {problems}"
                )


def _inside(line: dict, part: str) -> dict:
    value = line
    for key in part.split("."):
        value = value[int(key)] if isinstance(value, list) else value[key]
    return value


@pytest.mark.parametrize(
    ("kind", "part"),
    [
        ("design", "receipt"),
        ("design", "receipt.custody"),
        ("design", "case"),
        ("design", "fix"),
        ("live", "receipt"),
        ("live", "receipt.custody"),
        ("summary", "receipts.0"),
        ("summary", "counts"),
        ("header", "policy"),
    ],
)
def test_a_receipt_case_or_fix_with_wrong_insides_gets_a_message_never_a_traceback(kind, part):
    base = good_lines()
    n = next(i for i, x in enumerate(base) if x["kind"] == kind and _inside(x, part.split(".")[0]))
    for key in list(_inside(base[n], part)):
        for value in WRONG:
            lines = copy.deepcopy(base)
            _inside(lines[n], part)[key] = value
            rubric = _rubric(lines)
            if not rubric.passed:
                text = rubric.text()
                assert f"line {n + 1}" in text or "the summary" in text, f"{part}.{key} = {value!r}:\n{text}"


def test_a_line_that_is_not_json_fails_readable_naming_the_line(tmp_path):
    path = write_archive(tmp_path / "a.jsonl", good_lines())
    raw = path.read_text(encoding="utf-8").splitlines()
    raw[2] = raw[2][:-1]  # a cut line
    path.write_text("\n".join(raw) + "\n", encoding="utf-8")
    rubric = check_archive(path, inventory=GIVEN_INVENTORY, audit=good_report())
    (problem,) = rubric.step("readable").problems
    assert problem.startswith("a.jsonl line 3: not JSON"), problem
    assert [s.step for s in rubric.steps] == list(RUBRIC_STEPS) and not rubric.passed, rubric.text()


def test_a_missing_archive_or_inventory_is_a_message_not_a_traceback(tmp_path):
    rubric = check_archive(tmp_path / "none.jsonl", inventory=GIVEN_INVENTORY)
    assert "none.jsonl: cannot be read" in rubric.step("readable").problems[0], rubric.text()
    path = write_archive(tmp_path / "a.jsonl", good_lines())
    rubric = check_archive(path, inventory=tmp_path / "missing.csv", audit=good_report())
    assert "the inventory cannot be read" in rubric.step("routed").problems[0], rubric.text()


def test_lines_out_of_order_or_of_an_unknown_kind_are_named():
    lines = good_lines()
    lines.insert(3, {"kind": "note", "text": "hi"})
    lines.append(copy.deepcopy(lines[0]))
    problems = shape_problems(lines)
    assert any("line 4 (note): kind 'note' is not one of" in p for p in problems), problems
    assert any("the last line is not the summary" in p for p in problems), problems
    assert any("2 header lines" in p for p in problems), problems


def test_a_live_receipt_edited_after_the_audit_fails_even_with_its_sha256_recomputed():
    lines = good_lines()
    live = line_of(lines, "live", "export_notes")
    live["receipt"]["custody"]["uri"] = "export://notes/none.md"
    for item in lines[-1]["receipts"]:
        if item["id"] == "export_notes":
            item["sha256"] = digest(live["receipt"])
    failed = failures(lines)
    assert list(failed) == ["matches-the-audit"], failed
    (problem,) = failed["matches-the-audit"]
    assert "line 13 (live 'export_notes'): field 'receipt' is not what the live audit recorded" in problem, problem


def test_a_live_line_removed_or_a_header_edited_is_named():
    lines = good_lines()
    lines.remove(line_of(lines, "live", "delete_note"))
    lines[0]["server"] = {"name": "other", "version": "9"}
    problems = failures(lines)["matches-the-audit"]
    assert any("recorded tool 'delete_note'; the archive has no line for it" in p for p in problems), problems
    assert any("line 1: the header's server or protocol" in p for p in problems), problems


def test_parse_archive_keeps_the_good_lines_and_names_the_bad_ones():
    text = "\n".join([json.dumps({"kind": "header"}), "[1, 2]", "{nope", json.dumps({"kind": "summary"})])
    lines, problems = parse_archive(text, "a.jsonl")
    assert [x["kind"] for x in lines] == ["header", "summary"], lines
    assert problems[0] == "a.jsonl line 2: not an archive line (field 'kind')", problems
    assert problems[1].startswith("a.jsonl line 3: not JSON"), problems


def test_an_archive_of_two_million_short_lines_is_not_parsed_and_gets_one_finding(tmp_path):
    # the archive: 2,000,000 short lines (6 MB, under the byte limit) cost 1.2 GB when parsed
    text = "{}\n" * 2_000_000
    tracemalloc.start()
    try:
        lines, problems = parse_archive(text, "many.jsonl")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    expected = [f"many.jsonl: more than {MAX_ARCHIVE_LINES:,} lines, over the archive limit; not read"]
    assert (lines, problems) == ([], expected), (lines[:2], problems[:2])
    assert peak < 8 * 2**20, f"reading past the line bound held {peak:,} bytes at its peak"
    target = tmp_path / "many.jsonl"
    target.write_text(text, encoding="utf-8")
    assert check_archive(target, inventory=GIVEN_INVENTORY).step("readable").problems == tuple(expected)


def test_an_archive_of_exactly_the_line_bound_is_parsed(monkeypatch):
    monkeypatch.setattr(archive_shape, "MAX_ARCHIVE_LINES", 3)
    three = "\n".join(json.dumps({"kind": k}) for k in ("header", "live", "summary"))
    assert [x["kind"] for x in parse_archive(three, "a.jsonl")[0]] == ["header", "live", "summary"]
    lines, problems = parse_archive(three + '\n{"kind": "summary"}', "a.jsonl")
    assert (lines, problems) == ([], ["a.jsonl: more than 3 lines, over the archive limit; not read"]), problems


@given(st.text(st.sampled_from('ab{}"\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029'), max_size=30))
def test_lines_are_numbered_as_splitlines_numbers_them(text):
    assert list(archive_shape._lines(text)) == text.splitlines(), repr(text)


def test_a_header_policy_raised_to_let_the_export_embed_is_named_and_not_used():
    from custody_lab.teaching.capstone import archive_lines, review_design

    from .archives import CONSENTS, REASONS

    loose = {"embedLimitBytes": 100_000, "now": "2026-09-04T12:00:00.000Z"}
    rows = review_design(CASES, fixes={"word-count": {"uri": "urn:notes:word-count:7"}}, reasons=REASONS)
    lines = archive_lines(rows, good_report(), CONSENTS)
    lines[0]["policy"] = {**lines[0]["policy"], **loose}
    problems = failures(lines)["routed"]
    assert any(p.startswith("line 1: the header's policy") and "field 'policy'" in p for p in problems), problems
