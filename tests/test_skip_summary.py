"""The README's test command ends with one line, once, when the interop tests skipped for want of
the pinned npm packages: how many, and the command that un-skips them (``tests/conftest.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from .conftest import interop_skip_line

ROOT = Path(__file__).resolve().parent.parent


def test_skips_for_the_npm_packages_are_counted_in_one_line_and_others_are_not():
    reasons = [
        "Skipped: @modelcontextprotocol/inspector is not installed under x; run `npm ci --prefix tests/interop`",
        "Skipped: the pinned npm packages are missing: run npm ci --prefix tests/interop",
        "Skipped: no Chromium",
    ]
    line = interop_skip_line(reasons)
    assert line is not None and line.startswith("2 tests skipped: the MCP project's npm packages"), line
    assert line.endswith("`npm ci --prefix tests/interop` runs them"), line
    assert interop_skip_line(reasons[2:]) is None, "no npm skip, no line"


def test_a_run_with_npm_skips_ends_with_the_line_exactly_once(tmp_path):
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        textwrap.dedent(
            """
            import pytest

            @pytest.mark.parametrize("n", [1, 2, 3])
            def test_interop(n):
                pytest.skip(f"server {n} is not installed; run `npm ci --prefix tests/interop`")

            def test_browser():
                pytest.skip("no Chromium")
            """
        ),
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider", "-q", str(sample)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**env, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    lines = [line for line in out.stdout.splitlines() if "npm packages" in line]
    assert out.returncode == 0, out.stdout + out.stderr
    assert lines == [
        "3 tests skipped: the MCP project's npm packages (reference servers, MCP Inspector) are not installed; "
        "`npm ci --prefix tests/interop` runs them"
    ], out.stdout
