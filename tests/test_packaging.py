"""The house rules: a light import, the README's two commands, CI calling the same one."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import custody_lab as cl

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("pandas", "matplotlib", "ipywidgets", "mcp", "numpy", "IPython")


def readme_commands() -> dict[str, str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = dict(re.findall(r"^(python3 -m custody_lab\.bootstrap (lab|test))\b", text, re.M))
    return {verb: cmd for cmd, verb in found.items()}


def test_import_custody_lab_pulls_in_no_heavy_library():
    code = "import sys, custody_lab; print(','.join(m for m in " + repr(HEAVY) + " if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "", f"import custody_lab loaded: {out.stdout.strip()}"


def test_the_public_names_of_the_design_exist():
    for name in ("Case", "CaseError", "Policy", "route", "Decision", "load_cases", "fixture_payload"):
        assert name in cl.__all__ and hasattr(cl, name), name
    assert issubclass(cl.CaseError, ValueError)


def test_the_top_level_is_the_agreed_layout():
    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT).stdout.split()
    if not tracked:  # not a git checkout (e.g. an sdist): check the folders on disk instead
        tracked = [p.name for p in ROOT.iterdir()]
    top = {p.split("/")[0] for p in tracked}
    allowed = {
        "pyproject.toml",
        "README.md",
        "notebooks",
        "custody_lab",
        "data",
        "tests",
        "binder",
        ".ci",
        "benchmarks",
        "docs",
        "CONTRIBUTING.md",
        ".gitignore",
    }
    assert top and top <= allowed, f"unexpected top-level entries: {sorted(top - allowed)}"


def test_the_readme_gives_the_lab_and_test_commands_and_ci_ends_by_running_exactly_the_test_one():
    cmds = readme_commands()
    assert set(cmds) == {"lab", "test"}, f"README commands found: {cmds}"
    last = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert last == cmds["test"], f".ci/run ends with {last!r}, expected the README's {cmds['test']!r}"


def test_ci_installs_chromium_and_node_and_runs_under_ci_true():
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^packages=\(chromium\)$", ci, re.M), "CI must install Debian's chromium"
    assert re.search(r"^command -v node >/dev/null \|\| packages\+=\(nodejs\)$", ci, re.M), (
        "CI must install Debian's nodejs when the machine has no node"
    )
    assert 'apt-get install -y "${packages[@]}"' in ci
    assert re.search(r'^export CI="\$\{CI:-true\}"$', ci, re.M), "CI must run with CI=true (no skipping)"


def test_every_data_file_is_listed_in_the_data_readme():
    listed = (ROOT / "data" / "README.md").read_text(encoding="utf-8")
    tracked = subprocess.run(["git", "ls-files", "data"], capture_output=True, text=True, cwd=ROOT).stdout.split()
    files = [p.removeprefix("data/") for p in tracked] or [
        str(p.relative_to(ROOT / "data")) for p in (ROOT / "data").rglob("*") if p.is_file()
    ]
    files = [f for f in files if f != "README.md"]
    assert files
    missing = [f for f in files if f"`{f}`" not in listed]
    assert not missing, f"data files not described in data/README.md: {missing}"


def test_versions_are_pinned_in_one_place():
    text = (ROOT / "pyproject.toml").read_text()
    deps = re.findall(r'^\s*"([A-Za-z0-9_.\-\[\]]+)([=<>!~]=?[^"]*)?",?$', text, re.M)
    assert deps and all(spec.startswith("==") for _, spec in deps), deps
    assert not (ROOT / "requirements.txt").exists() and not (ROOT / "binder" / "requirements.txt").exists()
