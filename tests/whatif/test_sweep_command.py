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
        m.group(1): int(m.group(2).replace(",", "")) for m in re.finditer(r"^(\S+)\s+([\d,]+)\s+[\d.]+%$", out, re.M)
    }


def test_the_counts_of_each_outcome_add_up_to_the_total_line(capsys):
    assert _sweep(CASES) == 0
    out = capsys.readouterr().out
    counts = _counts(out)
    total = int(re.search(r"^total\s+([\d,]+)$", out, re.M).group(1))
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
