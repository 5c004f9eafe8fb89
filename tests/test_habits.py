"""The habits of the house, run by the test command: ruff lint, ruff format, mypy over the package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The whole repository, as a contributor runs it: Python files and the Python code blocks of the
#: Markdown files (README, CONTRIBUTING, docs); notebooks are excluded in pyproject.toml.
TREES = ["."]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=ROOT)


@pytest.mark.lint
def test_ruff_finds_nothing_to_fix():
    out = _run("ruff", "check", "--no-cache", *TREES)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.lint
def test_the_tree_is_formatter_stable():
    out = _run("ruff", "format", "--check", "--no-cache", *TREES)
    assert out.returncode == 0, "run `ruff format .`:\n" + out.stdout + out.stderr


@pytest.mark.slow
def test_mypy_is_clean_over_the_whole_package():
    out = _run("mypy", "custody_lab")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success" in out.stdout and "source files" in out.stdout, out.stdout
