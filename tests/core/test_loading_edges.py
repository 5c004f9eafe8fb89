"""Case files and policy files at the edges: every hostile file gets a clear, located message and
exit code 2 from `custody-lab route`, never a traceback; no good row is lost or merged; loading is
linear; every problem of a bad row is listed."""

from __future__ import annotations

import csv
import json

import pytest

import custody_lab as cl
from custody_lab.cli import main
from custody_lab.core import json_table, tables
from custody_lab.core.paths import data_path

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
HEADER = ",".join(GOOD)
ROW = "{id},model,generate,resource-link,report://r,text/html,10,true,true,false,p@1"


def one(case_id: str, **changes) -> str:
    return json.dumps({**GOOD, "id": case_id, **changes})


def rows(*lines: str) -> bytes:
    return ("\n".join([HEADER, *lines]) + "\n").encode()


#: name -> (file name, content, fragment the message must hold, the ids that must still be routed)
HOSTILE: dict[str, tuple[str, bytes, str, list[str]]] = {
    "json nested 100,000 deep": (
        "deep.json",
        ("[" + "[" * 100_000 + "]" * 100_000 + "," + one("after") + "]").encode(),
        "(cases[0]): nested too deep",
        ["after"],
    ),
    "an integer over 4,300 digits": (
        "bigint.json",
        ("[" + one("big").replace('"bytes": 10', '"bytes": ' + "9" * 5000) + "," + one("after") + "]").encode(),
        "(cases[0]): holds an integer of more than 4,300 digits",
        ["after"],
    ),
    "NaN": ("nan.json", ("[" + one("n").replace('"bytes": 10', '"bytes": NaN') + "]").encode(), "NaN is not a", []),
    "Infinity": (
        "inf.json",
        ("[" + one("i").replace('"bytes": 10', '"bytes": -Infinity') + "," + one("after") + "]").encode(),
        "(cases[0]): -Infinity is not a JSON value",
        ["after"],
    ),
    "cases null": ("null.json", b'{"cases": null}', "'cases' must be a list; got null", []),
    "cases 5": ("five.json", b'{"cases": 5}', "'cases' must be a list; got the number 5", []),
    "from a list": (
        "from-list.json",
        json.dumps({"cases": [GOOD], "adversarial": [{"id": "v", "from": ["good"], "change": {"bytes": 1}}]}).encode(),
        "(adversarial[0]): 'from' must be the id of a case (a string); got a list",
        ["good"],
    ),
    "from an object": (
        "from-object.json",
        json.dumps({"cases": [GOOD], "adversarial": [{"id": "v", "from": {"id": "good"}, "change": {}}]}).encode(),
        "'from' must be the id of a case (a string); got an object",
        ["good"],
    ),
    "a lone surrogate in an id": (
        "surrogate.json",
        ("[" + one("x").replace('"x"', '"\\ud800x"') + "," + one("after") + "]").encode(),
        "field 'id' holds a lone surrogate U+D800 at position 0",
        ["after"],
    ),
    "an empty list": ("empty.json", b"[]", "empty.json: the file holds no cases", []),
    "an empty cases list": ("empty-cases.json", b'{"cases": []}', "the file holds no cases", []),
    "a key twice in a case": (
        "dup-key.json",
        ("[" + one("d").replace('"uri": "report://r"', '"uri": "report://r", "uri": "evil://x"') + "]").encode(),
        "(cases[0]): key 'uri' is written twice in one object",
        [],
    ),
    "a second top-level cases key": (
        "two-cases.json",
        ('{"cases": [' + one("a") + '],\n "cases": [' + one("b") + "]}").encode(),
        "two-cases.json line 2: the top-level key 'cases' is written twice (first on line 1)",
        ["a"],
    ),
    "not JSON after the value": ("extra.json", ("[" + one("a") + "] x").encode(), "not valid JSON: Extra data", []),
    "a json scalar": ("scalar.json", b'"cases"', "a list of cases or an object with 'cases'; got the string", []),
    "an unclosed csv quote": (
        "unclosed.csv",
        rows(ROW.format(id="ok"), '"bad' + ROW.format(id="")[0:], ROW.format(id="ok2"), ROW.format(id="ok3")),
        "unclosed.csv line 3: a quoted cell is not closed before the end of the file",
        ["ok", "ok2", "ok3"],
    ),
    "a csv cell over the field limit": (
        "limit.csv",
        rows(ROW.format(id="ok"), ROW.format(id="x" * 200_000), ROW.format(id="ok2")),
        "limit.csv line 3: a cell is longer than 131,072 characters (the csv module's field limit)",
        ["ok", "ok2"],
    ),
    "a NUL byte": (
        "nul.csv",
        rows(ROW.format(id="ok"), ROW.format(id="n\x00ul"), ROW.format(id="ok2")),
        "nul.csv line 3: the line holds a NUL byte at column 2",
        ["ok", "ok2"],
    ),
    "a short row": (
        "short.csv",
        rows(ROW.format(id="ok"), "short,model"),
        "short.csv line 3: row has 2 values",
        ["ok"],
    ),
    "a long row": (
        "long.csv",
        rows(ROW.format(id="long") + ",extra", ROW.format(id="ok")),
        "long.csv line 2: row has 12 values but the header names 11 columns",
        ["ok"],
    ),
    "a line that is not UTF-8": (
        "latin.csv",
        rows(ROW.format(id="ok")) + ROW.format(id="caf\xe9").encode("latin-1") + b"\n",
        "latin.csv line 3: the line is not UTF-8 (byte 0xe9 at column 4)",
        ["ok"],
    ),
    "old mac line ends": (
        "cr.csv",
        rows(ROW.format(id="ok")).replace(b"\n", b"\r"),
        "cr.csv line 1: the header: a line ends with a bare carriage return",
        [],
    ),
    "a column twice": ("dup.csv", b"id,uri,id\nx,u,y\n", "dup.csv line 1: column 'id' appears more than once", []),
}


