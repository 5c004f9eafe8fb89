"""``custody-lab check``: four checks, one line each, what to do when one fails, within its budget."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from custody_lab import cli
from custody_lab.delivery import machine_check
from custody_lab.delivery.machine_check import CHECK_BUDGET_SECONDS, CheckResult, format_result, run_checks

from ..timing import scaled

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(r"^(ok  |FAIL)  (python|kernel|widgets|server)\s+(.*) \((\d+\.\d) s\)(?:; what to do: (.+))?$")


@pytest.mark.slow  # a kernel, the start notebook and a server, as a facilitator runs it
def test_the_check_command_passes_on_this_machine_in_one_line_per_check_within_its_budget():
    began = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "custody_lab", "check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=scaled(CHECK_BUDGET_SECONDS + 60),
    )
    took = time.monotonic() - began
    lines = out.stdout.splitlines()
    assert out.returncode == 0, out.stdout + out.stderr
    checks = [LINE.match(line) for line in lines[1:-1]]
    assert all(checks) and [m.group(2) for m in checks] == ["python", "kernel", "widgets", "server"], lines
    assert all(m.group(1) == "ok  " for m in checks), lines
    assert "listed-resource → permission-denied" in lines[3], "the widget round trip changed no decision"
    assert re.fullmatch(r"all 4 checks passed in \d+ s: this machine is ready for the lab", lines[-1]), lines[-1]
    assert "Traceback" not in out.stderr and "without encryption" not in out.stderr, out.stderr
    assert took < scaled(CHECK_BUDGET_SECONDS), f"the check took {took:.0f} s"


@pytest.mark.slow  # a kernel
def test_a_notebook_cell_that_fails_is_named_with_its_error_and_the_widget_check_is_not_run(tmp_path):
    notebook = tmp_path / "00-broken.ipynb"
    cells = [nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell("1 / 0")]
    nbformat.write(nbformat.v4.new_notebook(cells=cells), notebook)
    results = list(machine_check._kernel_checks(notebook))
    assert [(r.name, r.ok) for r in results] == [("kernel", False), ("widgets", False)], results
    assert "code cell 2 of" in results[0].seen and "ZeroDivisionError" in results[0].seen, results[0]
    assert "python3 -m custody_lab.bootstrap lab" in results[0].fix, results[0].fix
    assert results[1].seen == "not run: the kernel check failed", results[1]


def test_a_failed_check_says_what_to_do_and_the_command_exits_1(monkeypatch, capsys):
    monkeypatch.setattr(machine_check, "_python_check", lambda: (False, "cannot import mcp", "reinstall it"))
    monkeypatch.setattr(machine_check, "_server_check", lambda budget: (True, "served", ""))
    assert cli.main(["check"]) == 1
    lines = capsys.readouterr().out.splitlines()
    matches = [LINE.match(line) for line in lines[1:-1]]
    assert all(matches), lines
    got = [(m.group(1).strip(), m.group(2), m.group(5)) for m in matches]
    assert got == [
        ("FAIL", "python", "reinstall it"),
        ("FAIL", "kernel", "fix the check above first"),
        ("FAIL", "widgets", "fix the check above first"),
        ("ok", "server", None),
    ], got
    assert lines[-1].startswith("3 of 4 checks failed (python, kernel, widgets) in "), lines[-1]


def test_a_check_that_raises_becomes_its_own_failed_line_not_a_traceback(monkeypatch):
    def broken() -> tuple[bool, str, str]:
        raise RuntimeError("no\x1b[2J way")

    monkeypatch.setattr(machine_check, "_python_check", broken)
    monkeypatch.setattr(machine_check, "_server_check", lambda budget: (True, "served", ""))
    first = next(iter(run_checks()))
    assert (first.name, first.ok) == ("python", False) and first.seen == "RuntimeError: no\\x1b[2J way", first
    assert "bootstrap lab" in first.fix, first.fix


def test_a_passing_line_has_no_advice_and_a_failing_one_ends_with_it():
    assert format_result(CheckResult("server", True, "served", "", 2.04)) == "ok    server   served (2.0 s)"
    line = format_result(CheckResult("widgets", False, "no echo", "reinstall", 0.5))
    assert line == "FAIL  widgets  no echo (0.5 s); what to do: reinstall", line
