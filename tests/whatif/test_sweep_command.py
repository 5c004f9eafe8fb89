"""``custody-lab sweep``: outcome counts that add up, a given policy over the file's, and the --out formats."""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
from pathlib import Path

import pandas as pd

from custody_lab.whatif.sweep_command import configure, run

ROOT = Path(__file__).resolve().parents[2]
CASES = str(ROOT / "data" / "cases.json")


def _sweep(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    configure(parser)
    return run(parser.parse_args(list(argv)))


def _counts(out: str) -> dict[str, int]:
    return {
        m.group(1): int(m.group(2).replace(",", ""))
        for m in re.finditer(r"^(?:accepted|rejected)\s+(\S+)\s+([\d,]+)\s+[\d.]+%$", out, re.M)
    }


def test_the_counts_of_each_outcome_add_up_to_the_total_line(capsys):
    assert _sweep(CASES) == 0
    out = capsys.readouterr().out
    counts = _counts(out)
    total = int(re.search(r"^total\s+([\d,]+)\s", out, re.M).group(1))
    assert total == 10 and sum(counts.values()) == total, f"counts {counts} do not add up to the total {total}"
    assert counts["listed-resource"] == 2 and counts["embed-over-budget"] == 1, counts
    assert "wrote" not in out, "without --out nothing is written"


def test_a_policy_given_on_the_command_line_wins_over_the_files_own(capsys, tmp_path):
    policy = tmp_path / "tight.json"
    policy.write_text(json.dumps({"embedLimitBytes": 100}))
    assert _sweep(CASES, "--policy", str(policy)) == 0
    counts = _counts(capsys.readouterr().out)
    assert "embedded-resource" not in counts and counts["embed-over-budget"] == 2, (
        f"a 100-byte embed limit: expected the fixture's embed over budget too, got {counts}"
    )


def test_out_csv_writes_every_row_with_its_decision(capsys, tmp_path):
    out = tmp_path / "results.csv"
    assert _sweep(CASES, "--out", str(out)) == 0
    assert f"wrote 10 rows to {out}" in capsys.readouterr().out
    rows = pd.read_csv(out)
    assert len(rows) == 10 and {"accepted", "selected", "rejection", "outcome"} <= set(rows.columns), rows.columns
    assert rows["outcome"].value_counts()["listed-resource"] == 2, rows["outcome"].value_counts()


def test_out_parquet_holds_the_same_rows_as_out_csv(capsys, tmp_path):
    assert (
        _sweep(CASES, "--out", str(tmp_path / "r.parquet")) == 0
        and _sweep(CASES, "--out", str(tmp_path / "r.csv")) == 0
    )
    capsys.readouterr()
    parquet, csv = pd.read_parquet(tmp_path / "r.parquet"), pd.read_csv(tmp_path / "r.csv")
    assert parquet["outcome"].tolist() == csv["outcome"].tolist() and len(parquet) == 10, (parquet, csv)


def test_another_output_suffix_is_refused_before_the_file_is_read(capsys, tmp_path):
    code = _sweep(str(tmp_path / "no-such-grid.csv"), "--out", str(tmp_path / "results.xlsx"))
    err = capsys.readouterr().err
    assert code == 2 and "--out must end in .csv or .parquet; got 'results.xlsx'" in err, (code, err)


def test_parquet_without_pyarrow_says_to_reinstall_or_write_csv(capsys, monkeypatch, tmp_path):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name, *a))
    code = _sweep(CASES, "--out", str(tmp_path / "results.parquet"))
    err = capsys.readouterr().err
    assert code == 2 and "needs the package pyarrow" in err and "write .csv instead" in err, (code, err)
    assert not (tmp_path / "results.parquet").exists(), "nothing may be written when the format cannot be"


def test_each_summary_line_says_whether_its_outcome_is_a_rejection(capsys):
    assert _sweep(CASES) == 0
    out = capsys.readouterr().out
    marks = dict(
        (m.group(2), m.group(1)) for m in re.finditer(r"^(accepted|rejected)\s+(\S+)\s+[\d,]+\s+[\d.]+%$", out, re.M)
    )
    assert marks["listed-resource"] == "accepted" and marks["embed-over-budget"] == "rejected", marks
    assert marks["permission-denied"] == "rejected" and marks["structured-tool-result"] == "accepted", marks
    assert re.search(r"^total\s+10\s+\(6 accepted, 4 rejected\)$", out, re.M), out


def test_out_into_a_missing_folder_is_one_line_naming_it_before_anything_is_swept(capsys, tmp_path):
    target = tmp_path / "no-such-dir" / "r.csv"
    code = _sweep(CASES, "--out", str(target))
    captured = capsys.readouterr()
    assert code == 2, code
    assert captured.err.strip() == (
        f"error: --out {target}: the folder {target.parent} does not exist; create it first or write somewhere else"
    ), captured.err
    assert captured.out == "", f"nothing is printed before the refusal, got {captured.out!r}"


def test_out_that_cannot_be_written_is_one_line_and_exit_2(capsys, tmp_path):
    target = tmp_path / "taken.csv"
    target.mkdir()  # a folder where the file should go: the write itself fails
    code = _sweep(CASES, "--out", str(target))
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"error: --out {target}: cannot write it (") and err.count("\n") == 1, (
        code,
        err,
    )


def test_a_file_with_bad_rows_sweeps_nothing_writes_nothing_and_says_why(capsys, tmp_path):
    grid = tmp_path / "grid.csv"
    lines = (ROOT / "data" / "inventories" / "support-desk.csv").read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    first = lines[1].split(",")
    first[header.index("bytes")] = "5 KB"
    grid.write_text("\n".join([lines[0], ",".join(first), *lines[2:5]]) + "\n", encoding="utf-8")
    target = tmp_path / "r.csv"
    code = _sweep(str(grid), "--out", str(target))
    captured = capsys.readouterr()
    assert code == 2 and not target.exists(), (code, target.exists())
    assert captured.out == "", f"no summary of the good rows alone, got {captured.out!r}"
    first_line, *rest = captured.err.splitlines()
    assert first_line == (
        f"{grid}: 1 problem(s); nothing swept and nothing written to {target} (a sweep counts every row of "
        "the file or none): fix the rows below and run it again"
    ), first_line
    assert len(rest) == 1 and "line 2: field 'bytes'" in rest[0], rest