def route(capsys, tmp_path, name: str, content: bytes, *extra: str) -> tuple[int, str, str]:
    path = tmp_path / name
    path.write_bytes(content)
    code = main(["route", *extra, str(path)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_case_file_is_refused_with_a_located_message_and_exit_2_keeping_the_good_rows(capsys, tmp_path, name):
    file_name, content, fragment, kept = HOSTILE[name]
    code, out, err = route(capsys, tmp_path, file_name, content)
    assert code == 2, f"{name}: expected exit 2, got {code}; stderr={err!r}"
    assert fragment in err, f"{name}: expected {fragment!r} in stderr, got {err!r}"
    assert "Traceback" not in err, f"{name}: {err}"
    routed = [line.split()[0] for line in out.splitlines()]
    assert routed == kept, f"{name}: expected {kept} routed, got {routed}"


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b'{"now": "caf\xe9"}', "not UTF-8: byte 0xe9 at line 1, column 13"),
        (('{"now": ' + "[" * 100_000 + "]" * 100_000 + "}").encode(), "nested too deep"),
        (('{"embedLimitBytes": ' + "9" * 5000 + "}").encode(), "an integer of more than 4,300 digits"),
        (('{"embedLimitBytes": ' + "9" * 4000 + "}").encode(), "embedLimitBytes must be a whole number"),
        (b'{"embedLimitBytes": NaN}', "NaN is not a JSON value"),
        (b'{"embedLimitBytes": 1, "embedLimitBytes": 99999}', "key 'embedLimitBytes' is written twice"),
        (b'{"embedLimitBytes": {"nested": 1}}', "embedLimitBytes must be a whole number"),
        (b'{"embedLimitBytes": 1} trailing', "not valid JSON"),
    ],
)
def test_a_hostile_policy_file_is_a_one_line_message_and_exit_2(capsys, tmp_path, content, fragment):
    policy = tmp_path / "policy.json"
    policy.write_bytes(content)
    code = main(["route", "--policy", str(policy), str(data_path("cases.json"))])
    err = capsys.readouterr().err
    assert code == 2 and fragment in err, f"{content[:40]!r}: expected exit 2 and {fragment!r}; got {code}, {err!r}"
    assert "Traceback" not in err and len(err) < 400, f"{content[:40]!r}: {err!r}"


def test_a_bad_csv_row_lists_every_one_of_its_problems_in_field_order(tmp_path):
    path = tmp_path / "three.csv"
    path.write_bytes(rows("x,robot,generate,resource-link,report://r,text/html,-1,true,yes,false,p@1"))
    result = cl.read_cases(path)
    got = [(p.location, p.field) for p in result.problems]
    want = [("three.csv line 2", "initiator"), ("three.csv line 2", "bytes"), ("three.csv line 2", "allowed")]
    assert got == want, f"expected {want}, got {got}"


def test_a_bad_json_case_lists_every_problem_and_its_error_keeps_the_first_field():
    bad = {**GOOD, "initiator": "robot", "bytes": "1800", "sideEfects": False}
    with pytest.raises(cl.CaseError) as info:
        cl.Case.from_dict(bad)
    err = info.value
    fields = [p.field for p in err.problems]
    assert fields == ["sideEfects", "initiator", "bytes"], f"{bad}: problems {fields}"
    assert err.field == "sideEfects" and str(err).startswith("3 problems: (1) unknown field 'sideEfects'"), str(err)
    assert "(3) field 'bytes'" in str(err), str(err)


