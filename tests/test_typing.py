"""The pure core type-checks: mypy over every module that imports no widget, chart or MCP code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = [
    "__init__.py", "model.py", "rules.py", "router.py", "receipts.py", "loading.py", "advisor.py",
    "explain.py", "errors.py", "paths.py", "cli.py", "bootstrap.py", "uri_templates.py", "blobs.py",
    "catalog.py", "exercises.py", "exercise_sets", "template_reading.py", "link_or_embed.py",
]


def test_the_pure_core_is_mypy_clean():
    pytest.importorskip("mypy", reason="mypy is part of the test extras; install with pip install -e '.[test]'")
    paths = [str(ROOT / "custody_lab" / name) for name in CORE]
    missing = [p for p in paths if not Path(p).exists()]
    assert not missing, f"core modules listed here no longer exist: {missing}"
    out = subprocess.run([sys.executable, "-m", "mypy", *paths], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
