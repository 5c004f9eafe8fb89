"""`custody-lab route` and `custody-lab sweep` read a file alike: the same decision for every row,
or the same refusal (the same lines, the same fields, the same words).

Both commands read files through one reader (custody_lab.core.tables) and one case validator, and
decide with one rule table; these tests run the two commands themselves on every case file under
data/ and on a table of tricky files, and compare what they print.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from custody_lab.cli import main
from custody_lab.core.paths import data_path

HEADER = "id,initiator,operation,shape,uri,mime,bytes,current,allowed,sideEffects,provenance,requiresCurrent"
GOOD = "ok,model,mutate,embedded-resource,draft://9,application/json,760,true,true,true,p@3,false"
DRAFT = {
    "id": "draft",
    "initiator": "model",
    "operation": "mutate",
    "shape": "embedded-resource",
    "uri": "draft://9",
    "mime": "application/json",
    "bytes": 760,
    "current": True,
    "allowed": True,
    "sideEffects": True,
    "provenance": "p@3",
}


def csv_text(*rows: str, header: str = HEADER) -> str:
    return "\n".join([header, *rows]) + "\n"


def without(column: str, *rows: str) -> str:
    """The header and rows with one column left out."""
    names = HEADER.split(",")
    k = names.index(column)
    drop = lambda line: ",".join(c for i, c in enumerate(line.split(",")) if i != k)  # noqa: E731
    return csv_text(*(drop(r) for r in rows), header=drop(HEADER))


#: name -> (file name, content as bytes, what both commands must do: "decide" or "refuse").
TRICKY: dict[str, tuple[str, bytes, str]] = {
    "utf-8 byte-order mark": ("bom.csv", b"\xef\xbb\xbf" + csv_text(GOOD).encode(), "decide"),
    "no uri column": ("no-uri.csv", without("uri", GOOD, GOOD.replace("ok,", "ok2,")).encode(), "decide"),
    "no sideEffects column": ("no-side.csv", without("sideEffects", GOOD).encode(), "decide"),
    "no requiresCurrent column": (
        "no-rc.csv",
        without("requiresCurrent", GOOD.replace(",true,true,true,", ",false,true,true,")).encode(),
        "decide",
    ),
    "an extra column": ("extra.csv", csv_text(GOOD + ",x", header=HEADER + ",kind").encode(), "refuse"),
    "a misspelt column": (
        "typo.csv",
        csv_text(GOOD, header=HEADER.replace("requiresCurrent", "requiresCurent")).encode(),
        "refuse",
    ),
    "1_000 bytes": (
        "underscore.csv",
        csv_text(GOOD, GOOD.replace("ok,", "b,").replace(",760,", ",1_000,")).encode(),
        "refuse",
    ),
    "arabic-indic digits": (
        "arabic.csv",
        csv_text(GOOD, GOOD.replace("ok,", "b,").replace(",760,", ",١٢٣,")).encode(),
        "refuse",
    ),
    "full-width digits": ("wide.csv", csv_text(GOOD.replace(",760,", ",１２,")).encode(), "refuse"),
    "1e3 and 12.5 bytes": (
        "float.csv",
        csv_text(GOOD.replace(",760,", ",1e3,"), GOOD.replace("ok,", "b,").replace(",760,", ",12.5,")).encode(),
        "refuse",
    ),
    "empty cells": (
        "empty.csv",
        csv_text(
            GOOD.replace(",true,p@3,", ",,p@3,"),  # sideEffects: nobody said
            GOOD.replace("ok,", "e2,").replace("draft://9", ""),  # no uri
            GOOD.replace("ok,", "e3,").replace(",false", ","),  # requiresCurrent absent
        ).encode(),
        "decide",
    ),
    "null cells": (
        "null.csv",
        csv_text(
            GOOD.replace(",true,p@3,", ",NULL,p@3,"),
            GOOD.replace("ok,", "n2,").replace("p@3", "null"),
        ).encode(),
        "decide",
    ),
    "null in a flag that must be given": (
        "null-flag.csv",
        csv_text(GOOD.replace(",760,true,", ",760,null,")).encode(),
        "refuse",
    ),
    "TRUE and False": (
        "case.csv",
        csv_text(GOOD.replace(",760,true,true,true,", ",760,TRUE,True,False,")).encode(),
        "decide",
    ),
    "yes for a flag": (
        "yes.csv",
        csv_text(GOOD, GOOD.replace("ok,", "y,").replace(",760,true,", ",760,yes,")).encode(),
        "refuse",
    ),
    "quoted cells": (
        "quoted.csv",
        csv_text(
            '"gap, quoted",model,mutate,embedded-resource,"draft://9",application/json,"5000",true,true,true,p@3,'
        ).encode(),
        "decide",
    ),
    "crlf line ends": ("crlf.csv", csv_text(GOOD, GOOD.replace("ok,", "c2,")).replace("\n", "\r\n").encode(), "decide"),
    "blank lines and a short row": ("short.csv", (csv_text(GOOD) + "\n\nshort,model\n").encode(), "refuse"),
    "a duplicate id": ("dup.csv", csv_text(GOOD, GOOD).encode(), "refuse"),
    "a header only": ("header.csv", csv_text().encode(), "refuse"),
    "an empty file": ("nothing.csv", b"", "refuse"),
    "a json list": (
        "list.json",
        json.dumps(
            [DRAFT, {**DRAFT, "id": "big", "bytes": 9000}, {**DRAFT, "id": "nobody", "sideEffects": None}]
        ).encode(),
        "decide",
    ),
    "a json case file with its own policy": (
        "with-policy.json",
        json.dumps(
            {"policy": {"embedLimitBytes": 512}, "cases": [DRAFT, {**DRAFT, "id": "small", "bytes": 100}]}
        ).encode(),
        "decide",
    ),
    "json with a quoted number and an unknown key": (
        "bad.json",
        json.dumps(
            [DRAFT, {**DRAFT, "id": "q", "bytes": "1800"}, {**DRAFT, "id": "k", "kind": "tool"}], indent=1
        ).encode(),
        "refuse",
    ),
    "json with a bom": ("bom.json", b"\xef\xbb\xbf" + json.dumps([DRAFT]).encode(), "decide"),
    "whitespace-only custody text": (
        "blank.json",
        json.dumps([{**DRAFT, "uri": " "}, {**DRAFT, "id": "m", "mime": "\u3000"}, {**DRAFT, "id": "ok"}]).encode(),
        "decide",
    ),
    "an unclosed quote": (
        "unclosed.csv",
        csv_text(GOOD, '"' + GOOD.replace("ok,", "q,"), GOOD.replace("ok,", "z,")).encode(),
        "refuse",
    ),
    "a key twice in a json case": (
        "dup-key.json",
        ("[" + json.dumps(DRAFT).replace('"bytes": 760', '"bytes": 760, "bytes": 9000') + "]").encode(),
        "refuse",
    ),
    "an empty json list": ("empty.json", b"[]", "refuse"),
}

DATA_FILES = sorted([data_path("cases.json"), *data_path("inventories").glob("*.csv")], key=lambda p: p.name)


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def problem_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("  - ")]


def route_side(capsys, path: Path, extra: list[str]) -> tuple[int, list[tuple[str, str]], list[str]]:
    code, out, err = run(capsys, ["route", "--json", *extra, str(path)])
    receipts = json.loads(out) if out.strip() else []
    decisions = [(r["id"], r.get("selected") or r["rejection"]) for r in receipts]
    return code, decisions, problem_lines(err)


def sweep_side(capsys, path: Path, extra: list[str], tmp_path: Path) -> tuple[int, list[tuple[str, str]], list[str]]:
    out_file = tmp_path / f"{path.stem}-swept.csv"
    code, _, err = run(capsys, ["sweep", *extra, str(path), "--out", str(out_file)])
    decisions = []
    if code == 0:
        written = pd.read_csv(out_file, dtype=str, keep_default_na=False)
        decisions = list(zip(written["id"], written["outcome"])) if len(written) else []
    return code, decisions, problem_lines(err)


def assert_same(capsys, path: Path, tmp_path: Path, extra: list[str] = ()) -> tuple[str, list, list]:
    r_code, r_decisions, r_problems = route_side(capsys, path, list(extra))
    s_code, s_decisions, s_problems = sweep_side(capsys, path, list(extra), tmp_path)
    assert r_problems == s_problems, f"{path.name}: route refused\n{r_problems}\nsweep refused\n{s_problems}"
    if r_problems:
        assert (r_code, s_code) == (2, 2), f"{path.name}: exit codes route {r_code}, sweep {s_code}"
        return "refuse", r_problems, r_decisions
    assert (r_code, s_code) == (0, 0), f"{path.name}: exit codes route {r_code}, sweep {s_code}"
    assert r_decisions == s_decisions, f"{path.name}: route {r_decisions}\nsweep {s_decisions}"
    return "decide", r_problems, r_decisions


def test_the_data_directory_has_case_files_to_compare():
    names = [p.name for p in DATA_FILES]
    assert {"cases.json", "support-desk.csv", "synthetic-200.csv"} <= set(names), names


@pytest.mark.parametrize("policy", [None, "strict.json"], ids=["file-policy", "strict"])
@pytest.mark.parametrize("path", DATA_FILES, ids=lambda p: p.name)
def test_route_and_sweep_decide_every_row_of_every_data_file_alike(capsys, tmp_path, path, policy):
    extra = ["--policy", str(data_path("policies", policy))] if policy else []
    verdict, _, decisions = assert_same(capsys, path, tmp_path, extra)
    assert verdict == "decide" and len(decisions) >= 10, f"{path.name}: {verdict}, {len(decisions)} rows"


@pytest.mark.parametrize("name", list(TRICKY))
def test_route_and_sweep_decide_a_tricky_file_alike_or_refuse_it_alike(capsys, tmp_path, name):
    file_name, content, expected = TRICKY[name]
    path = tmp_path / file_name
    path.write_bytes(content)
    verdict, problems, _ = assert_same(capsys, path, tmp_path)
    assert verdict == expected, f"{name}: expected both to {expected}, both {verdict}d: {problems}"


def decisions_of(capsys, tmp_path, name: str) -> dict[str, str]:
    file_name, content, _ = TRICKY[name]
    path = tmp_path / file_name
    path.write_bytes(content)
    return dict(route_side(capsys, path, [])[1])


def refusal_of(capsys, tmp_path, name: str) -> list[str]:
    file_name, content, _ = TRICKY[name]
    path = tmp_path / file_name
    path.write_bytes(content)
    return sweep_side(capsys, path, [], tmp_path)[2]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("utf-8 byte-order mark", {"ok": "embedded-resource"}),
        ("no uri column", {"ok": "custody-incomplete", "ok2": "custody-incomplete"}),
        ("no sideEffects column", {"ok": "side-effects-unknown"}),
        ("no requiresCurrent column", {"ok": "embedded-resource"}),  # stale, but nobody requires current
        ("empty cells", {"ok": "side-effects-unknown", "e2": "custody-incomplete", "e3": "embedded-resource"}),
        ("null cells", {"ok": "side-effects-unknown", "n2": "custody-incomplete"}),
        ("TRUE and False", {"ok": "embedded-resource"}),
        ("quoted cells", {"gap, quoted": "embed-over-budget"}),
        ("crlf line ends", {"ok": "embedded-resource", "c2": "embedded-resource"}),
        ("a json list", {"draft": "embedded-resource", "big": "embed-over-budget", "nobody": "side-effects-unknown"}),
        ("a json case file with its own policy", {"draft": "embed-over-budget", "small": "embedded-resource"}),
        ("json with a bom", {"draft": "embedded-resource"}),
        (
            "whitespace-only custody text",
            {"draft": "custody-incomplete", "m": "custody-incomplete", "ok": "embedded-resource"},
        ),
    ],
)
def test_a_tricky_file_that_both_accept_is_decided_as_the_rules_say(capsys, tmp_path, name, expected):
    got = decisions_of(capsys, tmp_path, name)
    assert got == expected, f"{name}: expected {expected}, got {got}"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("an extra column", [("line 1", "unknown column 'kind'")]),
        ("a misspelt column", [("line 1", "unknown column 'requiresCurent': did you mean 'requiresCurrent'?")]),
        ("1_000 bytes", [("line 3", "field 'bytes'", "'1_000'", "without '_' separators")]),
        ("arabic-indic digits", [("line 3", "field 'bytes'", "'١٢٣'", "digits 0-9 only")]),
        ("full-width digits", [("line 2", "field 'bytes'", "'１２'", "digits 0-9 only")]),
        ("1e3 and 12.5 bytes", [("line 2", "field 'bytes'", "'1e3'"), ("line 3", "field 'bytes'", "'12.5'")]),
        ("null in a flag that must be given", [("line 2", "field 'current'", "'null'")]),
        ("yes for a flag", [("line 3", "field 'current'", "'yes'")]),
        ("blank lines and a short row", [("line 5", "row has 2 values but the header names 12 columns")]),
        ("a duplicate id", [("line 3", "duplicate id 'ok'")]),
        ("an empty file", [("nothing.csv", "expected a header row")]),
        ("a header only", [("header.csv", "holds no cases")]),
        ("an empty json list", [("empty.json", "holds no cases")]),
        ("an unclosed quote", [("line 3", "a quoted cell is not closed before the end of the file")]),
        ("a key twice in a json case", [("(cases[0])", "key 'bytes' is written twice")]),
        (
            "json with a quoted number and an unknown key",
            [("(cases[1])", "'bytes'"), ("(cases[2])", "unknown field 'kind'")],
        ),
    ],
)
def test_a_refusal_names_the_line_and_the_field(capsys, tmp_path, name, expected):
    problems = refusal_of(capsys, tmp_path, name)
    assert len(problems) == len(expected), f"{name}: expected {len(expected)} problem(s), got {problems}"
    for line, fragments in zip(problems, expected):
        missing = [f for f in fragments if f not in line]
        assert not missing, f"{name}: {line!r} lacks {missing}"


def test_an_unknown_column_lists_the_columns_a_file_may_have(capsys, tmp_path):
    (problem,) = refusal_of(capsys, tmp_path, "an extra column")
    assert "initiator, operation, shape, uri, mime, bytes" in problem and "'title' or 'description'" in problem, problem