def test_an_error_about_one_field_lists_itself_as_its_only_problem():
    with pytest.raises(cl.CaseError) as info:
        cl.Case.from_dict({**GOOD, "bytes": -1})
    assert info.value.problems == [info.value] and info.value.field == "bytes", info.value.problems


def test_a_quoted_cell_over_several_lines_is_one_row_and_later_lines_keep_their_numbers(tmp_path):
    header = HEADER + ",title"
    text = f'{header}\n{ROW.format(id="a")},"two\nlines"\n{ROW.format(id="b")},x\nbad,robot\n'
    path = tmp_path / "multi.csv"
    path.write_text(text, encoding="utf-8")
    result = cl.read_cases(path)
    assert [c.id for c in result.cases] == ["a", "b"] and result.cases[0].title == "two\nlines", result.cases
    assert [p.location for p in result.problems] == ["multi.csv line 5"], result.problems


def test_an_unclosed_quote_before_many_rows_costs_only_its_own_row(tmp_path):
    later = [ROW.format(id=f"r{i}") for i in range(3 * tables.MAX_RECORD_LINES)]
    path = tmp_path / "unclosed.csv"
    path.write_bytes(rows(ROW.format(id="first"), '"open' + ROW.format(id=""), *later))
    result = cl.read_cases(path)
    assert [p.location for p in result.problems] == ["unclosed.csv line 3"], result.problems
    assert "not closed within 100 lines" in result.problems[0].message, result.problems[0].message
    assert [c.id for c in result.cases] == ["first"] + [f"r{i}" for i in range(len(later))], len(result.cases)


def test_a_quote_that_closes_rows_later_does_not_merge_them(tmp_path):
    # line 3 opens a quote that line 5's last cell closes: one record of the wrong width, not a row
    path = tmp_path / "merge.csv"
    path.write_bytes(rows(ROW.format(id="ok"), '"open,x', ROW.format(id="mid"), ROW.format(id='end"')))
    result = cl.read_cases(path)
    locations = [p.location for p in result.problems]
    assert locations[0] == "merge.csv line 3" and "read again" in result.problems[0].message, result.problems
    assert "mid" in [c.id for c in result.cases], f"line 4 was merged away: {result.cases}"


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_every_line_of_a_json_or_csv_file_with_a_problem_on_each_row_is_numbered_right(tmp_path, fmt):
    n = 50
    if fmt == "json":
        text = "[\n" + ",\n".join(one(f"c{i}", bytes=-i - 1) for i in range(n)) + "\n]\n"
        want = [f"bad.json line {i + 2} (cases[{i}])" for i in range(n)]
    else:
        text = HEADER + "\n" + "\n".join(ROW.format(id=f"c{i}").replace(",10,", ",-1,") for i in range(n)) + "\n"
        want = [f"bad.csv line {i + 2}" for i in range(n)]
    path = tmp_path / f"bad.{fmt}"
    path.write_text(text, encoding="utf-8")
    got = [p.location for p in cl.read_cases(path).problems]
    assert got == want, f"first difference: {next((g, w) for g, w in zip(got, want) if g != w)}"


class CountingText(str):
    """A str whose ``count`` adds up how many characters it was asked to look through."""

    looked = 0

    def count(self, sub, start=0, end=None):  # type: ignore[override]
        stop = len(self) if end is None else end
        CountingText.looked += max(stop - start, 0)
        return super().count(sub, start, end)


def test_line_numbers_of_a_json_file_are_counted_in_one_pass_not_once_per_entry():
    n = 2000
    text = CountingText("[\n" + ",\n".join(one(f"c{i}", bytes=-1) for i in range(n)) + "\n]")
    CountingText.looked = 0
    table = json_table.JsonDoc(text, "t.json", len(text)).table()
    wheres = [e.where for e in table.entries]  # every location asked for: the worst case
    assert wheres[-1] == f"t.json line {n + 1} (cases[{n - 1}])", wheres[-1]
    assert CountingText.looked <= 2 * len(text), f"looked at {CountingText.looked} chars of a {len(text)}-char file"


def test_a_json_file_without_problems_never_counts_its_lines():
    text = CountingText("[\n" + ",\n".join(one(f"c{i}") for i in range(100)) + "\n]")
    CountingText.looked = 0
    result = cl.core.loading._load(json_table.JsonDoc(text, "t.json", len(text)).table())[0]
    assert len(result.cases) == 100 and not result.problems, result.problems
    assert CountingText.looked == 0, CountingText.looked


