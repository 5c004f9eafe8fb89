"""The pre-commit hooks: ruff check, ruff format and the quick tests' lint part, from ``.venv``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .timing import scaled

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / ".pre-commit-config.yaml"
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]


def hooks() -> dict[str, dict[str, object]]:
    import yaml

    config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    found = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}
    assert found, f"{CONFIG.name} declares no hooks"
    return found


@pytest.mark.lint
def test_the_config_is_valid_and_runs_ruff_check_ruff_format_and_the_lint_tests():
    out = subprocess.run([*PRE_COMMIT, "validate-config", str(CONFIG)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    entries = {hook_id: str(hook["entry"]) for hook_id, hook in hooks().items()}
    assert entries.keys() == {"ruff-check", "ruff-format", "lint-tests"}, entries
    assert entries["ruff-check"].startswith(".venv/bin/ruff check"), entries
    assert entries["ruff-format"].startswith(".venv/bin/ruff format"), entries
    assert '-m "lint and not slow"' in entries["lint-tests"] and "pytest" in entries["lint-tests"], entries


@pytest.mark.slow
def test_every_hook_runs_a_tool_of_the_projects_own_environment():
    for hook_id, hook in hooks().items():
        program = str(hook["entry"]).split()[0]
        assert program.startswith(".venv/bin/"), f"{hook_id}: {program} is not the project's own tool"
        assert hook["language"] == "system", f"{hook_id}: language {hook['language']} would download a second copy"
    # the lint marker the last hook selects is declared, and some tests carry it
    marked = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-m",
            "lint and not slow",
            "-p",
            "no:cacheprovider",
            "tests",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=scaled(600),
    )
    assert marked.returncode == 0, marked.stdout[-3000:] + marked.stderr[-3000:]
    count = sum(1 for line in marked.stdout.splitlines() if "::" in line)
    assert count >= 10, f"only {count} tests carry the lint mark:\n{marked.stdout[-2000:]}"


@pytest.mark.slow
def test_the_hooks_pass_on_the_tree_and_stop_a_commit_of_an_unformatted_file(tmp_path):
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout")
    clone = tmp_path / "clone"
    subprocess.run([git, "clone", "-q", "--no-hardlinks", str(ROOT), str(clone)], check=True, timeout=scaled(300))
    # the working tree's own files (this test checks the tree as it is, committed or not)
    for tracked in subprocess.run(
        [git, "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split():
        if (ROOT / tracked).is_file():
            (clone / tracked).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / tracked, clone / tracked)
    (clone / ".venv").symlink_to(Path(sys.prefix))
    env = {"PRE_COMMIT_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    good = subprocess.run(
        [*PRE_COMMIT, "run", "--all-files"], cwd=clone, capture_output=True, text=True, env=env, timeout=scaled(900)
    )
    assert good.returncode == 0, good.stdout[-4000:] + good.stderr[-2000:]
    bad = clone / "custody_lab" / "badly_formatted.py"
    bad.write_text('"""A module."""\n\n__all__ = [ "x" ]\nx=1\n', encoding="utf-8")
    subprocess.run([git, "add", str(bad)], cwd=clone, check=True)
    stopped = subprocess.run(
        [*PRE_COMMIT, "run", "--files", str(bad)],
        cwd=clone,
        capture_output=True,
        text=True,
        env=env,
        timeout=scaled(900),
    )
    assert stopped.returncode != 0, "an unformatted file passed the hooks:\n" + stopped.stdout[-3000:]
    assert "ruff format" in stopped.stdout and "Failed" in stopped.stdout, stopped.stdout[-3000:]