def test_progress_is_reported_in_bytes_rising_to_the_file_size(tmp_path):
    path = tmp_path / "many.csv"
    path.write_bytes(rows(*(ROW.format(id=f"r{i}") for i in range(3000))))
    seen: list[tuple[int, int]] = []
    cases = cl.load_cases(path, progress=lambda done, total: seen.append((done, total)))
    size = path.stat().st_size
    assert len(cases) == 3000 and seen[-1] == (size, size), seen[-3:]
    assert 50 <= len(seen) <= 110, f"expected about one call per percent, got {len(seen)}"
    assert [d for d, _ in seen] == sorted(d for d, _ in seen), "progress went backwards"


@pytest.mark.parametrize("command", ["route", "sweep"])
def test_route_and_sweep_print_a_progress_line_for_a_large_file_and_none_for_a_small_one(
    capsys, tmp_path, monkeypatch, command
):
    from custody_lab.core import loading

    path = tmp_path / "big.csv"
    path.write_bytes(rows(*(ROW.format(id=f"r{i}") for i in range(2000))))
    monkeypatch.setattr(loading, "PROGRESS_FROM_BYTES", path.stat().st_size)
    assert main([command, str(path)]) == 0
    lines = capsys.readouterr().err.splitlines()
    mb = f"of {path.stat().st_size / 1e6:.1f} MB"
    want = [f"reading big.csv: {p:3d}% {mb}" for p in range(0, 101, 10)]
    assert lines == want, f"{command}: expected {want}, got {lines}"
    monkeypatch.setattr(loading, "PROGRESS_FROM_BYTES", path.stat().st_size + 1)
    assert main([command, str(path)]) == 0
    assert capsys.readouterr().err == "", command


def test_route_shows_control_and_bidi_characters_of_case_text_instead_of_obeying_them(capsys, tmp_path):
    name = "evil\x1b[2J\u202etxt.exe\r"
    path = tmp_path / "evil.json"
    path.write_text(json.dumps([{**GOOD, "id": name}, {**GOOD, "id": "x\x9b", "bytes": -1}]), encoding="utf-8")
    assert main(["route", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out.split()[0] == "evil\\x1b[2J\\u202etxt.exe\\x0d", captured.out
    assert "\x1b" not in captured.err + captured.out and "\x9b" not in captured.err, captured.err
    assert main(["route", "--json", str(path)]) == 2
    out = capsys.readouterr().out
    assert json.loads(out)[0]["id"] == name, out
    assert "\\u202e" in out and "\u202e" not in out and "\x1b" not in out, out


@pytest.mark.parametrize(
    ("value", "blank"),
    [(" ", True), ("\t\n", True), ("\u3000", True), ("\x85", True), ("", True), (" a ", False), ("\u200b", False)],
)
def test_a_uri_mime_or_provenance_of_only_whitespace_is_custody_incomplete_for_route_and_sweep(value, blank):
    from custody_lab.sweep import sweep, to_frame

    for name in ("uri", "mime", "provenance"):
        case = cl.Case.from_dict({**GOOD, name: value})
        expected = "custody-incomplete" if blank else "resource-link"
        got = (cl.route(case).outcome, sweep(to_frame([case]))["outcome"].astype(str).tolist()[0])
        assert got == (expected, expected), f"{name}={value!r}: expected {expected} from both, got {got}"


def test_the_sweep_finds_blank_text_in_every_column_layout_exactly_as_the_core_definition():
    import numpy as np
    import pandas as pd

    from custody_lab.core.blank import WHITESPACE, is_blank
    from custody_lab.whatif import validation

    spaces = [chr(c) for c in range(0x110000) if chr(c).isspace()]
    strings = ["", " ", "a", " a", "\u3000\u2028", "é", "\x1f", "\x1e ", "\u200b", "u://x", *spaces, *WHITESPACE]
    for values in (strings, [*strings, None]):  # with and without a missing value
        want = [v is None or is_blank(v) for v in values]
        for layout in ("object", "str", "string", "category"):
            column = pd.Series(values, dtype=object if layout == "object" else layout)
            text = validation._text(pd.DataFrame({"uri": column}), "uri", False)
            got = np.broadcast_to(text.na | text.empty, (len(values),)).tolist()
            wrong = [(v, g) for v, g, w in zip(values, got, want) if g != w]
            assert got == want, f"{layout}, {len(values)} values: {wrong}"


def test_a_cell_of_csv_text_is_never_cut_silently_at_the_field_limit(tmp_path):
    limit = csv.field_size_limit()
    path = tmp_path / "edge.csv"
    path.write_bytes(rows(ROW.format(id="x" * limit), ROW.format(id="y" * (limit + 1))))
    result = cl.read_cases(path)
    assert [len(c.id) for c in result.cases] == [limit], [len(c.id) for c in result.cases]
    assert [p.location for p in result.problems] == ["edge.csv line 3"], result.problems
